"""Authoritative matches as plain functions of their dependencies (``Matches``:
the coordination store, the state cache, the settings and a clock), so the
rules of play are testable without a server.

A match is its record (config and history, replayed into a State), its seats
and tokens, its clocks and a stream of events. Every change is one
compare-and-set on the record's version that appends its events and queues
the bot job it makes due, in the same atomic step; the server rolls every
die (seeded per match and ply, so a match replays exactly).

The process whose write made a match event an operator cares about logs it,
once, on the logger ``meeple.match``: "match created", "match started" and
"match ended" (INFO), each with structured ``fields`` (the match id, the
game, ...; never a token nor a token's hash).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import secrets
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms

from engine_core import Game, IllegalAction, State
from services.archive.base import Archive
from services.auth.identity import MAX_PLAYER_ID_CHARS, Identity, is_player_id
from services.bot_specs import check_spec
from services.convert import (
    apply_all,
    config_of,
    draws_first_seat,
    game_from_config,
    view_of,
    with_first_seat,
)
from services.coordination import BotJob, Coordination, Event, MatchData
from services.coordination.memory import wall_ms
from services.coordination.records import load_match
from services.errors import (
    Aborted,
    BadRequest,
    FailedPrecondition,
    NotFound,
    OutOfRange,
    PermissionDenied,
    Unauthenticated,
)
from services.match_service import clocks
from services.match_service.replays import replayed_events
from services.match_service.seat_tokens import holds, seat_token, token_hash
from services.match_service.shared_waits import SharedWaits
from services.match_service.states import StateCache
from services.match_service.views import (
    action_played,
    end_returns,
    ended_message,
    match_message,
    match_view,
    name_at,
    player_at,
    record_message,
    seat_names,
)
from services.metrics import MATCHES_ACTIVE, MATCHES_FINISHED, outcome_label
from services.settings import Settings

SEAT_TOKEN_METADATA = "meeple-seat-token"
OWNER_TOKEN_METADATA = "meeple-owner-token"
log = logging.getLogger("meeple.match")
KEEP_SUBMISSIONS = 16  # recent plies whose answers a retried human submission gets again
MAX_ACTIONS = 64  # in one submission; a whole turn is a handful
DEFAULT_BOT = "medium"
HUMAN, BOT = ms.SEAT_KIND_HUMAN, ms.SEAT_KIND_BOT
WAITING, PLAYING, FINISHED = (
    ms.MATCH_STATUS_WAITING,
    ms.MATCH_STATUS_PLAYING,
    ms.MATCH_STATUS_FINISHED,
)
END_LABELS = {
    ms.END_REASON_RULES: "rules",
    ms.END_REASON_RESIGNATION: "resigned",
    ms.END_REASON_TIMEOUT: "timeout",
}


@dataclass
class Matches:
    """What the match operations need."""

    coordination: Coordination
    settings: Settings = field(default_factory=Settings)
    states: StateCache = field(default_factory=StateCache)
    now_ms: Callable[[], int] = wall_ms
    # Each match's dice seed: its dice at ply p come from random.Random(f"{seed}:{p}").
    dice_seed: Callable[[], int] = lambda: secrets.randbits(64)
    waits: SharedWaits = field(init=False)  # the watchers' reads of event streams
    # Where finished matches are read from once their live copy expired.
    archive: Archive | None = None

    def __post_init__(self) -> None:
        self.waits = SharedWaits(self.coordination)


def seat_to_act(data: MatchData, state: State) -> int | None:
    """The seat to act in a playing match (None while waiting, rolling or over)."""
    if data.status != PLAYING or state.is_terminal() or state.is_chance_node():
        return None
    return state.current_player()


# --- a change, built up and committed at once --------------------------------------------


@dataclass
class Change:
    """A change of one match: the record as loaded (changed in place), the
    events it appends, and what it did."""

    data: MatchData
    now_ms: int
    events: list[Event] = field(default_factory=list)
    started: bool = False  # it started play
    finished: bool = False  # it ended the match
    was_playing: bool = False  # it ended a match that was playing

    def __post_init__(self) -> None:
        self.expected_version = self.data.version

    def add(self, ply: int, view: pb.GameView, **event: object) -> None:
        message = ms.WatchMatchResponse(ply=ply, view=view, **event)  # type: ignore[arg-type]
        message.time.FromMilliseconds(self.now_ms)
        self.events.append(Event(ply, message.SerializeToString()))

    def played(self, before: State, action: object, seat: int | None, after: State) -> None:
        """Records ``action`` (applied to ``before``, giving ``after``)."""
        played = action_played(before, action, seat)
        self.data.history.append(played.action.action.SerializeToString())
        self.add(self.data.ply - 1, view_of(after), action=played)


def roll_dice(change: Change, state: State) -> None:
    """Rolls every die now due (the server rolls, never a client)."""
    data = change.data
    while state.is_chance_node():
        rng = random.Random(f"{data.dice_seed}:{data.ply}")
        outcomes, weights = zip(*state.chance_outcomes(), strict=True)
        outcome = rng.choices(outcomes, weights)[0]
        before = state.clone()
        state.apply_action(outcome)
        change.played(before, outcome, None, state)


def settle(m: Matches, change: Change, state: State) -> None:
    """After a change of a playing match: roll due dice, end the match if
    the rules say it is over, else start the clock of the seat to act."""
    roll_dice(change, state)
    if state.is_terminal():
        finish(m, change, state, ms.END_REASON_RULES)
        return
    seat = seat_to_act(change.data, state)
    if clocks.start_turn(change.data, seat, change.now_ms) and seat is not None:
        clock = ms.ClockStarted(seat=seat)
        clock.time_left.FromMilliseconds(change.data.clocks_ms[seat])
        clock.deadline.FromMilliseconds(change.data.deadline_ms)
        change.add(change.data.ply, match_view(change.data, state), clock=clock)


def start(m: Matches, change: Change, state: State) -> None:
    """Every seat is taken: play begins."""
    change.data.status = PLAYING
    change.data.expires_ms = 0
    change.data.started_ms = change.now_ms
    change.started = True
    change.add(change.data.ply, view_of(state), started=ms.MatchStarted())
    settle(m, change, state)


def finish(m: Matches, change: Change, state: State, reason: ms.EndReason, seat: int = -1) -> None:
    data = change.data
    change.finished = True
    change.was_playing = data.status == PLAYING
    data.status = FINISHED
    data.end_reason = reason
    data.end_seat = seat
    data.ended_ms = change.now_ms
    data.returns = end_returns(data, state)
    data.expires_ms = change.now_ms + round(m.settings.finished_retention * 1000)
    clocks.stop(data)
    change.add(data.ply, match_view(data, state), ended=ended_message(data, state))


def bot_job(m: Matches, change: Change, state: State) -> BotJob | None:
    data = change.data
    seat = seat_to_act(data, state)
    if seat is None or data.seat_kinds[seat] != BOT:
        return None
    return BotJob(
        match_id=data.match_id,
        ply=data.ply,
        seat=seat,
        bot_spec=data.bot_specs[seat],
        queued_ms=change.now_ms,
        deadline_ms=change.now_ms + round(m.settings.ai_max_think_seconds * 1000),
        version=data.version,
    )


async def commit(m: Matches, change: Change, state: State, settles: str | None = None) -> None:
    """Compare-and-set of the change on the version it was loaded at, with
    its events and the bot job it makes due (acknowledging the delivered
    job it plays, ``settles``); ``state`` is the state after it."""
    data = change.data
    data.version = change.expected_version + 1
    job = bot_job(m, change, state)
    result = change.finished and data.rated  # for the ratings
    stored = await m.coordination.compare_and_set(
        data, change.expected_version, change.events, job, result, settles
    )
    if not stored:
        raise Aborted("the match changed meanwhile: read it again and retry")
    m.states.keep(data.match_id, state)
    count(data, state, change)
    report(data, state, change)


def report(data: MatchData, state: State, change: Change, created: bool = False) -> None:
    """The log lines of the events a stored change made (see the module's
    docstring): called once the write is stored, by its process only."""
    game = state.game.name
    if created:
        fields = {"match_id": data.match_id, "game": game, "seats": seat_names(data)}
        matchmade = any(data.token_hashes)  # its human seats were taken as it was made
        log.info("match created", extra={"fields": {**fields, "matchmade": matchmade}})
    if change.started:
        log.info(
            "match started",
            extra={"fields": {"match_id": data.match_id, "game": game, "ply": data.ply}},
        )
    if change.finished:
        returns = end_returns(data, state)
        ended: dict[str, object] = {
            "match_id": data.match_id,
            "game": game,
            "reason": END_LABELS[data.end_reason],
            "ply": data.ply,
            "returns": returns,
            "outcome": outcome_label(returns, END_LABELS[data.end_reason]),
            "rated": data.rated,
        }
        if data.end_seat >= 0:
            ended["seat"] = data.end_seat
        log.info("match ended", extra={"fields": ended})


def count(data: MatchData, state: State, change: Change) -> None:
    game = state.game.name
    if change.started:
        MATCHES_ACTIVE.labels(game).inc()
    if change.was_playing:
        MATCHES_ACTIVE.labels(game).dec()
    if change.finished:
        label = outcome_label(end_returns(data, state), END_LABELS[data.end_reason])
        MATCHES_FINISHED.labels(game, label).inc()


async def load(m: Matches, match_id: str) -> MatchData:
    data = await m.coordination.load(match_id)
    if data is None:
        raise NotFound(f"no match {match_id!r} (it may have expired)")
    return data


# --- the operations ------------------------------------------------------------------


def _seats(game: Game, request: ms.CreateMatchRequest) -> tuple[list[ms.SeatKind], list[str]]:
    """The seats' kinds and bot specs (their reservations: ``_reserved``)."""
    if len(request.seats) != game.num_players():
        raise BadRequest(
            f"seats: {game.name} has {game.num_players()} seats, got {len(request.seats)}"
        )
    kinds, specs = [], []
    for index, seat in enumerate(request.seats):
        if seat.kind == BOT:
            spec = seat.bot_spec or DEFAULT_BOT
            try:
                check_spec(game, spec)
            except BadRequest as error:
                raise BadRequest(f"seats[{index}].{error}") from None
        elif seat.kind == HUMAN:
            if seat.bot_spec:
                raise BadRequest(f"seats[{index}].bot_spec: only a bot seat takes a bot_spec")
            spec = ""
            player = seat.player_id
            if player and not is_player_id(player):
                raise BadRequest(
                    f"seats[{index}].player_id: a player id, 1 to {MAX_PLAYER_ID_CHARS} "
                    "printable characters"
                )
        else:
            raise BadRequest(f"seats[{index}].kind: SEAT_KIND_HUMAN or SEAT_KIND_BOT")
        if seat.kind == BOT and seat.player_id:
            raise BadRequest(f"seats[{index}].player_id: only a human seat is reserved")
        kinds.append(seat.kind)
        specs.append(spec)
    return kinds, specs


async def create_match(m: Matches, request: ms.CreateMatchRequest) -> ms.CreateMatchResponse:
    if m.settings.auth == "off" and any(seat.player_id for seat in request.seats):
        raise BadRequest(
            "seats: a seat reserved for a player (player_id) needs identities, "
            "and this server runs with MEEPLE_AUTH=off"
        )
    data, state, owner_token, _ = await new_match(m, request)
    return ms.CreateMatchResponse(match=match_message(data, state), owner_token=owner_token)


async def create_seated_match(
    m: Matches,
    request: ms.CreateMatchRequest,
    players: Sequence[str],
    names: Sequence[str] = (),
) -> tuple[MatchData, list[str]]:
    """A match whose human seats are taken at once (one write, no joins),
    for the matchmaker: ``players`` names each seat's player ("" for bots),
    ``names`` their display names; returns its record as stored and each
    seat's token ("" for bots), the one its player's JoinMatch gives again."""
    data, _, _, tokens = await new_match(m, request, players, names)
    return data, tokens


async def new_match(
    m: Matches,
    request: ms.CreateMatchRequest,
    players: Sequence[str] | None = None,
    names: Sequence[str] = (),
) -> tuple[MatchData, State, str, list[str]]:
    """The match's record as stored and its state, its owner token, and
    each seat's token when ``players`` seats its humans at once (else all "")."""
    config = request.config
    game = game_from_config(config)
    kinds, specs = _seats(game, request)
    base_ms, increment_ms = clocks.time_control_ms(request.time_control, m.settings)
    pace_ms = clocks.bot_pace_ms(request, m.settings)
    drawn = draws_first_seat(config)
    if drawn:  # "roll a Rolit ball as if it was a die"; Volta: "decide who starts"
        game = game_from_config(with_first_seat(config, secrets.randbelow(len(kinds))))
    owner_token = secrets.token_urlsafe(32)
    seated = players is not None
    now = m.now_ms()
    data = MatchData(
        match_id=secrets.token_hex(8),
        config=config_of(game).SerializeToString(),
        rules_version=game.game_type.rules_version,
        seat_kinds=kinds,
        bot_specs=specs,
        token_hashes=[""] * len(kinds),
        owner_hash=token_hash(owner_token),
        status=WAITING,
        first_seat_drawn=drawn,
        dice_seed=m.dice_seed(),
        base_ms=base_ms,
        increment_ms=increment_ms,
        clocks_ms=[base_ms if kind == HUMAN else 0 for kind in kinds],
        expires_ms=now + round(m.settings.waiting_ttl * 1000),
        created_ms=now,
        bot_pace_ms=pace_ms,
        players=list(players) if players is not None else [s.player_id for s in request.seats],
        names=[*names, *[""] * (len(kinds) - len(names))],
        seat_key=secrets.token_bytes(32).hex(),
    )
    tokens = [""] * len(kinds)
    if players is not None:
        for seat, player in enumerate(players):
            if kinds[seat] == HUMAN:
                tokens[seat] = seat_token(data, seat, player)
                data.token_hashes[seat] = token_hash(tokens[seat])
    state = game.new_initial_state()
    change = Change(data, now)
    if seated or HUMAN not in kinds:
        start(m, change, state)
    await m.coordination.create(data, change.events, bot_job(m, change, state))
    m.states.keep(data.match_id, state)
    count(data, state, change)
    report(data, state, change, created=True)
    return data, state, owner_token, tokens


async def join_match(
    m: Matches,
    request: ms.JoinMatchRequest,
    owner_token: str | None,
    who: Identity | None = None,
) -> ms.JoinMatchResponse:
    """A human seat for ``who`` (None: identities are off). A player who
    holds a seat gets its token again, with no write; a seat reserved for
    another player is PERMISSION_DENIED; the owner token retakes a seat."""
    data = await load(m, request.match_id)
    if owner_token and not holds(owner_token, data.owner_hash):
        raise PermissionDenied("this owner token is not this match's")
    if data.status == FINISHED:
        raise FailedPrecondition("the match is over")
    seats = len(data.seat_kinds)
    me = who.player_id if who is not None else None
    humans = [s for s in range(seats) if data.seat_kinds[s] == HUMAN]
    mine = [s for s in humans if me is not None and player_at(data, s) == me]
    held = [s for s in mine if data.token_hashes[s]]
    free = [s for s in humans if not data.token_hashes[s] and player_at(data, s) in ("", me)]
    free.sort(key=lambda s: s not in mine)  # a seat reserved for the caller first
    if request.HasField("seat"):
        seat = request.seat
        if seat >= seats:
            raise BadRequest(f"seat: the match has seats 0..{seats - 1}")
        if data.seat_kinds[seat] != HUMAN:
            raise IllegalAction(f"seat {seat} is a bot seat: only human seats are joined")
        if seat not in free and seat not in held and not owner_token:
            if not data.token_hashes[seat]:
                raise PermissionDenied(f"seat {seat} is reserved for another player")
            raise IllegalAction(f"seat {seat} is taken (its owner token can retake it)")
    elif held:
        seat = held[0]
    elif free:
        seat = free[0]
    else:
        raise IllegalAction("the match has no free human seat")
    state = await m.states.state(data)
    was_free = not data.token_hashes[seat]
    retake = bool(owner_token) and request.HasField("seat") and not was_free
    if retake:  # a new round: the seat's old token, whoever held it, stops working
        data.seat_rounds = [*data.seat_rounds, *[0] * (seats - len(data.seat_rounds))]
        data.seat_rounds[seat] += 1
    token = seat_token(data, seat, me) if me is not None and data.seat_key else ""
    if token and not retake and holds(token, data.token_hashes[seat]):
        # Its own seat, again: the same token, and nothing changes.
        return ms.JoinMatchResponse(seat=seat, seat_token=token, match=match_message(data, state))
    token = token or secrets.token_urlsafe(32)
    data.token_hashes[seat] = token_hash(token)
    data.players = [player_at(data, s) for s in range(seats)]
    data.names = [name_at(data, s) for s in range(seats)]
    data.players[seat] = me or ""
    data.names[seat] = who.display_name if who is not None else ""
    change = Change(data, m.now_ms())
    if was_free:
        change.add(data.ply, view_of(state), seat_joined=ms.SeatJoined(seat=seat))
    if data.status == WAITING and all(
        h or k == BOT for h, k in zip(data.token_hashes, data.seat_kinds, strict=True)
    ):
        start(m, change, state)
    await commit(m, change, state)
    return ms.JoinMatchResponse(seat=seat, seat_token=token, match=match_message(data, state))


def seat_of_token(data: MatchData, token: str | None) -> int:
    if not token:
        raise Unauthenticated(f"a seat token is needed in the {SEAT_TOKEN_METADATA!r} metadata")
    for seat, stored in enumerate(data.token_hashes):
        if holds(token, stored):
            return seat
    raise PermissionDenied("this token holds no seat of this match")


def submission_key(seat: int, actions: Sequence[pb.Action]) -> str:
    digest = hashlib.sha256(b"".join(a.SerializeToString() for a in actions)).hexdigest()
    return f"{seat}:{digest}"


async def submit_action(
    m: Matches,
    match_id: str,
    seat: int | None,
    token: str | None,
    expected_ply: int,
    actions: Sequence[pb.Action],
    data: MatchData | None = None,
    settles: str | None = None,
) -> ms.SubmitActionResponse:
    """Plays actions of the token's seat (or, with ``seat``, of a bot seat:
    its runner may hand over the record it has, ``data``, changed in place,
    and the delivery the move plays, ``settles``, acknowledged with the
    move; a bot's answer holds only the actions applied, not the match)."""
    human = seat is None
    if not actions:
        raise BadRequest("actions: give at least one action")
    if len(actions) > MAX_ACTIONS:
        raise BadRequest(f"actions: at most {MAX_ACTIONS} in one submission")
    if data is None:
        data = await load(m, match_id)
    if seat is None:
        seat = seat_of_token(data, token)
    key = submission_key(seat, actions)
    if expected_ply != data.ply:
        earlier = data.submissions.get(expected_ply)
        if earlier is not None and earlier[0] == key:
            return ms.SubmitActionResponse.FromString(earlier[1])  # a retry: same answer
        if earlier is not None and earlier[0].startswith(f"{seat}:"):
            raise Aborted(
                f"ply {expected_ply} was played with other actions; the match is at ply {data.ply}"
            )
        raise Aborted(f"stale ply: the match is at ply {data.ply}, not {expected_ply}")
    if data.status == WAITING:
        raise IllegalAction("the match is waiting for players to join")
    if data.status == FINISHED:
        raise IllegalAction("the match is over")
    change = Change(data, m.now_ms())
    state = await m.states.state(data)
    if clocks.flagged(data, change.now_ms) is not None:
        await time_out(m, match_id)
        raise IllegalAction("out of time: the match is over")
    if state.current_player() != seat:
        raise IllegalAction(f"not your turn: seat {state.current_player()} is to act")
    after, steps = apply_all(state, actions)
    for index, step in enumerate(steps):
        following = steps[index + 1].before if index + 1 < len(steps) else after
        change.played(step.before, step.action, seat, following)
    clocks.charge(data, change.now_ms, turn_over=after.current_player() != seat)
    settle(m, change, after)
    response = ms.SubmitActionResponse(applied=[step.info for step in steps])
    if human:  # a client may retry; a bot's runner never does (a stale result is dropped)
        response.match.CopyFrom(match_message(data, after))
        data.submissions[expected_ply] = (key, response.SerializeToString())
        for old in [ply for ply in data.submissions if ply < expected_ply - KEEP_SUBMISSIONS]:
            del data.submissions[old]  # a retry comes soon after its submission
    await commit(m, change, after, settles)
    return response


async def readable(m: Matches, match_id: str) -> tuple[MatchData, bool]:
    """The match's record, from the store or, once its live copy expired,
    from the archive; and whether it came from the archive."""
    data = await m.coordination.load(match_id)
    if data is not None:
        return data, False
    archived = await m.archive.match(match_id) if m.archive is not None else None
    if archived is None:
        raise NotFound(f"no match {match_id!r} (it may have expired)")
    return load_match(archived.record), True


async def get_match(m: Matches, match_id: str) -> ms.GetMatchResponse:
    data, _ = await readable(m, match_id)
    state = await m.states.state(data)
    return ms.GetMatchResponse(match=match_message(data, state), record=record_message(data))


async def resign(m: Matches, match_id: str, token: str | None) -> ms.Match:
    data = await load(m, match_id)
    seat = seat_of_token(data, token)
    if data.status == FINISHED:
        raise IllegalAction("the match is over")
    change = Change(data, m.now_ms())
    state = await m.states.state(data)
    finish(m, change, state, ms.END_REASON_RESIGNATION, seat)
    await commit(m, change, state)
    return match_message(data, state)


async def time_out(m: Matches, match_id: str) -> bool:
    """Ends the match if a human seat's clock ran out; whether it did."""
    data = await load(m, match_id)
    change = Change(data, m.now_ms())
    seat = clocks.flagged(data, change.now_ms)
    if data.status != PLAYING or seat is None:
        return False
    state = await m.states.state(data)
    clocks.charge(data, change.now_ms, turn_over=False)
    finish(m, change, state, ms.END_REASON_TIMEOUT, seat)
    await commit(m, change, state)
    return True


async def watch(
    m: Matches, match_id: str, from_ply: int, poll_seconds: float = 1.0
) -> AsyncIterator[ms.WatchMatchResponse]:
    """A snapshot of the match, then its events from ``from_ply`` until it
    ends (a match from the archive: its actions rebuilt from the record)."""
    data, archived = await readable(m, match_id)
    if data.status == FINISHED and from_ply > data.ply:
        raise OutOfRange(f"from_ply: the match ended at ply {data.ply}, got {from_ply}")
    state = await m.states.state(data)
    snapshot = match_message(data, state)
    yield ms.WatchMatchResponse(ply=data.ply, snapshot=snapshot, view=snapshot.view)
    if archived:
        for replayed in await asyncio.to_thread(replayed_events, data, from_ply):
            yield replayed
        return
    batch = await m.coordination.read_events(match_id, from_ply)
    while True:
        for event in batch.events:
            message = ms.WatchMatchResponse.FromString(event.payload)
            yield message
            if message.HasField("ended"):
                return
        if not batch.events:
            await load(m, match_id)  # NOT_FOUND once a waiting match expired
        batch = await m.waits.wait_events(match_id, batch.cursor, poll_seconds)
