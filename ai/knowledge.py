"""What the bots know of each game beyond its GameType, in one table keyed by
the game's name: its evaluation function and move ordering, the spec each
level stands for, and bots made for that game alone.

A game without an entry gets the generic defaults: no evaluation (searches
value only the end of the game), no move ordering, levels of MCTS with random
rollouts, and only the generic algorithms. So a new game needs no entry to be
played by bots; an entry makes them stronger.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ai.bot import Bot
from ai.evaluation import Evaluate, Order, flip, for_states, ordering_for_states
from ai.evaluation import volleyball as volleyball_evaluation
from ai.evaluation import volta as volta_evaluation
from ai.volleyball import VolleyballBot
from ai.volta import Hand, VoltaPlanner
from engine_core import Game
from engine_core.rolit import FlipState
from engine_core.volleyball import VolleyballState
from engine_core.volta import VoltaState

LEVEL_NAMES = ("easy", "medium", "hard", "expert")
Levels = tuple[str, str, str, str]  # one spec per level, easy first
# A bot made for one game: from its typed options and the rng.
BotFactory = Callable[[dict[str, Any], random.Random], Bot]


def generic_levels(game: Game) -> Levels:
    return ("random", "mcts:iterations=200", "mcts:iterations=1000", "mcts:iterations=4000")


@dataclass(frozen=True)
class GameKnowledge:
    evaluate: Evaluate | None = None
    order: Order | None = None
    levels: Callable[[Game], Levels] = generic_levels
    # Bots by algorithm name that replace the generic one for this game (or,
    # for the planner, that exist only for it).
    bots: Mapping[str, BotFactory] = field(default_factory=dict)


def flip_levels(game: Game) -> Levels:
    medium = "mcts:iterations=400:rollout=batch:playouts=4"
    if game.num_players() == 2:
        return ("greedy", medium, "alphabeta:depth=5", "alphabeta:depth=7")
    return ("greedy", medium, "brs:depth=3", "brs:depth=4")


def volleyball_levels(game: Game) -> Levels:
    if game.options()["big_leagues"]:
        # Six rows and two steps a piece: each ply of search costs far more.
        return ("greedy", "expectimax:depth=1", "expectimax:depth=1", "expectimax:depth=2")
    return ("greedy", "expectimax:depth=1", "expectimax:depth=2", "expectimax:depth=3")


def volta_levels(game: Game) -> Levels:
    # Each level looks further (the opponent's reply, then its own next
    # flick) and has a steadier hand: easy misses what it aims at.
    return (
        "planner:samples=16:iterations=1:robustness=1:replies=0:noise=0.3",
        "planner:samples=32:iterations=2:robustness=2:replies=16:noise=0.15",
        "planner:samples=64:iterations=3:robustness=3:replies=64:followups=32:noise=0.05",
        "planner:samples=128:iterations=4:robustness=4:replies=256:followups=128:noise=0.02",
    )


def volleyball_expectimax(options: dict[str, Any], rng: random.Random) -> Bot:
    """Expectimax with placement planned whole by exact coverage."""
    return VolleyballBot(rng, depth=options.get("depth", 2))


def volta_planner(options: dict[str, Any], rng: random.Random) -> Bot:
    """Cross-entropy flick planning; ``noise`` is the shake of the bot's hand."""
    budget = {key: value for key, value in options.items() if key != "noise"}
    return VoltaPlanner(rng, hand=Hand.scaled(options.get("noise", 0.0)), **budget)


FLIP = GameKnowledge(
    evaluate=for_states(FlipState, flip.evaluate),
    order=ordering_for_states(FlipState, flip.order_actions),
    levels=flip_levels,
)
KNOWLEDGE: dict[str, GameKnowledge] = {
    "rolit": FLIP,
    "othello": FLIP,
    "volleyball": GameKnowledge(
        evaluate=for_states(VolleyballState, volleyball_evaluation.evaluate),
        levels=volleyball_levels,
        bots={"expectimax": volleyball_expectimax},
    ),
    "volta": GameKnowledge(
        evaluate=for_states(VoltaState, volta_evaluation.evaluate),
        levels=volta_levels,
        bots={"planner": volta_planner},
    ),
}


def knowledge_of(game: Game) -> GameKnowledge:
    """What the bots know of ``game`` (the generic defaults if nothing)."""
    return KNOWLEDGE.get(game.name, GameKnowledge())
