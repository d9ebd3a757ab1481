"""Shared test helpers for the flip games."""

from __future__ import annotations

from engine_core.rolit import FlipState, parse_square
from engine_core.rolit.board import FlipGame
from engine_core.rolit.reference import ReferenceFlipGame


def squares(*names: str) -> list[int]:
    return [parse_square(name) for name in names]


def reference_of(state: FlipState) -> ReferenceFlipGame:
    """A reference game in the same position as ``state`` (seat to move included)."""
    game: FlipGame = state.game
    ref = ReferenceFlipGame(game.seat_colours, {}, othello=game.othello)
    ref.cells = state.board()
    ref.seat = state.current_player() if not state.is_terminal() else 0
    ref.over = state.is_terminal()
    return ref


def snapshot(state: FlipState) -> tuple[object, ...]:
    """Everything observable about a state, to check that a refusal changed nothing."""
    return (
        state.board(),
        state.current_player(),
        state.history(),
        state.legal_actions(),
        state.is_terminal(),
        state.scores(),
    )
