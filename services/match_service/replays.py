"""A finished match's events rebuilt from its record, for a match read
from the archive once its live event stream has expired."""

from __future__ import annotations

from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms

from services.convert import (
    action_from_proto,
    action_to_proto,
    check_rules_version,
    flick_outcome,
    game_from_config,
    simulating,
    view_of,
    wire_of,
)
from services.coordination import MatchData
from services.match_service.views import ended_message, match_view


def replayed_events(data: MatchData, from_ply: int) -> list[ms.WatchMatchResponse]:
    """The match's ActionPlayed events from ``from_ply`` (each with its
    view, and a Volta flick with its trajectory, as during play), then its
    MatchEnded. Seat joins and clock starts are not rebuilt, and the events
    carry no time. CPU work in proportion to the record: call it off the
    event loop."""
    game = game_from_config(pb.GameConfig.FromString(data.config))
    check_rules_version(game, data.rules_version)
    trajectories = wire_of(game).trajectories
    state = game.new_initial_state()
    events = []
    for ply, raw in enumerate(data.history):
        action = action_from_proto(state, pb.Action.FromString(raw))
        if ply < from_ply:
            state.apply_action(action)
            continue
        before = state.clone()
        played = ms.ActionPlayed(action=action_to_proto(before, action))
        if not before.is_chance_node():
            played.seat = before.current_player()
        if trajectories:
            played.flick.CopyFrom(flick_outcome(simulating(before).simulate(action, True)))
        state.apply_action(action)
        events.append(ms.WatchMatchResponse(ply=ply, view=view_of(state), action=played))
    ended = ended_message(data, state)
    events.append(ms.WatchMatchResponse(ply=data.ply, view=match_view(data, state), ended=ended))
    return events
