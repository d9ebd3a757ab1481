"""What clients see of a match: the Match message of a record and its
state (seats with their players, the view, how it ended) and its record."""

from __future__ import annotations

from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms

from engine_core import State
from engine_core.api import returns_for_winners
from services.convert import action_to_proto, flick_outcome, simulating, view_of, wire_of
from services.coordination import MatchData

HUMAN, BOT = ms.SEAT_KIND_HUMAN, ms.SEAT_KIND_BOT
FINISHED = ms.MATCH_STATUS_FINISHED


def player_at(data: MatchData, seat: int) -> str:
    """The player holding ``seat`` or reserved it ("" for none; older records have none)."""
    return data.players[seat] if seat < len(data.players) else ""


def name_at(data: MatchData, seat: int) -> str:
    return data.names[seat] if seat < len(data.names) else ""


def end_returns(data: MatchData, state: State) -> list[float]:
    """The rules' returns, or for a resignation or a timeout: the seat loses,
    the other seats share the win."""
    if data.end_reason in (ms.END_REASON_RESIGNATION, ms.END_REASON_TIMEOUT):
        seats = len(data.seat_kinds)
        return returns_for_winners([s for s in range(seats) if s != data.end_seat], seats)
    return state.returns()


def action_played(before: State, action: object, seat: int | None) -> ms.ActionPlayed:
    """``action``, applied to ``before`` by ``seat`` (None: a die), as its
    event: with its notation and, for a Volta flick, its trajectory
    (deterministic: simulating it again gives the exact one)."""
    played = ms.ActionPlayed(action=action_to_proto(before, action))
    if seat is not None:
        played.seat = seat
    if wire_of(before.game).trajectories:
        played.flick.CopyFrom(flick_outcome(simulating(before).simulate(action, True)))
    return played


def match_view(data: MatchData, state: State) -> pb.GameView:
    view = view_of(state)
    if data.status == FINISHED and not state.is_terminal():  # resigned or out of time
        view.phase = pb.GAME_PHASE_TERMINAL
        view.ClearField("seat_to_act")
        view.ClearField("returns")
        view.returns.extend(end_returns(data, state))
    return view


def ended_message(data: MatchData, state: State) -> ms.MatchEnded:
    ended = ms.MatchEnded(returns=end_returns(data, state), reason=data.end_reason)
    if data.end_seat >= 0:
        ended.seat = data.end_seat
    return ended


def match_message(data: MatchData, state: State) -> ms.Match:
    seats = []
    for index, kind in enumerate(data.seat_kinds):
        seat = ms.Seat(
            index=index,
            kind=kind,
            bot_spec=data.bot_specs[index],
            joined=kind == BOT or bool(data.token_hashes[index]),
            player_id=player_at(data, index),
            display_name=name_at(data, index),
        )
        if kind == HUMAN:
            seat.time_left.FromMilliseconds(data.clocks_ms[index])
        seats.append(seat)
    match = ms.Match(
        match_id=data.match_id,
        config=pb.GameConfig.FromString(data.config),
        seats=seats,
        status=data.status,
        view=match_view(data, state),
        first_seat_drawn=data.first_seat_drawn,
    )
    match.time_control.base.FromMilliseconds(data.base_ms)
    match.time_control.increment.FromMilliseconds(data.increment_ms)
    if data.deadline_ms:
        match.turn_deadline.FromMilliseconds(data.deadline_ms)
    if data.expires_ms:
        match.expire_time.FromMilliseconds(data.expires_ms)
    if data.started_ms:
        match.start_time.FromMilliseconds(data.started_ms)
    match.bot_pace.FromMilliseconds(data.bot_pace_ms)
    if data.status == FINISHED:
        match.ended.CopyFrom(ended_message(data, state))
    return match


def record_message(data: MatchData) -> pb.GameRecord:
    return pb.GameRecord(
        config=pb.GameConfig.FromString(data.config),
        history=[pb.Action.FromString(raw) for raw in data.history],
        rules_version=data.rules_version,
    )


def seat_names(data: MatchData) -> list[str]:
    """Each seat as "human" or "bot:<spec>"."""
    return [
        "human" if kind == HUMAN else f"bot:{spec}"
        for kind, spec in zip(data.seat_kinds, data.bot_specs, strict=True)
    ]
