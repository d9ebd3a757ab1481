"""The volleyball bot and expectimax: placement by exact coverage, receives
that find the only intercept, Underdog choices, and the evaluation's math."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

import engine_core
from ai.bots import make_bot
from ai.evaluation.volleyball import evaluate, game_won, rally_won_by_hitter
from ai.volleyball import VolleyballBot, standard_table
from engine_core.volleyball import (
    END,
    VolleyballState,
    coverage,
    dice_action,
    place_action,
)
from engine_core.volleyball.actions import LAND_BASE


def receive_position() -> VolleyballState:
    """Seat 1 receives a ball on 6,3 that exactly one set of steps intercepts:
    4,2->5,3 then 6,2->6,3 then 3,3->4,3 (a chain)."""
    state = engine_core.load_game("volleyball").new_initial_state()
    assert isinstance(state, VolleyballState)
    for column, row in [(4, 3), (6, 1), (4, 1), (6, 3), (1, 2), (5, 3)]:
        state.apply_action(place_action(column, row))
    for column, row in [(4, 2), (6, 2), (2, 2), (3, 3), (1, 3), (2, 1)]:
        state.apply_action(place_action(column, row))
    state.apply_action(state.legal_actions()[0])  # the only serve: 6,1 / 6,3 tie -> first
    state.apply_action(dice_action(6, 6))
    return state


def intercepting_step_sets(state: VolleyballState) -> set[frozenset[int]]:
    """Every set of steps after which the receiver intercepts, by brute force."""
    receiver = state.current_player()
    found: set[frozenset[int]] = set()

    def walk(node: VolleyballState, steps: list[int]) -> None:
        if node.phase() != "receive" or node.current_player() != receiver:
            return
        if node.intercept_plan() == []:
            found.add(frozenset(steps))
        for action in node.legal_actions():
            if action != END:
                walk(node.child(action), [*steps, action])

    walk(state, [])
    return found


def test_the_hand_made_receive_has_exactly_one_answer() -> None:
    state = receive_position()
    assert state.phase() == "receive"
    assert len(intercepting_step_sets(state)) == 1


@pytest.mark.parametrize("spec", ["expectimax:depth=1", "expectimax:depth=2", "hard"])
def test_the_bot_finds_the_only_intercepting_steps(spec: str) -> None:
    state = receive_position()
    (answer,) = intercepting_step_sets(state)
    bot = make_bot(state.game, spec, seed=3)
    receiver = state.current_player()
    steps = []
    while state.current_player() == receiver and state.phase() == "receive":
        action = bot.choose(state)
        if action != END:
            steps.append(action)
        state.apply_action(action)
    assert frozenset(steps) == answer
    assert state.hits() == 2  # the return is under way


def test_a_random_receiver_rarely_finds_it() -> None:
    """The position is a real test: random steps almost never intercept."""
    saved = 0
    for seed in range(50):
        state = receive_position()
        bot = make_bot(state.game, "random", seed=seed)
        while state.phase() == "receive":
            state.apply_action(bot.choose(state))
        saved += state.hits() == 2
    assert saved <= 3


@pytest.mark.parametrize("serving", [False, True])
def test_placement_reaches_the_best_coverage_of_all_formations(serving: bool) -> None:
    _, values = standard_table(serving)
    best = max(values)
    state = engine_core.load_game("volleyball").new_initial_state()
    assert isinstance(state, VolleyballState)
    bot = VolleyballBot(random.Random(0))
    if not serving:  # the server places first: let it place anything
        for column in range(1, 7):
            state.apply_action(place_action(column, 1))
    seat = state.current_player()
    for _ in range(6):
        state.apply_action(bot.choose(state))
    if not serving:
        assert coverage(state.pieces(seat)) == Fraction(best, 18)
        assert best == 18
    else:
        covered = max(
            coverage(state.child(action).pieces(seat)) for action in state.legal_actions()
        )
        assert covered == Fraction(best, 18)


def test_big_leagues_placement_is_sampled_and_legal() -> None:
    game = engine_core.load_game("volleyball", big_leagues=True)
    state = game.new_initial_state()
    bot = make_bot(game, "hard", seed=1)
    for _ in range(12):
        action = bot.choose(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert state.phase() == "serve"


def test_an_underdog_hitter_lands_where_the_receiver_cannot_reach() -> None:
    game = engine_core.load_game("volleyball", underdog_boost=True)
    for seed in range(20):
        state = game.new_initial_state()
        assert isinstance(state, VolleyballState)
        bots = [make_bot(game, "medium", seed=seed), make_bot(game, "medium", seed=seed + 1)]
        rng = random.Random(seed)
        while not state.is_terminal():
            if state.phase() == "hit" and coverage(state.pieces(1 - state.hitter())) < 1:
                action = make_bot(game, "hard", seed=0).choose(state)
                assert action >= LAND_BASE
                landing = state.child(action)
                assert landing.phase() == "receive"
                assert landing.intercept_plan() is None
                return
            if state.is_chance_node():
                state.apply_action(state.sample_chance_outcome(rng))
            else:
                state.apply_action(bots[state.current_player()].choose(state))
    raise AssertionError("no Underdog choice against a gap reached")


def test_rally_and_game_probabilities() -> None:
    assert rally_won_by_hitter(0.0, 0.5) == 1.0
    assert rally_won_by_hitter(1.0, 0.0) == 0.0
    assert rally_won_by_hitter(0.5, 0.5) == pytest.approx(0.5 / 0.75)
    assert rally_won_by_hitter(1.0, 1.0) == 0.5
    assert game_won(0, 0) == 0.5
    assert game_won(3, 3) == 0.5
    assert game_won(3, 0) == 15 / 16
    assert game_won(4, 2) == 1.0


def test_the_evaluation_is_zero_sum_and_ends_in_the_returns() -> None:
    state = receive_position()
    values = evaluate(state)
    assert sum(values) == pytest.approx(0.0)
    # The receiver can still intercept: its value beats losing the point.
    losing = state.child(END)
    assert evaluate(losing)[1] < values[1]
    game = engine_core.load_game("volleyball", seed=4)
    final = game.new_initial_state()
    bot = make_bot(game, "random", seed=4)
    rng = random.Random(4)
    while not final.is_terminal():
        if final.is_chance_node():
            final.apply_action(final.sample_chance_outcome(rng))
        else:
            final.apply_action(bot.choose(final))
    assert evaluate(final) == final.returns()


STANDARD: dict[str, bool] = {}
BOTH_VARIANTS = {"big_leagues": True, "underdog_boost": True}


@pytest.mark.parametrize(
    ("options", "spec"),
    [(STANDARD, spec) for spec in ["random", "greedy", "mcts:iterations=30", "easy", "medium"]]
    # Big Leagues evaluations cost more (36 landing squares, two steps a piece).
    + [(BOTH_VARIANTS, spec) for spec in ["random", "greedy", "mcts:iterations=10", "hard"]],
)
def test_bots_play_whole_volleyball_games_legally_and_reproducibly(
    options: dict[str, bool], spec: str
) -> None:
    game = engine_core.load_game("volleyball", **options)

    def play(seed: int) -> list[int]:
        bots = [make_bot(game, spec, seed=seed + seat) for seat in range(2)]
        state = game.new_initial_state()
        rng = random.Random(seed)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.sample_chance_outcome(rng))
                continue
            legal = state.legal_actions()
            action = bots[state.current_player()].choose(state.clone())
            assert action in legal
            state.apply_action(action)
        return state.history()

    assert play(3) == play(3)
