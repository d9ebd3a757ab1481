"""Expectimax at chance nodes of unequal odds (issue 16): a chance node is
worth the probability-weighted sum of its outcomes. Volleyball's 36 equally
likely dice hide a search that adds them up unweighted (the sum is 36 times
the mean, so every choice stays the same); a loaded die does not.

``LoadedDice`` below is a whole game in a few lines, implementing the State
protocol, and registered nowhere: it also shows what a game with no entry in
``ai.knowledge`` gets from ``make_bot``. Its tree, values for seat 0 (seat 1
gets the opposite):

    seat 0: "stand"  -> 0
            "roll"   -> chance: "double six" (1/8) -> +1
                                "six"        (1/8) -> +1/2
                                "miss"       (3/4) -> seat 1: "spare"  -> +1/2
                                                             "punish" -> -1/2

Expectimax: "roll" is worth 1/8 + 1/16 + 3/4 * (-1/2) = -3/16 < 0, so seat 0
stands. Summed unweighted, "roll" would be worth 1 (averaged, 1/3), and seat 0
would roll (checked by hand: the test fails when the chance node's sum drops
the weights).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from ai import make_bot
from ai.expectimax import ExpectimaxBot
from ai.match import play_game
from ai.mcts import MCTSBot
from engine_core import CHANCE, TERMINAL, ActionKind, GameType, IllegalAction, State

# ("end", value for seat 0) | ("decide", (seat, {action: tree})) | ("chance", {outcome: (p, tree)})
Tree = tuple[str, Any]

TREE: Tree = (
    "decide",
    (
        0,
        {
            "stand": ("end", 0.0),
            "roll": (
                "chance",
                {
                    "double six": (1 / 8, ("end", 1.0)),
                    "six": (1 / 8, ("end", 0.5)),
                    "miss": (
                        3 / 4,
                        ("decide", (1, {"spare": ("end", 0.5), "punish": ("end", -0.5)})),
                    ),
                },
            ),
        },
    ),
)


class LoadedDice:
    name = "loaded-dice"
    game_type = GameType(
        name="loaded-dice",
        min_players=2,
        max_players=2,
        chance=True,
        actions=ActionKind.DISCRETE,
        position_hash=False,
        turn_override=False,
        batch_playouts=False,
        rules_version=1,
    )

    def num_players(self) -> int:
        return 2

    def options(self) -> dict[str, Any]:
        return {}

    def new_initial_state(self) -> LoadedDiceState:
        return LoadedDiceState(self, [])


class LoadedDiceState:
    def __init__(self, game: LoadedDice, history: list[str]) -> None:
        self._game = game
        self._history = history

    @property
    def game(self) -> LoadedDice:
        return self._game

    def _node(self) -> Tree:
        node = TREE
        for action in self._history:
            kind, body = node
            node = body[1][action] if kind == "decide" else body[action][1]
        return node

    def current_player(self) -> int:
        kind, body = self._node()
        if kind == "decide":
            seat: int = body[0]
            return seat
        return TERMINAL if kind == "end" else CHANCE

    def legal_actions(self) -> list[str]:
        kind, body = self._node()
        if kind == "end":
            return []
        return sorted(body[1] if kind == "decide" else body)

    def apply_action(self, action: str) -> None:
        if action not in self.legal_actions():
            raise IllegalAction(f"{action!r} is not legal now")
        self._history.append(action)

    def child(self, action: str) -> LoadedDiceState:
        state = self.clone()
        state.apply_action(action)
        return state

    def clone(self) -> LoadedDiceState:
        return LoadedDiceState(self._game, list(self._history))

    def is_chance_node(self) -> bool:
        return self._node()[0] == "chance"

    def chance_outcomes(self) -> list[tuple[str, float]]:
        kind, body = self._node()
        return sorted((outcome, p) for outcome, (p, _) in body.items()) if kind == "chance" else []

    def is_terminal(self) -> bool:
        return self._node()[0] == "end"

    def returns(self) -> list[float]:
        kind, value = self._node()
        return [value, -value] if kind == "end" else [0.0, 0.0]

    def scores(self) -> list[int]:
        return [0, 0]

    def history(self) -> list[str]:
        return list(self._history)

    def action_to_string(self, action: str) -> str:
        return action

    def string_to_action(self, text: str) -> str:
        return text

    def __repr__(self) -> str:
        return f"<loaded dice after {self._history}>"


GAME = LoadedDice()


def after(*actions: str) -> State:
    state = GAME.new_initial_state()
    for action in actions:
        state.apply_action(action)
    return state


def test_the_game_is_a_game() -> None:
    state = after()
    assert isinstance(state, State)
    die = after("roll").chance_outcomes()
    assert die == [("double six", 0.125), ("miss", 0.75), ("six", 0.125)]
    assert sum(p for _, p in die) == 1.0


def test_expectimax_weights_each_outcome_by_its_probability() -> None:
    bot = make_bot(GAME, "expectimax:depth=2", seed=0)
    assert isinstance(bot, ExpectimaxBot)
    assert bot.choose(after()) == "stand"
    # Values for the root seat (seat 0), exact in binary fractions.
    assert bot.value(after("stand"), 1) == 0.0
    assert bot.value(after("roll", "miss"), 1) == -0.5  # seat 1 punishes
    assert bot.value(after("roll"), 1) == -3 / 16  # 1/8 * 1 + 1/8 * 1/2 + 3/4 * -1/2


def test_expectimax_values_chance_for_the_second_seat_too() -> None:
    bot = make_bot(GAME, "expectimax:depth=1", seed=0)
    assert bot.choose(after("roll", "miss")) == "punish"
    assert isinstance(bot, ExpectimaxBot)
    assert bot.value(after("roll"), 1) == 3 / 16  # seat 1's view: the opposite


def test_mcts_samples_the_loaded_die_by_its_odds() -> None:
    bot = make_bot(GAME, "mcts:iterations=4000", seed=1)
    assert isinstance(bot, MCTSBot)
    root = bot.search(after())
    children = {child.action: child for child in root.children}
    assert bot.choose(after()) == "stand"
    die = children["roll"].children
    visits = {child.action: child.visits for child in die}
    total = sum(visits.values())
    for outcome, p in after("roll").chance_outcomes():
        sigma = (total * p * (1 - p)) ** 0.5
        assert abs(visits[outcome] - total * p) <= 5 * sigma, outcome


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("alphabeta", "alphabeta needs a game without chance; loaded-dice has chance nodes"),
        ("brs", "brs needs a game without chance"),
        ("greedy", "greedy needs an evaluation function; ai.knowledge has none for loaded-dice"),
        ("mcts:rollout=eval", "mcts:rollout=eval needs an evaluation function"),
        ("mcts:rollout=batch", "mcts:rollout=batch needs batch playouts"),
        ("planner", "planner needs continuous actions; loaded-dice's actions are discrete"),
    ],
)
def test_a_game_unknown_to_ai_is_refused_what_needs_more(spec: str, reason: str) -> None:
    with pytest.raises(ValueError, match=f"^{reason}"):
        make_bot(GAME, spec)


@pytest.mark.parametrize("spec", ["random", "mcts:iterations=50", "expectimax", "easy", "expert"])
def test_a_game_unknown_to_ai_is_played_by_the_generic_bots(spec: str) -> None:
    bots = [make_bot(GAME, spec, seed=seat) for seat in range(2)]
    final = play_game(GAME, bots, random.Random(0))
    assert final.is_terminal()
    assert final.history()[0] in ("stand", "roll")
