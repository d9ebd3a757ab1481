"""Every algorithm and every level against every game: make_bot either
refuses the pair with a ValueError naming the capability the game lacks (the
table REFUSED lists each refusal and its reason), or the bot plays a whole
game to the end, every action legal.

Budgets are tiny, and the bot under test takes seat 0 while random bots take
the others, so that games end quickly even in Volleyball (two good receivers
can rally for long) and Volta: Volta matches are played whole, to 10 points
with a lead of 2, which against a random opponent takes a few dozen flicks.
Levels keep their full budgets for one decision from the start, then play a
whole game with their spec's budgets shrunk.
"""

from __future__ import annotations

import random

import pytest

import engine_core
from ai import LEVEL_NAMES, BotSpec, level_spec, make_bot
from ai.bot import Bot
from ai.capabilities import NEEDS
from engine_core import ActionKind, Game

GAMES: dict[str, tuple[str, dict[str, object]]] = {
    "rolit-2": ("rolit", {"players": 2}),
    "rolit-3": ("rolit", {"players": 3}),
    "rolit-4": ("rolit", {"players": 4}),
    "othello": ("othello", {}),
    "volleyball": ("volleyball", {}),
    "big-leagues": ("volleyball", {"big_leagues": True}),
    "volta": ("volta", {}),
}
SPECS = {
    "random": "random",
    "greedy": "greedy",
    "mcts": "mcts:iterations=4",
    "mcts-batch": "mcts:iterations=4:rollout=batch:playouts=2",
    "mcts-eval": "mcts:iterations=4:rollout=eval",
    "alphabeta": "alphabeta:depth=1",
    "paranoid": "paranoid:depth=1",
    "brs": "brs:depth=1",
    "expectimax": "expectimax:depth=1",
    "planner": "planner:samples=2:iterations=1:elites=1:robustness=1:replies=1",
}

REFUSED = {
    ("rolit-3", "alphabeta"): "alphabeta needs two players; this rolit game has 3",
    ("rolit-4", "alphabeta"): "alphabeta needs two players; this rolit game has 4",
    ("rolit-3", "expectimax"): "expectimax needs two players; this rolit game has 3",
    ("rolit-4", "expectimax"): "expectimax needs two players; this rolit game has 4",
    ("volta", "mcts-batch"): "mcts:rollout=batch needs batch playouts",
    **{
        (game, algorithm): f"{algorithm} needs a game without chance; volleyball has chance nodes"
        for game in ("volleyball", "big-leagues")
        for algorithm in ("alphabeta", "paranoid", "brs")
    },
    **{
        ("volta", algorithm): f"{algorithm} needs discrete actions; volta's actions are continuous"
        for algorithm in ("alphabeta", "paranoid", "brs", "expectimax")
    },
    **{
        (game, "planner"): f"planner needs continuous actions; {name}'s actions are discrete"
        for game, (name, _) in GAMES.items()
        if name != "volta"
    },
}


def load(label: str) -> Game:
    name, options = GAMES[label]
    return engine_core.load_game(name, **options)


def play_whole_game(game: Game, bot: Bot, seed: int) -> int:
    """Plays ``bot`` in seat 0 against random bots to the end, checking every
    action; returns the number of decisions the bot made."""
    others = [make_bot(game, "random", seed=seed + seat) for seat in range(1, game.num_players())]
    bots = [bot, *others]
    continuous = game.game_type.actions is ActionKind.CONTINUOUS
    rng = random.Random(seed)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, weights = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, weights)[0])
            continue
        seat = state.current_player()
        before = repr(state)
        action = bots[seat].choose(state)
        assert repr(state) == before, "choose must not change the state"
        if not continuous:  # a continuous game's apply_action validates the action
            assert action in state.legal_actions()
        state.apply_action(action)
        decisions += seat == 0
    assert sum(state.returns()) == pytest.approx(0.0)
    return decisions


@pytest.mark.parametrize("spec_label", SPECS)
@pytest.mark.parametrize("game_label", GAMES)
def test_every_algorithm_plays_every_game_or_says_what_is_missing(
    game_label: str, spec_label: str
) -> None:
    game = load(game_label)
    spec = SPECS[spec_label]
    reason = REFUSED.get((game_label, spec_label))
    if reason is not None:
        with pytest.raises(ValueError, match=f"^{reason}"):
            make_bot(game, spec, seed=1)
        return
    assert play_whole_game(game, make_bot(game, spec, seed=1), seed=2) >= 1


def test_the_matrix_covers_every_game_and_algorithm() -> None:
    assert {name for name, _ in GAMES.values()} == set(engine_core.registered_games())
    assert {BotSpec.parse(spec).algorithm for spec in SPECS.values()} == set(NEEDS)
    assert {game for game, _ in REFUSED} <= set(GAMES)
    assert {spec for _, spec in REFUSED} <= set(SPECS)


SHRUNK_BUDGETS = {
    "iterations": "2",
    "depth": "1",
    "samples": "8",
    "robustness": "1",
    "replies": "1",
    "playouts": "1",
}


def shrunk(spec: str) -> str:
    """``spec`` with its budgets cut to a minimum and its other options kept."""
    parsed = BotSpec.parse(spec)
    options = {key: SHRUNK_BUDGETS.get(key, value) for key, value in parsed.options.items()}
    return str(BotSpec(parsed.algorithm, options))


@pytest.mark.parametrize("level", LEVEL_NAMES)
@pytest.mark.parametrize("game_label", GAMES)
def test_every_level_plays_every_game(game_label: str, level: str) -> None:
    game = load(game_label)
    start = game.new_initial_state()
    action = make_bot(game, level, seed=3).choose(start)
    if game.game_type.actions is ActionKind.DISCRETE:
        assert action in start.legal_actions()
    else:
        start.apply_action(action)
    small = shrunk(level_spec(game, level))
    assert play_whole_game(game, make_bot(game, small, seed=3), seed=4) >= 1
