"""The search algorithms on small hand-checkable positions: they find forced
wins (checked against an exhaustive solver in this file), respect budgets and
never return an illegal action."""

from __future__ import annotations

import random
from functools import cache

import pytest

import engine_core
from ai.alphabeta import AlphaBetaBot
from ai.bots import make_bot
from ai.evaluation import flip
from ai.mcts import MCTSBot, RandomRolloutEvaluator
from engine_core.rolit import FlipState
from tests.engine_core.rolit.helpers import late_position


def paranoid_value(state: FlipState, seat: int) -> float:
    """Exhaustive paranoid value for ``seat`` (minimax when two players)."""

    @cache
    def solve(history: tuple[int, ...]) -> float:
        node = state.clone()
        for action in history[len(state.history()) :]:
            node.apply_action(action)
        if node.is_terminal():
            return node.returns()[seat]
        values = [solve((*history, a)) for a in node.legal_actions()]
        return max(values) if node.current_player() == seat else min(values)

    return solve(tuple(state.history()))


def winning_moves(state: FlipState) -> tuple[set[int], float]:
    """The root moves that reach the best paranoid value, and that value."""
    seat = state.current_player()
    values = {a: paranoid_value(state.child(a), seat) for a in state.legal_actions()}
    best = max(values.values())
    return {a for a, v in values.items() if v == best}, best


def puzzles(name: str, count: int, empties: int, **options: int) -> list[FlipState]:
    """Late positions where only some moves keep the best result, and that
    result is a win: a search must tell the winning moves from the rest."""
    found = []
    for seed in range(500):
        state = late_position(name, seed, empties, **options)
        if state.is_terminal():
            continue
        winners, best = winning_moves(state)
        if best > 0 and len(winners) < len(state.legal_actions()):
            found.append(state)
            if len(found) == count:
                return found
    raise AssertionError("no puzzle found")


OTHELLO_PUZZLES = puzzles("othello", 4, empties=7)
ROLIT2_PUZZLES = puzzles("rolit", 4, empties=6, players=2)


@pytest.mark.parametrize("state", OTHELLO_PUZZLES + ROLIT2_PUZZLES, ids=repr)
@pytest.mark.parametrize("spec", ["alphabeta:depth=8", "paranoid:depth=8", "mcts:iterations=3000"])
def test_two_player_searches_find_the_forced_win(state: FlipState, spec: str) -> None:
    winners, _ = winning_moves(state)
    bot = make_bot(state.game, spec, seed=1)
    assert bot.choose(state) in winners


ROLIT4_PUZZLES = puzzles("rolit", 3, empties=5, players=4)


@pytest.mark.parametrize("state", ROLIT4_PUZZLES, ids=repr)
def test_paranoid_finds_the_win_against_every_coalition(state: FlipState) -> None:
    winners, _ = winning_moves(state)
    assert make_bot(state.game, "paranoid:depth=6", seed=2).choose(state) in winners


def plain_brs(state: FlipState, seat: int, depth: int, maximizing: bool) -> float:
    """Best-Reply Search by its definition, without pruning or a table."""
    if state.is_terminal():
        return state.returns()[seat]
    if depth == 0:
        return flip.evaluate(state)[seat]
    if maximizing:
        mover = state.with_turn(seat)
        return max(plain_brs(mover.child(a), seat, depth - 1, False) for a in mover.legal_actions())
    values = []
    for opponent in range(state.game.num_players()):
        if opponent != seat:
            mover = state.with_turn(opponent)
            values += [
                plain_brs(mover.child(a), seat, depth - 1, True) for a in mover.legal_actions()
            ]
    return min(values)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("depth", [2, 3])
def test_brs_picks_a_move_of_the_best_brs_value(seed: int, depth: int) -> None:
    """Pruning and the table must not change BRS's answer: the chosen move has
    the best value of the plain definition."""
    state = late_position("rolit", seed, empties=40, players=4)
    seat = state.current_player()
    values = {a: plain_brs(state.child(a), seat, depth - 1, False) for a in state.legal_actions()}
    choice = make_bot(state.game, f"brs:depth={depth}", seed=0).choose(state)
    assert values[choice] == pytest.approx(max(values.values()))


def test_greedy_takes_a_corner_over_an_edge() -> None:
    state = engine_core.load_game("othello").state_from_diagram(  # type: ignore[attr-defined]
        """
        . O X . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        """,
        to_move=0,
    )
    assert state.legal_actions() == [engine_core.rolit.parse_square("a8")]
    two = engine_core.load_game("othello").state_from_diagram(  # type: ignore[attr-defined]
        """
        . O X . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . O .
        . . . . . . . X
        """,
        to_move=0,
    )
    legal = two.legal_actions()
    a8 = engine_core.rolit.parse_square("a8")
    assert a8 in legal
    assert len(legal) > 1
    assert make_bot(two.game, "greedy", seed=0).choose(two) == a8


def test_mcts_spends_exactly_its_iterations() -> None:
    state = engine_core.load_game("othello").new_initial_state()
    bot = MCTSBot(RandomRolloutEvaluator(random.Random(0)), random.Random(0), iterations=321)
    root = bot.search(state)
    assert root.visits == 321
    assert sum(child.visits for child in root.children) == 321


def test_alphabeta_stops_at_its_depth_and_early_when_solved() -> None:
    state = engine_core.load_game("othello").new_initial_state()
    bot = AlphaBetaBot(2, flip.evaluate, depth=3)  # type: ignore[arg-type]
    bot.choose(state)
    assert bot.completed_depth == 3
    endgame = late_position("othello", 3, empties=3)
    solver = AlphaBetaBot(2, flip.evaluate, depth=30)  # type: ignore[arg-type]
    solver.choose(endgame)
    assert solver.completed_depth <= 4


def test_a_time_budget_ends_the_search() -> None:
    state = engine_core.load_game("rolit", players=4).new_initial_state()
    bot = make_bot(state.game, "brs:time=0.05", seed=0)
    bot.choose(state)
    assert isinstance(bot, AlphaBetaBot)
    assert 1 <= bot.completed_depth < 30


@pytest.mark.parametrize(
    ("name", "options"), [("othello", {}), ("rolit", {"players": 3}), ("rolit", {"players": 4})]
)
@pytest.mark.parametrize(
    "spec",
    [
        "random",
        "greedy",
        "mcts:iterations=30",
        "mcts:iterations=20:rollout=batch:playouts=2",
        "mcts:iterations=20:rollout=eval",
        "paranoid:depth=2",
        "brs:depth=2",
        "easy",
        "medium",
    ],
)
def test_bots_play_whole_games_legally_and_reproducibly(
    name: str, options: dict[str, int], spec: str
) -> None:
    game = engine_core.load_game(name, **options)

    def play(seed: int) -> list[int]:
        bots = [make_bot(game, spec, seed=seed + seat) for seat in range(game.num_players())]
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            action = bots[state.current_player()].choose(state.clone())
            assert action in legal
            state.apply_action(action)
        return state.history()

    assert play(5) == play(5)


def test_mcts_samples_chance_outcomes_by_their_probability() -> None:
    game = engine_core.load_game("volleyball", seed=1)
    state = game.new_initial_state()
    bot = make_bot(game, "hard", seed=0)
    while not state.is_chance_node():
        state.apply_action(bot.choose(state))
    mcts = MCTSBot(RandomRolloutEvaluator(random.Random(2)), random.Random(2), iterations=3600)
    root = mcts.search(state)
    outcomes = dict(state.chance_outcomes())
    assert len(outcomes) == 36
    assert {child.action for child in root.children} == set(outcomes)
    for child in root.children:
        # 100 expected visits each; 5 standard deviations of a binomial.
        assert abs(child.visits - 100) <= 5 * (3600 * (1 / 36) * (35 / 36)) ** 0.5
        assert child.prior == outcomes[child.action]
