"""Alpha-beta search with iterative deepening, a transposition table and move
ordering, generic over the Game API for deterministic games.

One search serves three algorithms, which differ only in who moves at each
layer:
- ``alphabeta``: two players; the root's seat maximises its value, the other
  seat minimises it (plain minimax, so passes and any turn order work);
- ``paranoid``: n players; every opponent is assumed to minimise the root
  seat's value (Sturtevant & Korf 2000);
- ``brs``: Best-Reply Search (Schadd & Winands, IEEE TCIAIG 2011): layers
  alternate between the root seat and *one* opponent, the one whose best reply
  hurts most, while the others wait. The game must declare ``turn_override``
  (states with ``with_turn(seat)``).

All three search games without chance, with discrete actions. Values come
from an evaluation function ``evaluate(state) -> list[float]`` per seat
(``returns()`` at terminal states). The transposition table is keyed by
``state.zobrist_hash()`` when the game declares ``position_hash`` (else by the
history, which finds no transpositions but stays correct).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, cast

from ai.budget import check_budget
from engine_core import HashedState, State, TurnOverrideState, as_turn_override

Action = Any
Evaluate = Callable[[State], Sequence[float]]
Order = Callable[[State, list[Action]], list[Action]]

EXACT, LOWER, UPPER = 0, 1, 2
VARIANTS = ("alphabeta", "paranoid", "brs")


class SearchTimeout(Exception):
    """The wall-clock budget ran out inside an iteration."""


def zobrist_key(state: State) -> Any:
    """The key of a state whose game declares ``position_hash``."""
    return cast(HashedState, state).zobrist_hash()


def history_key(state: State) -> Any:
    """The key of any state: equal only for the same line of play."""
    return tuple(state.history())


def with_turn(state: State, seat: int) -> State:
    """``state`` with ``seat`` to move, for a game that declares
    ``turn_override`` (``choose`` checks that once per search)."""
    return cast(TurnOverrideState, state).with_turn(seat)


class AlphaBetaBot:
    """Iterative-deepening alpha-beta (or paranoid, or BRS); ``choose(state)``."""

    def __init__(
        self,
        num_players: int,
        evaluate: Evaluate,
        *,
        variant: str = "alphabeta",
        depth: int | None = None,
        time_limit: float | None = None,
        order: Order | None = None,
        table_size: int = 1 << 20,
    ) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}")
        if variant == "alphabeta" and num_players != 2:
            raise ValueError(
                f"alpha-beta is for two players, this game has {num_players}: use paranoid or brs"
            )
        check_budget(variant, "depth", depth, time_limit)
        self.num_players = num_players
        self.evaluate = evaluate
        self.variant = variant
        self.depth = depth
        self.time_limit = time_limit
        self.order = order
        self.table_size = table_size
        # (key, root seat, maximising) -> (depth, value, bound, best action,
        # whether the subtree was searched to its end without a depth cut).
        self.table: dict[tuple[Any, int, bool], tuple[int, float, int, Action, bool]] = {}
        self.nodes = 0
        self.completed_depth = 0
        self.value = 0.0  # the root's value for its seat at completed_depth
        self._deadline = math.inf
        self._root_seat = 0
        self._cut = False
        self._key: Callable[[State], Any] = history_key

    def choose(self, state: State) -> Action:
        if state.is_terminal():
            raise ValueError("the game is over: there is no action to choose")
        if state.is_chance_node():
            raise ValueError(f"{self.variant} cannot search chance nodes: use expectimax or MCTS")
        declared = state.game.game_type
        if self.variant == "brs":
            as_turn_override(state)  # a ValueError unless the game declares it
        self._key = zobrist_key if declared.position_hash else history_key
        self._root_seat = state.current_player()
        self._deadline = (
            math.inf if self.time_limit is None else time.perf_counter() + self.time_limit
        )
        self.nodes = 0
        self.completed_depth = 0
        self.value = 0.0
        if len(self.table) > self.table_size:
            self.table.clear()
        legal = state.legal_actions()
        best = legal[0]
        max_depth = self.depth if self.depth is not None else 1000
        for depth in range(1, max_depth + 1):
            self._cut = False
            try:
                value, action = self._root(state, depth, best)
            except SearchTimeout:
                break
            best, self.value = action, value
            self.completed_depth = depth
            if not self._cut:
                break  # every line reached the end: deeper search changes nothing
        return best

    # --- the search ---------------------------------------------------------

    def _root(self, state: State, depth: int, previous_best: Action) -> tuple[float, Action]:
        alpha, beta = -math.inf, math.inf
        best_value, best_action = -math.inf, previous_best
        for action, child in self._children(state, True, first=previous_best):
            value = self._search(child, depth - 1, alpha, beta, self._next_is_max(child, True))
            if value > best_value:
                best_value, best_action = value, action
            alpha = max(alpha, value)
        return best_value, best_action

    def _search(
        self, state: State, depth: int, alpha: float, beta: float, maximizing: bool
    ) -> float:
        self.nodes += 1
        if self.nodes & 63 == 0 and time.perf_counter() > self._deadline:
            raise SearchTimeout
        if state.is_terminal():
            return float(state.returns()[self._root_seat])
        if depth == 0:
            self._cut = True
            return float(self.evaluate(state)[self._root_seat])
        if state.is_chance_node():
            raise ValueError("alpha-beta cannot search chance nodes: use expectimax or MCTS")
        key = (self._key(state), self._root_seat, maximizing)
        entry = self.table.get(key)
        hint = None
        if entry is not None:
            stored_depth, value, flag, hint, complete = entry
            if stored_depth >= depth or complete:
                self._cut |= not complete
                if flag == EXACT:
                    return value
                if flag == LOWER:
                    alpha = max(alpha, value)
                else:
                    beta = min(beta, value)
                if alpha >= beta:
                    return value
        cut_above, self._cut = self._cut, False
        original_alpha, original_beta = alpha, beta
        best_value = -math.inf if maximizing else math.inf
        best_action = None
        for action, child in self._children(state, maximizing, first=hint):
            value = self._search(
                child, depth - 1, alpha, beta, self._next_is_max(child, maximizing)
            )
            if (maximizing and value > best_value) or (not maximizing and value < best_value):
                best_value, best_action = value, action
            if maximizing:
                alpha = max(alpha, value)
            else:
                beta = min(beta, value)
            if alpha >= beta:
                break
        flag = EXACT
        if best_value <= original_alpha:
            flag = UPPER
        elif best_value >= original_beta:
            flag = LOWER
        self.table[key] = (depth, best_value, flag, best_action, not self._cut)
        self._cut |= cut_above
        return best_value

    def _next_is_max(self, child: State, maximizing: bool) -> bool:
        if self.variant == "brs":
            return not maximizing
        return child.current_player() == self._root_seat

    def _children(
        self, state: State, maximizing: bool, first: Action | None
    ) -> Iterator[tuple[Action, State]]:
        """(action, child) pairs in search order. In BRS a minimising layer is
        every opponent's every move, each played as if it were their turn,
        after which the root seat is to move again."""
        if self.variant == "brs":
            if maximizing:
                if state.current_player() != self._root_seat:
                    state = with_turn(state, self._root_seat)
                for action in self._ordered(state, first):
                    yield action, state.child(action)
                return
            for seat in range(self.num_players):
                if seat == self._root_seat:
                    continue
                mover = with_turn(state, seat)
                hint = first[1] if isinstance(first, tuple) and first[0] == seat else None
                for action in self._ordered(mover, hint):
                    child = mover.child(action)
                    if not child.is_terminal():
                        child = with_turn(child, self._root_seat)
                    yield (seat, action), child
            return
        for action in self._ordered(state, first):
            yield action, state.child(action)

    def _ordered(self, state: State, first: Action | None) -> list[Action]:
        actions = state.legal_actions()
        if self.order is not None:
            actions = self.order(state, actions)
        if first is not None and first in actions:
            actions.remove(first)
            actions.insert(0, first)
        return actions
