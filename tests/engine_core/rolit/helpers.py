"""Shared test helpers for the flip games."""

from __future__ import annotations

import random

import engine_core
from engine_core.rolit import FlipState, parse_square
from engine_core.rolit.board import FlipGame
from engine_core.rolit.reference import ReferenceFlipGame


def squares(*names: str) -> list[int]:
    return [parse_square(name) for name in names]


def reference_of(state: FlipState, seat: int) -> ReferenceFlipGame:
    """A reference game with ``state``'s balls and ``seat`` to move; it
    decides for itself whether the game is over."""
    game: FlipGame = state.game
    return ReferenceFlipGame.from_board(
        game.seat_colours, state.board(), seat, othello=game.othello
    )


def assert_children_agree(state: FlipState, ref: ReferenceFlipGame) -> None:
    """Same legal actions, and after each one the same balls, end and turn."""
    assert state.is_terminal() == ref.over
    assert state.legal_actions() == ref.legal_actions()
    for action in state.legal_actions():
        child = state.child(action)
        ref_child = ref.copy()
        ref_child.apply(action)
        assert child.board() == ref_child.cells
        assert child.is_terminal() == ref_child.over
        if not child.is_terminal():
            assert child.current_player() == ref_child.seat


def late_position(name: str, seed: int, empties: int, **options: int) -> FlipState:
    """A state reached by seeded random play with ``empties`` squares left."""
    state = engine_core.load_game(name, **options).new_initial_state()
    rng = random.Random(seed)
    while state.board().count(-1) > empties and not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert isinstance(state, FlipState)
    return state


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
