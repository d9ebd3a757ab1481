"""Each live match's State, kept by the ply it stands at, so a turn applies
to the cached state instead of replaying the whole record; a miss replays
the record off the event loop."""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from meeple.v1 import game_pb2 as pb

from engine_core import State
from services.convert import check_rules_version, game_from_config, replay_actions
from services.coordination import MatchData
from services.metrics import MATCH_REPLAYS


def replay_match(data: MatchData) -> State:
    """The match's state from its record (CPU work in proportion to it)."""
    game = game_from_config(pb.GameConfig.FromString(data.config))
    check_rules_version(game, data.rules_version)
    history = (pb.Action.FromString(raw) for raw in data.history)
    return replay_actions(game.new_initial_state(), history)


class StateCache:
    """The states of the ``capacity`` matches used last. A match's history
    only grows, so its id and ply name one state exactly."""

    def __init__(self, capacity: int = 2048) -> None:
        if capacity < 1:
            raise ValueError(f"a state cache needs capacity >= 1, got {capacity}")
        self.capacity = capacity
        self._states: OrderedDict[str, tuple[int, State]] = OrderedDict()

    async def state(self, data: MatchData) -> State:
        """A private copy of the match's current state (the caller may change it)."""
        kept = self._states.get(data.match_id)
        if kept is not None and kept[0] == data.ply:
            self._states.move_to_end(data.match_id)
            return kept[1].clone()
        MATCH_REPLAYS.inc()
        state = await asyncio.to_thread(replay_match, data)
        self.keep(data.match_id, state)
        return state.clone()

    def keep(self, match_id: str, state: State) -> None:
        """Remembers ``state`` as the match's state at its ply; the caller
        must not change it afterwards."""
        self._states[match_id] = (len(state.history()), state)
        self._states.move_to_end(match_id)
        while len(self._states) > self.capacity:
            self._states.popitem(last=False)

    def forget(self, match_id: str) -> None:
        self._states.pop(match_id, None)

    def __len__(self) -> int:
        return len(self._states)
