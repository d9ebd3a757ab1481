"""The batch entry point: N seeded random playouts run in C."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import pytest

import engine_core
from engine_core.rolit import FlipState
from tests.engine_core.rolit.helpers import late_position


def exact_outcomes(state: FlipState) -> dict[tuple[float, ...], Fraction]:
    """The exact distribution of returns under uniformly random play, by
    walking the whole remaining tree through the Game API."""
    if state.is_terminal():
        return {tuple(state.returns()): Fraction(1)}
    legal = state.legal_actions()
    distribution: Counter[tuple[float, ...]] = Counter()
    for action in legal:
        for outcome, p in exact_outcomes(state.child(action)).items():
            distribution[outcome] += p / len(legal)
    return dict(distribution)


@pytest.mark.parametrize(
    ("name", "options", "seed"),
    [("rolit", {"players": 4}, 3), ("rolit", {"players": 3}, 4), ("othello", {}, 13)],
)
def test_playouts_follow_uniform_random_play(name: str, options: dict[str, int], seed: int) -> None:
    state = late_position(name, seed, empties=7, **options)
    exact = exact_outcomes(state)
    assert len(exact) >= 3, "pick a position whose outcome is in doubt"
    n = 20_000
    observed = Counter(state.random_playouts(n, seed))
    assert set(observed) <= set(exact), "a playout ended in an unreachable outcome"
    for outcome, p in exact.items():
        sigma = math.sqrt(float(p) * (1 - float(p)) / n)
        assert abs(observed[outcome] / n - float(p)) <= 5 * sigma + 1e-9, outcome


def test_playouts_are_reproducible_from_the_seed() -> None:
    state = engine_core.load_game("rolit", players=4).new_initial_state()
    assert isinstance(state, FlipState)
    first = state.random_playouts(200, seed=11)
    assert state.random_playouts(200, seed=11) == first
    assert state.random_playouts(200, seed=12) != first
    assert state.random_playouts(200, seed=11 + 2**64) == first  # the seed is taken mod 2**64


def test_playouts_leave_the_state_alone_and_sum_to_zero() -> None:
    state = late_position("rolit", 8, empties=30, players=3)
    before = (state.board(), state.history(), state.current_player())
    results = state.random_playouts(500, seed=1)
    assert (state.board(), state.history(), state.current_player()) == before
    assert len(results) == 500
    assert all(len(r) == 3 and abs(sum(r)) < 1e-12 for r in results)


def test_playouts_from_a_terminal_state_return_its_returns() -> None:
    state = late_position("rolit", 9, empties=0, players=2)
    assert state.is_terminal()
    assert state.random_playouts(3, seed=0) == [tuple(state.returns())] * 3
