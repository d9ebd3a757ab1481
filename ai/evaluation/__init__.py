"""Static evaluation functions and move orderings (one module per game;
``ai.knowledge`` says which game uses which).

An evaluation gives every seat a value in [-1, 1] that reads like
``returns()``; an ordering sorts a state's actions best first for a search.
Each game's functions take that game's State class; ``for_states`` and
``ordering_for_states`` make them take any State, refusing other games'.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from engine_core import State

Evaluate = Callable[[State], Sequence[float]]
Order = Callable[[State, list[Any]], list[Any]]

S = TypeVar("S")


def for_states(kind: type[S], evaluate: Callable[[S], Sequence[float]]) -> Evaluate:
    """``evaluate``, which values ``kind`` states, as an evaluation of any
    State: another game's state is a TypeError, not a wrong value."""

    def evaluate_state(state: State) -> Sequence[float]:
        if not isinstance(state, kind):
            raise TypeError(f"{evaluate.__module__} evaluates {kind.__name__}, not {state!r}")
        return evaluate(state)

    return evaluate_state


def ordering_for_states(kind: type[S], order: Callable[[S, list[Any]], list[Any]]) -> Order:
    """``order`` as an ordering of any State's actions (see ``for_states``)."""

    def order_state(state: State, actions: list[Any]) -> list[Any]:
        if not isinstance(state, kind):
            raise TypeError(f"{order.__module__} orders {kind.__name__}, not {state!r}")
        return order(state, actions)

    return order_state


def terminal_only(state: State) -> list[float]:
    """The evaluation of a game with none: returns at the end, 0 before."""
    return state.returns()
