"""What each algorithm needs of a game, read from the game's GameType (and,
for an evaluation, from ``ai.knowledge``), so that ``make_bot`` refuses a
bot that could not play with a ValueError naming what is missing.

Why each algorithm needs what it needs:
- random: nothing (continuous games are sampled, chance drawn by its odds);
- greedy: an evaluation to be greedy about (without one it would play at random);
- mcts: nothing (max^n backup for any number of seats, chance nodes sampled,
  continuous actions widened progressively); its ``rollout=batch`` needs batch
  playouts, ``rollout=eval`` an evaluation;
- alphabeta: two players (it is two-sided minimax), no chance (a chance node
  is neither a max nor a min node: the search stops there) and discrete
  actions (it enumerates every action);
- paranoid: as alpha-beta, with any number of players;
- brs: as paranoid, and states with ``with_turn(seat)`` (``turn_override``),
  since one opponent replies while the others wait;
- expectimax: two players (the root seat maximises, the other minimises) and
  discrete actions; chance is what it is for, but a game without is minimax;
- planner: continuous actions (it refits a distribution over the action
  space), and a model of the game's actions (``ai.knowledge``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ai.knowledge import GameKnowledge
from engine_core import ActionKind, Game


@dataclass(frozen=True)
class Needs:
    """What an algorithm needs of a game."""

    two_players: bool = False
    no_chance: bool = False
    discrete_actions: bool = False
    continuous_actions: bool = False
    turn_override: bool = False
    batch_playouts: bool = False
    evaluation: bool = False


NEEDS: dict[str, Needs] = {
    "random": Needs(),
    "greedy": Needs(evaluation=True),
    "mcts": Needs(),
    "alphabeta": Needs(two_players=True, no_chance=True, discrete_actions=True),
    "paranoid": Needs(no_chance=True, discrete_actions=True),
    "brs": Needs(no_chance=True, discrete_actions=True, turn_override=True),
    "expectimax": Needs(two_players=True, discrete_actions=True),
    "planner": Needs(continuous_actions=True),
}
ROLLOUT_NEEDS: dict[str, Needs] = {
    "random": Needs(),
    "batch": Needs(batch_playouts=True),
    "eval": Needs(evaluation=True),
}


def missing(who: str, needs: Needs, game: Game, knowledge: GameKnowledge) -> str | None:
    """Why ``who`` cannot play ``game``, or None if it can."""
    declared = game.game_type
    name = declared.name
    players = game.num_players()
    continuous = declared.actions is ActionKind.CONTINUOUS
    if needs.two_players and players != 2:
        return f"{who} needs two players; this {name} game has {players}"
    if needs.no_chance and declared.chance:
        return f"{who} needs a game without chance; {name} has chance nodes"
    if needs.discrete_actions and continuous:
        return f"{who} needs discrete actions; {name}'s actions are continuous"
    if needs.continuous_actions and not continuous:
        return f"{who} needs continuous actions; {name}'s actions are discrete"
    if needs.turn_override and not declared.turn_override:
        return f"{who} needs turn override (states with with_turn(seat)); {name} has none"
    if needs.batch_playouts and not declared.batch_playouts:
        return f"{who} needs batch playouts (random_playouts in C); {name} has none"
    if needs.evaluation and knowledge.evaluate is None:
        return f"{who} needs an evaluation function; ai.knowledge has none for {name}"
    return None


def check_capabilities(
    algorithm: str, options: dict[str, Any], game: Game, knowledge: GameKnowledge
) -> None:
    """A ValueError naming the capability ``game`` lacks for ``algorithm``
    with ``options`` (an algorithm in NEEDS); nothing if it has them all."""
    reason = missing(algorithm, NEEDS[algorithm], game, knowledge)
    if reason is None and algorithm == "mcts":
        rollout = options.get("rollout", "random")
        reason = missing(f"mcts:rollout={rollout}", ROLLOUT_NEEDS[rollout], game, knowledge)
    if reason is not None:
        raise ValueError(reason)
