"""Authoritative matches as plain functions of their dependencies (the
coordination store), so the rules of play are testable without a server.

A match is its record (config and history, replayed into a State), its seats
and tokens, and a stream of events. Every change is a compare-and-set on the
record's version that appends its events in the same step; the server rolls
every die (seeded per match and ply, so a match replays exactly) and queues a
job whenever a bot seat is to act.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Sequence

from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms

from ai.bots import make_bot
from engine_core import IllegalAction, State
from engine_core.api import returns_for_winners
from services.bot_specs import check_spec
from services.convert import (
    action_to_proto,
    apply_all,
    config_of,
    flick_result_to_proto,
    game_from_config,
    replay,
    view_of,
)
from services.coordination import BotJob, Coordination, MatchData
from services.errors import Aborted, BadRequest, NotFound, PermissionDenied, Unauthenticated
from services.metrics import MATCHES_ACTIVE, MATCHES_FINISHED, outcome_label

SEAT_TOKEN_METADATA = "meeple-seat-token"
KEEP_SUBMISSIONS = 32  # recent plies whose answers a retried submission gets again


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def state_of(data: MatchData) -> State:
    record = pb.GameRecord(
        config=pb.GameConfig.FromString(data.config),
        history=[pb.Action.FromString(raw) for raw in data.history],
    )
    return replay(record)


def match_message(data: MatchData, state: State) -> ms.Match:
    seats = [
        ms.Seat(
            index=index,
            kind=kind,
            bot_spec=data.bot_specs[index],
            joined=kind == ms.SEAT_KIND_BOT or bool(data.token_hashes[index]),
        )
        for index, kind in enumerate(data.seat_kinds)
    ]
    view = view_of(state)
    if data.resigned_seat >= 0:
        view.terminal = True
        view.current_player = -4
        view.ClearField("returns")
        view.returns.extend(resignation_returns(data))
    return ms.Match(
        match_id=data.match_id,
        config=pb.GameConfig.FromString(data.config),
        seats=seats,
        status=data.status,
        view=view,
        resigned_seat=data.resigned_seat,
    )


def resignation_returns(data: MatchData) -> list[float]:
    """Whoever resigns loses; the other seats share the win."""
    seats = len(data.seat_kinds)
    return returns_for_winners([s for s in range(seats) if s != data.resigned_seat], seats)


def seat_to_act(data: MatchData, state: State) -> int | None:
    if data.status != ms.MATCH_STATUS_PLAYING or state.is_terminal():
        return None
    return state.current_player()


def action_event(before: State, action: object, seat: int, ply: int, after: State) -> bytes:
    played = ms.ActionPlayed(seat=seat, action=action_to_proto(before, action))
    if before.game.name == "volta":  # type: ignore[attr-defined]
        # Deterministic: simulating again gives the flick's exact trajectory.
        played.flick.CopyFrom(flick_result_to_proto(before.simulate(action, record=True)))  # type: ignore[attr-defined]
    return ms.WatchMatchResponse(ply=ply, action=played, view=view_of(after)).SerializeToString()


def end_event(data: MatchData, state: State) -> bytes:
    message = match_message(data, state)
    ended = ms.MatchEnded(returns=message.view.returns, resigned_seat=data.resigned_seat)
    return ms.WatchMatchResponse(ply=data.ply, ended=ended, view=message.view).SerializeToString()


def roll_dice(data: MatchData, state: State) -> list[bytes]:
    """Rolls every die now due (the server rolls, never a client), appending
    them to ``data`` and ``state``; returns their events."""
    events = []
    while state.is_chance_node():
        rng = random.Random(f"{data.dice_seed}:{data.ply}")
        outcomes, weights = zip(*state.chance_outcomes(), strict=True)
        outcome = rng.choices(outcomes, weights)[0]
        before = state.clone()
        state.apply_action(outcome)
        data.history.append(action_to_proto(before, outcome).action.SerializeToString())
        events.append(action_event(before, outcome, -1, data.ply - 1, state))
    return events


def settle(data: MatchData, state: State) -> list[bytes]:
    """After a change: roll due dice, finish the match if it is over."""
    events = roll_dice(data, state)
    if state.is_terminal() and data.status != ms.MATCH_STATUS_FINISHED:
        data.status = ms.MATCH_STATUS_FINISHED
        events.append(end_event(data, state))
    return events


async def queue_bot(coordination: Coordination, data: MatchData, state: State) -> None:
    seat = seat_to_act(data, state)
    if seat is not None and seat >= 0 and data.seat_kinds[seat] == ms.SEAT_KIND_BOT:
        await coordination.push_job(BotJob(data.match_id, data.ply))


async def load(coordination: Coordination, match_id: str) -> MatchData:
    data = await coordination.load(match_id)
    if data is None:
        raise NotFound(f"no match {match_id!r}")
    return data


async def store(
    coordination: Coordination, data: MatchData, events: list[bytes], state: State
) -> None:
    """Compare-and-set of ``data`` (and its events) on its version, where
    ``state`` is the state after the change. No operation acts on a finished
    match, so one that is finished now was finished by this change: count it."""
    expected = data.version
    data.version += 1
    if not await coordination.compare_and_set(data, expected, events):
        raise Aborted("the match changed meanwhile: read it again and retry")
    if data.status == ms.MATCH_STATUS_FINISHED:
        game = state.game.name  # type: ignore[attr-defined]
        returns = list(match_message(data, state).view.returns)
        MATCHES_ACTIVE.labels(game).dec()
        MATCHES_FINISHED.labels(game, outcome_label(returns, data.resigned_seat >= 0)).inc()


# --- the operations ---------------------------------------------------------


async def create_match(coordination: Coordination, request: ms.CreateMatchRequest) -> ms.Match:
    game = game_from_config(request.config)
    if len(request.seats) != game.num_players():
        raise BadRequest(
            f"seats: {game.name} has {game.num_players()} seats, got {len(request.seats)}"
        )
    for index, seat in enumerate(request.seats):
        if seat.kind == ms.SEAT_KIND_BOT:
            try:
                check_spec(seat.bot_spec or "medium")
            except BadRequest as error:
                raise BadRequest(f"seats[{index}].{error}") from None
        elif seat.kind != ms.SEAT_KIND_HUMAN:
            raise BadRequest(f"seats[{index}].kind: SEAT_KIND_HUMAN or SEAT_KIND_BOT")
    kinds = [seat.kind for seat in request.seats]
    data = MatchData(
        match_id=secrets.token_hex(8),
        config=config_of(game).SerializeToString(),
        seat_kinds=kinds,
        bot_specs=[
            (seat.bot_spec or "medium") if seat.kind == ms.SEAT_KIND_BOT else ""
            for seat in request.seats
        ],
        token_hashes=[""] * len(kinds),
        status=ms.MATCH_STATUS_WAITING if ms.SEAT_KIND_HUMAN in kinds else ms.MATCH_STATUS_PLAYING,
        dice_seed=secrets.randbits(64),
    )
    state = game.new_initial_state()
    _validate_bots(data, state)
    events = settle(data, state) if data.status == ms.MATCH_STATUS_PLAYING else []
    await coordination.create(data, events)
    MATCHES_ACTIVE.labels(game.name).inc()
    await queue_bot(coordination, data, state)
    return match_message(data, state)


def _validate_bots(data: MatchData, state: State) -> None:
    """Each bot spec must make a bot for this very game."""
    for index, spec in enumerate(data.bot_specs):
        if spec:
            try:
                make_bot(state.game, spec)  # type: ignore[attr-defined]
            except ValueError as error:
                raise BadRequest(f"seats[{index}].bot_spec: {error}") from None


async def join_match(
    coordination: Coordination, request: ms.JoinMatchRequest
) -> ms.JoinMatchResponse:
    data = await load(coordination, request.match_id)
    free = [
        s
        for s, kind in enumerate(data.seat_kinds)
        if kind == ms.SEAT_KIND_HUMAN and not data.token_hashes[s]
    ]
    if request.HasField("seat"):
        if request.seat >= len(data.seat_kinds):
            raise BadRequest(f"seat: the match has seats 0..{len(data.seat_kinds) - 1}")
        if request.seat not in free:
            raise IllegalAction(f"seat {request.seat} is not a free human seat")
        seat = request.seat
    elif free:
        seat = free[0]
    else:
        raise IllegalAction("the match has no free human seat")
    token = secrets.token_urlsafe(32)
    data.token_hashes[seat] = token_hash(token)
    state = state_of(data)
    events: list[bytes] = []
    if all(
        h or k == ms.SEAT_KIND_BOT for h, k in zip(data.token_hashes, data.seat_kinds, strict=True)
    ):
        data.status = ms.MATCH_STATUS_PLAYING
        events = settle(data, state)
    await store(coordination, data, events, state)
    await queue_bot(coordination, data, state)
    return ms.JoinMatchResponse(seat=seat, seat_token=token, match=match_message(data, state))


def seat_of_token(data: MatchData, token: str | None) -> int:
    if not token:
        raise Unauthenticated(f"a seat token is needed in the {SEAT_TOKEN_METADATA!r} metadata")
    digest = token_hash(token)
    for seat, stored in enumerate(data.token_hashes):
        if stored and hmac.compare_digest(stored, digest):
            return seat
    raise PermissionDenied("this token holds no seat of this match")


async def submit_action(
    coordination: Coordination,
    match_id: str,
    seat: int | None,
    token: str | None,
    expected_ply: int,
    actions: Sequence[pb.Action],
) -> ms.SubmitActionResponse:
    """Plays a turn for the token's seat (or, with ``seat``, for a bot)."""
    if not actions:
        raise BadRequest("actions: give at least one action")
    data = await load(coordination, match_id)
    if seat is None:
        seat = seat_of_token(data, token)
    digest = hashlib.sha256(b"".join(a.SerializeToString() for a in actions)).hexdigest()
    if expected_ply != data.ply:
        earlier = data.submissions.get(expected_ply)
        if earlier is not None and earlier[0] == f"{seat}:{digest}":
            return ms.SubmitActionResponse.FromString(earlier[1])  # a retry: same answer
        raise Aborted(f"stale ply: the match is at ply {data.ply}, not {expected_ply}")
    if data.status == ms.MATCH_STATUS_WAITING:
        raise IllegalAction("the match is waiting for players to join")
    if data.status == ms.MATCH_STATUS_FINISHED:
        raise IllegalAction("the match is over")
    state = state_of(data)
    if state.current_player() != seat:
        raise IllegalAction(f"not your turn: seat {state.current_player()} is to act")
    after, steps = apply_all(state, actions)
    events = []
    for index, step in enumerate(steps):
        data.history.append(step.info.action.SerializeToString())
        following = steps[index + 1].before if index + 1 < len(steps) else after
        events.append(action_event(step.before, step.action, seat, data.ply - 1, following))
    events += settle(data, after)
    applied = [step.info for step in steps]
    response = ms.SubmitActionResponse(match=match_message(data, after), applied=applied)
    data.submissions[expected_ply] = (f"{seat}:{digest}", response.SerializeToString())
    for old in [ply for ply in data.submissions if ply < expected_ply - KEEP_SUBMISSIONS]:
        del data.submissions[old]  # a retry comes soon after its submission
    await store(coordination, data, events, after)
    await queue_bot(coordination, data, after)
    return response


async def get_match(coordination: Coordination, match_id: str) -> ms.GetMatchResponse:
    data = await load(coordination, match_id)
    state = state_of(data)
    record = pb.GameRecord(
        config=pb.GameConfig.FromString(data.config),
        history=[pb.Action.FromString(raw) for raw in data.history],
    )
    return ms.GetMatchResponse(match=match_message(data, state), record=record)


async def resign(coordination: Coordination, match_id: str, token: str | None) -> ms.Match:
    data = await load(coordination, match_id)
    seat = seat_of_token(data, token)
    if data.status == ms.MATCH_STATUS_FINISHED:
        raise IllegalAction("the match is over")
    data.resigned_seat = seat
    data.status = ms.MATCH_STATUS_FINISHED
    state = state_of(data)
    await store(coordination, data, [end_event(data, state)], state)
    return match_message(data, state)
