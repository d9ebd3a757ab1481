"""A finished match's events rebuilt from its record, for a match read
from the archive once its live event stream has expired."""

from __future__ import annotations

from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms

from services.convert import action_from_proto, check_rules_version, game_from_config, view_of
from services.coordination import MatchData
from services.match_service.views import action_played, ended_message, match_view


def replayed_events(data: MatchData, from_ply: int) -> list[ms.WatchMatchResponse]:
    """The match's ActionPlayed events from ``from_ply`` (each with its
    view, and a Volta flick with its trajectory, as during play), then its
    MatchEnded. Seat joins and clock starts are not rebuilt, and the events
    carry no time. CPU work in proportion to the record: call it off the
    event loop."""
    game = game_from_config(pb.GameConfig.FromString(data.config))
    check_rules_version(game, data.rules_version)
    state = game.new_initial_state()
    events = []
    for ply, raw in enumerate(data.history):
        action = action_from_proto(state, pb.Action.FromString(raw))
        if ply < from_ply:
            state.apply_action(action)
            continue
        before = state.clone()
        seat = None if before.is_chance_node() else before.current_player()
        played = action_played(before, action, seat)
        state.apply_action(action)
        events.append(ms.WatchMatchResponse(ply=ply, view=view_of(state), action=played))
    ended = ended_message(data, state)
    events.append(ms.WatchMatchResponse(ply=data.ply, view=match_view(data, state), ended=ended))
    return events
