"""Depth-limited expectimax for two-player zero-sum games with chance.

Decision nodes take the best value for the seat to move (the root seat
maximises its value, the other seat minimises it); chance nodes take the
expectation over ``chance_outcomes()``. Depth counts decisions only: chance
nodes cost none, and since chance never follows chance, the search is bounded.
At depth 0 the evaluation function values the state, chance nodes included.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from ai.budget import check_budget
from engine_core import State

Action = Any
Evaluate = Callable[[State], Sequence[float]]


class ExpectimaxBot:
    """``choose(state)``: the action of best expectimax value at ``depth``."""

    def __init__(
        self, num_players: int, evaluate: Evaluate, rng: random.Random, *, depth: int = 2
    ) -> None:
        if num_players != 2:
            raise ValueError(f"expectimax is for two players, this game has {num_players}")
        check_budget("expectimax", "depth", depth, None)
        self.evaluate = evaluate
        self.rng = rng
        self.depth = depth
        self.nodes = 0
        self._seat = 0

    def choose(self, state: State) -> Action:
        if state.is_terminal():
            raise ValueError("the game is over: there is no action to choose")
        if state.is_chance_node():
            raise ValueError("a chance node is for the dice, not for a bot")
        self._seat = state.current_player()
        self.nodes = 0
        actions = state.legal_actions()
        # Ties go to a random one of the best, reproducibly from the rng.
        self.rng.shuffle(actions)
        values = [self.value(state.child(a), self.depth - 1) for a in actions]
        return actions[values.index(max(values))]

    def value(self, state: State, depth: int) -> float:
        """The root seat's expectimax value of ``state``."""
        self.nodes += 1
        if state.is_terminal():
            return float(state.returns()[self._seat])
        if depth <= 0:
            return float(self.evaluate(state)[self._seat])
        if state.is_chance_node():
            return sum(p * self.value(state.child(o), depth) for o, p in state.chance_outcomes())
        values = [self.value(state.child(a), depth - 1) for a in state.legal_actions()]
        return max(values) if state.current_player() == self._seat else min(values)
