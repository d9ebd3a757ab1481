"""Static evaluation functions and move orderings, per game name."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ai.evaluation import flip, volleyball, volta
from engine_core import State

Evaluate = Callable[[State], Sequence[float]]
Order = Callable[[State, list[Any]], list[Any]]

EVALUATIONS: dict[str, Evaluate] = {
    "rolit": flip.evaluate,  # type: ignore[dict-item]
    "othello": flip.evaluate,  # type: ignore[dict-item]
    "volleyball": volleyball.evaluate,  # type: ignore[dict-item]
    "volta": volta.evaluate,  # type: ignore[dict-item]
}
ORDERINGS: dict[str, Order] = {
    "rolit": flip.order_actions,  # type: ignore[dict-item]
    "othello": flip.order_actions,  # type: ignore[dict-item]
}


def terminal_only(state: State) -> list[float]:
    """The evaluation of a game with none: returns at the end, 0 before."""
    return state.returns()


def evaluation_for(game_name: str) -> Evaluate:
    return EVALUATIONS.get(game_name, terminal_only)
