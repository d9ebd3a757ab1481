"""Bots from spec strings: ``ai.make_bot(game, "mcts:iterations=2000", seed=1)``.

A spec is an algorithm name, optionally followed by ``:key=value`` options
(see ``ai.spec``):

    random | greedy
    mcts[:iterations=N][:time=SECONDS][:c=UCT_C][:rollout=random|batch|eval][:playouts=N]
    alphabeta | paranoid | brs [:depth=N][:time=SECONDS]
    expectimax[:depth=N]       (in volleyball with planned placement)
    planner[:samples=N][:iterations=N][:elites=N][:robustness=N][:replies=N][:followups=N][:noise=X]
                               (Volta: cross-entropy flick planning; replies and followups are
                               the budgets of looking past the flick, at the opponent's best
                               reply and this bot's next flick; noise is the hand's shake)

or a level, ``easy | medium | hard | expert``, which each game maps to one of
the above (``ai.knowledge``). A bot answers ``bot.choose(state) -> action``.

``make_bot`` refuses, with a ValueError naming what is missing, an algorithm
that the game's declared GameType cannot support (``ai.capabilities``).
Every decision is reproducible from the seed when the budget is counted in
iterations or depth (all levels are); a ``time=`` budget depends on the
machine's speed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from ai.alphabeta import AlphaBetaBot
from ai.bot import Action, Bot
from ai.capabilities import check_capabilities
from ai.evaluation import Evaluate, terminal_only
from ai.expectimax import ExpectimaxBot
from ai.knowledge import KNOWLEDGE, LEVEL_NAMES, GameKnowledge, knowledge_of
from ai.mcts import (
    BatchPlayoutEvaluator,
    Evaluator,
    MCTSBot,
    RandomRolloutEvaluator,
    random_action,
    uniform_prior,
)
from ai.spec import OPTIONS, BotSpec, typed_options
from engine_core import Game, State

__all__ = ["LEVEL_NAMES", "Bot", "BotSpec", "GreedyBot", "RandomBot", "level_spec", "make_bot"]


class RandomBot:
    """Uniformly random legal actions (sampled ones in continuous games)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, state: State) -> Action:
        if state.is_terminal():
            raise ValueError("the game is over: there is no action to choose")
        return random_action(state, self.rng)


class GreedyBot:
    """The action whose resulting position evaluates best for the mover
    (one ply, ties broken at random)."""

    def __init__(self, evaluate: Callable[[State], Sequence[float]], rng: random.Random) -> None:
        self.evaluate = evaluate
        self.rng = rng

    def choose(self, state: State) -> Action:
        if state.is_terminal():
            raise ValueError("the game is over: there is no action to choose")
        seat = state.current_player()
        actions = state.legal_actions()
        self.rng.shuffle(actions)
        return max(actions, key=lambda a: self.evaluate(state.child(a))[seat])


class StaticEvaluator:
    """MCTS leaf values from the game's evaluation function instead of rollouts."""

    def __init__(self, evaluate: Evaluate) -> None:
        self._evaluate = evaluate

    def evaluate(self, state: State) -> Sequence[float]:
        return self._evaluate(state)

    def prior(self, state: State) -> list[tuple[Action, float]]:
        return uniform_prior(state)


def level_spec(game: Game, level: str) -> str:
    """The spec a level stands for in ``game``."""
    if level not in LEVEL_NAMES:
        raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVEL_NAMES)}")
    return knowledge_of(game).levels(game)[LEVEL_NAMES.index(level)]


# --- the generic algorithms ---------------------------------------------------

Build = Callable[[Game, dict[str, Any], random.Random, GameKnowledge], Bot]


def _evaluation(knowledge: GameKnowledge) -> Evaluate:
    return knowledge.evaluate or terminal_only


def _random(game: Game, options: dict[str, Any], rng: random.Random, k: GameKnowledge) -> Bot:
    return RandomBot(rng)


def _greedy(game: Game, options: dict[str, Any], rng: random.Random, k: GameKnowledge) -> Bot:
    return GreedyBot(_evaluation(k), rng)


def _mcts(game: Game, options: dict[str, Any], rng: random.Random, k: GameKnowledge) -> Bot:
    rollout = options.get("rollout", "random")
    playouts = options.get("playouts", 1)
    evaluator: Evaluator
    if rollout == "random":
        evaluator = RandomRolloutEvaluator(rng, playouts)
    elif rollout == "batch":
        evaluator = BatchPlayoutEvaluator(rng, playouts)
    else:
        evaluator = StaticEvaluator(_evaluation(k))
    iterations = options.get("iterations")
    time_limit = options.get("time")
    if iterations is None and time_limit is None:
        iterations = 1000
    return MCTSBot(
        evaluator, rng, iterations=iterations, time_limit=time_limit, uct_c=options.get("c", 1.4)
    )


def _alphabeta(
    variant: str, game: Game, options: dict[str, Any], rng: random.Random, k: GameKnowledge
) -> Bot:
    return AlphaBetaBot(
        game.num_players(),
        _evaluation(k),
        variant=variant,
        depth=options.get("depth", None if "time" in options else 4),
        time_limit=options.get("time"),
        order=k.order,
    )


def _expectimax(game: Game, options: dict[str, Any], rng: random.Random, k: GameKnowledge) -> Bot:
    return ExpectimaxBot(game.num_players(), _evaluation(k), rng, depth=options.get("depth", 2))


GENERIC: dict[str, Build] = {
    "random": _random,
    "greedy": _greedy,
    "mcts": _mcts,
    "alphabeta": partial(_alphabeta, "alphabeta"),
    "paranoid": partial(_alphabeta, "paranoid"),
    "brs": partial(_alphabeta, "brs"),
    "expectimax": _expectimax,
}


def make_bot(game: Game, spec: str, seed: int = 0) -> Bot:
    """A bot for ``game`` from a spec string or level. A ValueError explains a
    spec that does not parse, an option out of range, or a capability the
    game lacks for the algorithm."""
    parsed = BotSpec.parse(spec)
    if parsed.algorithm in LEVEL_NAMES:
        if parsed.options:
            raise ValueError(f"bot spec {spec!r}: a level takes no options")
        parsed = BotSpec.parse(level_spec(game, parsed.algorithm))
    if parsed.algorithm not in OPTIONS:
        known = ", ".join([*OPTIONS, *LEVEL_NAMES])
        raise ValueError(f"unknown bot {parsed.algorithm!r}; known bots: {known}")
    options = typed_options(parsed)
    knowledge = knowledge_of(game)
    check_capabilities(parsed.algorithm, options, game, knowledge)
    rng = random.Random(seed)
    special = knowledge.bots.get(parsed.algorithm)
    if special is not None:
        return special(options, rng)
    build = GENERIC.get(parsed.algorithm)
    if build is None:
        modelled = ", ".join(name for name, k in KNOWLEDGE.items() if parsed.algorithm in k.bots)
        raise ValueError(
            f"{parsed.algorithm} needs a model of the game's actions; "
            f"ai.knowledge has one for {modelled}, not for {game.name}"
        )
    return build(game, options, rng, knowledge)
