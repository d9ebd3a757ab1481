"""make_bot's spec checks: options typed, finite and within range, levels
without options, unknown names listed; and the package's public names."""

from __future__ import annotations

import dataclasses
import re

import pytest

import ai
import engine_core
from ai import make_bot
from ai.alphabeta import AlphaBetaBot
from ai.mcts import MCTSBot

OTHELLO = engine_core.load_game("othello")
VOLTA = engine_core.load_game("volta")


def test_the_readme_import_works() -> None:
    assert ai.make_bot is make_bot
    assert set(ai.__all__) == {"Bot", "BotSpec", "LEVEL_NAMES", "level_spec", "make_bot"}
    assert ai.level_spec(OTHELLO, "hard") == "alphabeta:depth=5"
    assert ai.BotSpec.parse("mcts:c=2").options == {"c": "2"}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mcts:c=nan", "c must be a finite number, got 'nan'"),
        ("mcts:c=inf", "c must be a finite number"),
        ("mcts:c=-1", "c must be >= 0"),
        ("mcts:time=inf", "time must be a finite number"),
        ("mcts:time=0", "time must be > 0"),
        ("mcts:time=-0.5", "time must be > 0"),
        ("mcts:iterations=0", "iterations must be >= 1"),
        ("mcts:iterations=1.5", "iterations must be an int, got '1.5'"),
        ("mcts:iterations=ten", "iterations must be an int"),
        ("mcts:playouts=0", "playouts must be >= 1"),
        ("mcts:rollout=smart", "rollout is random or batch or eval, got 'smart'"),
        ("mcts:depth=3", "unknown option 'depth' \\(options: iterations, time, c, rollout"),
        ("alphabeta:depth=0", "depth must be >= 1"),
        ("alphabeta:time=nan", "time must be a finite number"),
        ("brs:depth=-2", "depth must be >= 1"),
        ("expectimax:depth=0", "depth must be >= 1"),
        ("random:depth=1", "unknown option 'depth' \\(options: none\\)"),
        ("hard:depth=1", "a level takes no options"),
        ("minimax", "unknown bot 'minimax'; known bots: random, greedy, mcts"),
        ("mcts:c", "options are key=value"),
        ("mcts:c=1:c=2", "option 'c' given twice"),
    ],
)
def test_bad_specs_are_refused_with_the_reason(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_bot(OTHELLO, spec)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("planner:noise=inf", "noise must be a finite number"),
        ("planner:noise=nan", "noise must be a finite number"),
        ("planner:noise=-0.1", "noise must be >= 0"),
        ("planner:noise=1.5", "noise must be <= 1"),
        ("planner:samples=1", "samples must be >= 2"),
        ("planner:robustness=0", "robustness must be >= 1"),
        ("planner:replies=-1", "replies must be >= 0"),
        ("planner:samples=4:elites=8", "elites \\(8\\) cannot exceed samples \\(4\\)"),
    ],
)
def test_bad_planner_options_are_refused(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_bot(VOLTA, spec)


def test_good_options_reach_the_bot() -> None:
    mcts = make_bot(OTHELLO, "mcts:iterations=7:c=0:time=2.5")
    assert isinstance(mcts, MCTSBot)
    assert (mcts.iterations, mcts.uct_c, mcts.time_limit) == (7, 0.0, 2.5)
    timed = make_bot(OTHELLO, "paranoid:time=0.25")
    assert isinstance(timed, AlphaBetaBot)
    assert (timed.variant, timed.depth, timed.time_limit) == ("paranoid", None, 0.25)


def test_an_unknown_level_is_named() -> None:
    with pytest.raises(ValueError, match="unknown level 'godlike'; levels: easy, medium"):
        ai.level_spec(OTHELLO, "godlike")


def test_alphabeta_refuses_a_chance_node_it_is_handed() -> None:
    """make_bot keeps alpha-beta from games with chance; a bot built by hand
    and handed a chance node says so rather than searching a wrong tree."""
    game = engine_core.load_game("volleyball", seed=1)
    state = game.new_initial_state()
    while not state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    bot = AlphaBetaBot(2, lambda s: [0.0, 0.0], depth=2)
    with pytest.raises(ValueError, match="cannot search chance nodes"):
        bot.choose(state)


class Pushpin:
    """A continuous-action game unknown to ai: only what make_bot reads."""

    name = "pushpin"
    game_type = dataclasses.replace(VOLTA.game_type, name="pushpin")

    def num_players(self) -> int:
        return 2

    def options(self) -> dict[str, object]:
        return {}


def test_the_planner_needs_a_model_of_the_game_as_well_as_continuous_actions() -> None:
    no_model = "planner needs a model of the game's actions; ai.knowledge has one for volta"
    with pytest.raises(ValueError, match=re.escape(f"{no_model}, not for pushpin")):
        make_bot(Pushpin(), "planner")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=re.escape("alphabeta needs discrete actions; pushpin's")):
        make_bot(Pushpin(), "alphabeta")  # type: ignore[arg-type]
