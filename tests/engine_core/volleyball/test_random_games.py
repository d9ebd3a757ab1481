"""Seeded random full games in all four variant combinations: they end
properly, every legal action applies, every illegal one is refused with the
state unchanged, chance sums to 1 and the history replays the match.

Uniformly random receivers almost never intercept, so the test player mostly
follows ``intercept_plan`` while receiving: rallies, comebacks and Underdog
choices then happen too.
"""

from __future__ import annotations

import math
import random

import pytest

import engine_core
from engine_core import CHANCE, TERMINAL, IllegalAction
from engine_core.volleyball import VolleyballState
from engine_core.volleyball import actions as act

from .helpers import snapshot

VARIANTS = [(big, underdog) for big in (False, True) for underdog in (False, True)]
MAX_ACTIONS = 20_000


def _new(big_leagues: bool, underdog_boost: bool, seed: int) -> VolleyballState:
    state = engine_core.load_game(
        "volleyball", big_leagues=big_leagues, underdog_boost=underdog_boost, seed=seed
    ).new_initial_state()
    assert isinstance(state, VolleyballState)
    return state


def pick(state: VolleyballState, rng: random.Random) -> int:
    """A random action, but a receiver mostly plays toward an intercept."""
    if state.phase() == "receive" and rng.random() < 0.8:
        plan = state.intercept_plan()
        if plan is not None:
            return plan[0] if plan else act.END
    return rng.choice(state.legal_actions())


@pytest.mark.parametrize(("big_leagues", "underdog_boost"), VARIANTS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_games_end_properly(big_leagues: bool, underdog_boost: bool, seed: int) -> None:
    state = _new(big_leagues, underdog_boost, seed)
    rng = random.Random(seed)
    every_action = range(-1, act.NUM_DISTINCT_ACTIONS + 1)
    phases = set()
    longest_rally = 0
    for _ in range(MAX_ACTIONS):
        if state.is_terminal():
            break
        phases.add(state.phase())
        longest_rally = max(longest_rally, state.hits())
        legal = state.legal_actions()
        assert legal
        assert legal == sorted(set(legal))
        player = state.current_player()
        assert player in (0, 1, CHANCE)
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert [a for a, _ in outcomes] == legal
            assert math.fsum(p for _, p in outcomes) == 1.0
        else:
            assert state.chance_outcomes() == []
        for action in legal:
            child = state.child(action)
            assert child.history() == [*state.history(), action]
        before = snapshot(state)
        refused = [a for a in rng.sample(every_action, 40) if a not in legal][:8]
        for action in refused:
            with pytest.raises(IllegalAction):
                state.apply_action(action)
            assert snapshot(state) == before
        if state.is_chance_node():
            state.apply_action(state.sample_chance_outcome())
        else:
            state.apply_action(pick(state, rng))
    assert state.is_terminal()
    assert state.current_player() == TERMINAL
    assert sorted(state.scores())[1] == act.WINNING_SCORE
    assert sorted(state.scores())[0] < act.WINNING_SCORE
    winner = state.winner()
    assert winner is not None
    assert state.scores()[winner] == act.WINNING_SCORE
    assert state.returns()[winner] == 1.0
    assert sum(state.returns()) == 0.0
    expected = {"place", "serve", "roll", "receive"}
    if big_leagues:
        expected.add("hitter step")
    if underdog_boost:
        expected.add("hit")
    assert expected <= phases
    assert longest_rally >= 3

    replay = _new(big_leagues, underdog_boost, seed + 1)
    for action in state.history():
        replay.apply_action(action)
    assert str(replay) == str(state)
    assert replay.returns() == state.returns()


@pytest.mark.parametrize(("big_leagues", "underdog_boost"), VARIANTS)
def test_compiled_random_playouts_end_and_repeat(big_leagues: bool, underdog_boost: bool) -> None:
    state = _new(big_leagues, underdog_boost, 0)
    games = state.random_playouts(50, seed=11)
    assert games == state.random_playouts(50, seed=11)
    assert games != state.random_playouts(50, seed=12)
    # Each playout's returns, as returns() gives them at the end: both seats win some.
    assert set(games) == {(1.0, -1.0), (-1.0, 1.0)}
    assert state.history() == []


def test_compiled_random_playouts_follow_random_play_through_the_state_api() -> None:
    """From 3-1 (seat 0 ahead, but seat 1 to serve), the C playouts' share of
    seat 0 wins matches uniformly random games played through the Game API
    (within 5 standard deviations); a seat swap in the returns would not."""
    rng = random.Random(11)
    state = _new(False, False, 0)
    while state.scores() != [3, 1] or state.phase() != "place":
        state.apply_action(rng.choice(state.legal_actions()))
    compiled = state.random_playouts(20_000, seed=5)
    share_c = sum(r == (1.0, -1.0) for r in compiled) / len(compiled)
    n = 4_000
    wins = 0
    for _ in range(n):
        game = state.clone()
        while not game.is_terminal():
            game.apply_action(rng.choice(game.legal_actions()))
        wins += game.returns() == [1.0, -1.0]
    share_api = wins / n
    sigma = math.sqrt(share_api * (1 - share_api) * (1 / n + 1 / len(compiled)))
    assert abs(share_c - share_api) <= 5 * sigma
    assert share_api < 0.4  # the position is lopsided, so a seat swap shows


def test_compiled_random_playouts_from_the_end_return_its_returns() -> None:
    rng = random.Random(3)
    state = _new(False, False, 3)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert state.random_playouts(2, seed=0) == [tuple(state.returns())] * 2


@pytest.mark.parametrize(("big_leagues", "underdog_boost"), VARIANTS)
def test_every_action_id_in_every_phase(big_leagues: bool, underdog_boost: bool) -> None:
    """At the first state of each phase of a seeded game, every action id
    either is legal and applies, or is refused with the state unchanged."""
    state = _new(big_leagues, underdog_boost, 2)
    rng = random.Random(2)
    seen: set[str] = set()
    while not state.is_terminal():
        if state.phase() not in seen:
            seen.add(state.phase())
            legal = set(state.legal_actions())
            before = snapshot(state)
            for action in range(-1, act.NUM_DISTINCT_ACTIONS + 1):
                if action in legal:
                    assert state.child(action).history()[-1] == action
                else:
                    with pytest.raises(IllegalAction):
                        state.apply_action(action)
                    assert snapshot(state) == before
        state.apply_action(
            state.sample_chance_outcome() if state.is_chance_node() else pick(state, rng)
        )
    assert {"place", "serve", "roll", "receive"} <= seen
