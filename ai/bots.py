"""Bots from spec strings: ``ai.make_bot(game, "mcts:iterations=2000", seed=1)``.

A spec is an algorithm name, optionally followed by ``:key=value`` options
(``:`` separates options so that specs can be listed with commas):

    random | greedy
    mcts[:iterations=N][:time=SECONDS][:c=UCT_C][:rollout=random|batch|eval][:playouts=N]
    alphabeta | paranoid | brs [:depth=N][:time=SECONDS]
    expectimax[:depth=N]       (games with chance; in volleyball with planned placement)
    planner[:samples=N][:iterations=N][:elites=N][:robustness=N][:replies=N][:followups=N][:noise=X]
                               (Volta: cross-entropy flick planning; replies and followups are
                               the budgets of looking past the flick, at the opponent's best
                               reply and this bot's next flick; noise is the hand's shake)

or a level, ``easy | medium | hard | expert``, which each game maps to one of
the above (see ``LEVELS``). A bot answers ``bot.choose(state) -> action``.

Every decision is reproducible from the seed when the budget is counted in
iterations or depth (all levels are); a ``time=`` budget depends on the
machine's speed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ai.alphabeta import AlphaBetaBot
from ai.evaluation import ORDERINGS, evaluation_for
from ai.expectimax import ExpectimaxBot
from ai.mcts import (
    BatchPlayoutEvaluator,
    MCTSBot,
    RandomRolloutEvaluator,
    random_action,
    uniform_prior,
)
from ai.volleyball import VolleyballBot
from ai.volta import Hand, VoltaPlanner
from engine_core import Game, State

Action = Any


class Bot(Protocol):
    def choose(self, state: State) -> Action: ...


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


@dataclass(frozen=True)
class BotSpec:
    """A parsed spec string."""

    algorithm: str
    options: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> BotSpec:
        name, *pairs = text.strip().split(":")
        options: dict[str, str] = {}
        for pair in pairs:
            key, sep, value = pair.partition("=")
            if not sep or not key or not value:
                raise ValueError(f"bot spec {text!r}: options are key=value, got {pair!r}")
            if key in options:
                raise ValueError(f"bot spec {text!r}: option {key!r} given twice")
            options[key] = value
        return cls(name.strip().lower(), options)

    def __str__(self) -> str:
        return ":".join([self.algorithm, *(f"{k}={v}" for k, v in self.options.items())])


OPTION_TYPES: dict[str, dict[str, type]] = {
    "random": {},
    "greedy": {},
    "mcts": {"iterations": int, "time": float, "c": float, "rollout": str, "playouts": int},
    "alphabeta": {"depth": int, "time": float},
    "paranoid": {"depth": int, "time": float},
    "brs": {"depth": int, "time": float},
    "expectimax": {"depth": int},
    "planner": {
        "samples": int,
        "iterations": int,
        "elites": int,
        "robustness": int,
        "replies": int,
        "followups": int,
        "noise": float,
    },
}
LEVEL_NAMES = ("easy", "medium", "hard", "expert")


def level_spec(game: Game, level: str) -> str:
    """The spec a level stands for in ``game``."""
    if game.name in ("rolit", "othello"):
        medium = "mcts:iterations=400:rollout=batch:playouts=4"
        if game.num_players() == 2:
            specs = ["greedy", medium, "alphabeta:depth=5", "alphabeta:depth=7"]
        else:
            specs = ["greedy", medium, "brs:depth=3", "brs:depth=4"]
    elif game.name == "volleyball":
        if game.options()["big_leagues"]:
            # Six rows and two steps a piece: each ply of search costs far more.
            specs = ["greedy", "expectimax:depth=1", "expectimax:depth=1", "expectimax:depth=2"]
        else:
            specs = ["greedy", "expectimax:depth=1", "expectimax:depth=2", "expectimax:depth=3"]
    elif game.name == "volta":
        # Each level looks further (the opponent's reply, then its own next
        # flick) and has a steadier hand: easy misses what it aims at.
        specs = [
            "planner:samples=16:iterations=1:robustness=1:replies=0:noise=0.3",
            "planner:samples=32:iterations=2:robustness=2:replies=16:noise=0.15",
            "planner:samples=64:iterations=3:robustness=3:replies=64:followups=32:noise=0.05",
            "planner:samples=128:iterations=4:robustness=4:replies=256:followups=128:noise=0.02",
        ]
    else:
        specs = ["random", "mcts:iterations=200", "mcts:iterations=1000", "mcts:iterations=4000"]
    return specs[LEVEL_NAMES.index(level)]


def _typed_options(spec: BotSpec) -> dict[str, Any]:
    accepted = OPTION_TYPES[spec.algorithm]
    typed: dict[str, Any] = {}
    for key, raw in spec.options.items():
        if key not in accepted:
            names = ", ".join(accepted) or "none"
            raise ValueError(f"bot spec {spec}: unknown option {key!r} (options: {names})")
        try:
            typed[key] = accepted[key](raw)
        except ValueError:
            raise ValueError(
                f"bot spec {spec}: {key} must be a {accepted[key].__name__}, got {raw!r}"
            ) from None
    return typed


def make_bot(game: Game, spec: str, seed: int = 0) -> Bot:
    """A bot for ``game`` from a spec string or level; ValueError explains a bad spec."""
    parsed = BotSpec.parse(spec)
    if parsed.algorithm in LEVEL_NAMES:
        if parsed.options:
            raise ValueError(f"bot spec {spec!r}: a level takes no options")
        parsed = BotSpec.parse(level_spec(game, parsed.algorithm))
    if parsed.algorithm not in OPTION_TYPES:
        known = ", ".join([*OPTION_TYPES, *LEVEL_NAMES])
        raise ValueError(f"unknown bot {parsed.algorithm!r}; known bots: {known}")
    options = _typed_options(parsed)
    rng = random.Random(seed)
    evaluate = evaluation_for(game.name)
    if parsed.algorithm == "random":
        return RandomBot(rng)
    if parsed.algorithm == "greedy":
        return GreedyBot(evaluate, rng)
    if parsed.algorithm == "mcts":
        rollout = options.get("rollout", "random")
        playouts = options.get("playouts", 1)
        evaluator: RandomRolloutEvaluator | BatchPlayoutEvaluator | _StaticEvaluator
        if rollout == "random":
            evaluator = RandomRolloutEvaluator(rng, playouts)
        elif rollout == "batch":
            if game.name not in ("rolit", "othello"):
                raise ValueError(f"rollout=batch needs the flip core's C playouts, not {game.name}")
            evaluator = BatchPlayoutEvaluator(rng, playouts)
        elif rollout == "eval":
            evaluator = _StaticEvaluator(evaluate)
        else:
            raise ValueError(
                f"bot spec {spec!r}: rollout is random, batch or eval, got {rollout!r}"
            )
        iterations = options.get("iterations")
        time_limit = options.get("time")
        if iterations is None and time_limit is None:
            iterations = 1000
        return MCTSBot(
            evaluator,
            rng,
            iterations=iterations,
            time_limit=time_limit,
            uct_c=options.get("c", 1.4),
        )
    if parsed.algorithm == "planner":
        if game.name != "volta":
            raise ValueError(f"the planner plans Volta flicks, not {game.name} moves")
        noise = options.pop("noise", 0.0)
        if not 0.0 <= noise <= 1.0:
            raise ValueError(f"bot spec {spec!r}: noise must be within 0..1, got {noise}")
        return VoltaPlanner(rng, hand=Hand.scaled(noise), **options)
    if parsed.algorithm == "expectimax":
        depth = options.get("depth", 2)
        if game.name == "volleyball":
            return VolleyballBot(rng, depth=depth)
        return ExpectimaxBot(game.num_players(), evaluate, rng, depth=depth)
    return AlphaBetaBot(
        game.num_players(),
        evaluate,
        variant=parsed.algorithm,
        depth=options.get("depth", None if "time" in options else 4),
        time_limit=options.get("time"),
        order=ORDERINGS.get(game.name),
    )


class _StaticEvaluator:
    """MCTS leaf values from the game's evaluation function instead of rollouts."""

    def __init__(self, evaluate: Callable[[State], Sequence[float]]) -> None:
        self._evaluate = evaluate

    def evaluate(self, state: State) -> Sequence[float]:
        return self._evaluate(state)

    def prior(self, state: State) -> list[tuple[Action, float]]:
        return uniform_prior(state)
