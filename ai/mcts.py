"""Monte Carlo tree search (UCT), generic over the Game API.

The shape follows OpenSpiel's ``open_spiel/python/algorithms/mcts.py``: the
search is generic over the State API, evaluators are objects with
``evaluate(state)`` and ``prior(state)``, the selection rule is a pluggable
function, the RNG is passed in, nodes use ``__slots__``.

What it adds for meeple's games:
- n-player max^n backup: every node keeps the summed returns of all seats, and
  a node's children are ranked by the value for the seat that chooses there;
- chance nodes are sampled from ``chance_outcomes()`` (and kept in the tree);
- progressive widening for games that declare continuous actions (Volta): a
  node grows a new child from ``sample_actions`` only while it has fewer than
  ``widening_constant * visits ** widening_exponent`` children;
- a budget in iterations or wall-clock seconds, whichever ends first.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol, cast

from ai.budget import check_budget
from engine_core import ActionKind, ContinuousState, State, as_batch_playouts, as_continuous

Action = Any
# Read once: an enum member read through its class costs more than a rollout
# step's bookkeeping.
CONTINUOUS = ActionKind.CONTINUOUS


class Evaluator(Protocol):
    """Values a leaf and proposes priors (OpenSpiel's Evaluator)."""

    def evaluate(self, state: State) -> Sequence[float]:
        """Expected returns of every seat from ``state``."""
        ...

    def prior(self, state: State) -> list[tuple[Action, float]]:
        """(action, prior probability) pairs for the actions to expand."""
        ...


class SearchNode:
    """One edge-and-node of the tree: the action that led here and its stats."""

    __slots__ = ("action", "children", "player", "prior", "total_reward", "visits")

    def __init__(self, action: Action, player: int, prior: float) -> None:
        self.action = action
        # The seat that chose ``action`` (or CHANCE): the value of this node is
        # read from that seat's point of view.
        self.player = player
        self.prior = prior
        self.visits = 0
        self.total_reward: list[float] | None = None
        self.children: list[SearchNode] = []

    def value(self) -> float:
        """Mean return of the seat that chose this node's action."""
        if not self.visits or self.total_reward is None or self.player < 0:
            return 0.0
        return self.total_reward[self.player] / self.visits

    def best_child(self) -> SearchNode:
        """The most visited child (ties: the higher value), as OpenSpiel does."""
        return max(self.children, key=lambda c: (c.visits, c.value()))

    def __repr__(self) -> str:
        return (
            f"SearchNode(action={self.action!r}, player={self.player}, visits={self.visits}, "
            f"value={self.value():.3f}, children={len(self.children)})"
        )


SelectionFn = Callable[[SearchNode, SearchNode, float], float]


def uct_value(child: SearchNode, parent: SearchNode, uct_c: float) -> float:
    """UCB1: mean value plus ``uct_c * sqrt(ln N / n)``; unvisited first."""
    if child.visits == 0:
        return math.inf
    return child.value() + uct_c * math.sqrt(math.log(parent.visits) / child.visits)


def puct_value(child: SearchNode, parent: SearchNode, uct_c: float) -> float:
    """AlphaZero's PUCT: mean value plus a prior-weighted exploration term."""
    return child.value() + uct_c * child.prior * math.sqrt(parent.visits) / (child.visits + 1)


class RandomRolloutEvaluator:
    """Values a state by the mean returns of random games played from it."""

    def __init__(self, rng: random.Random, rollouts: int = 1) -> None:
        if rollouts < 1:
            raise ValueError(f"rollouts must be >= 1, got {rollouts}")
        self.rng = rng
        self.rollouts = rollouts

    def evaluate(self, state: State) -> list[float]:
        total: list[float] | None = None
        continuous = continuous_actions(state)
        for _ in range(self.rollouts):
            rollout = state.clone()
            while not rollout.is_terminal():
                rollout.apply_action(draw_action(rollout, self.rng, continuous))
            returns = rollout.returns()
            total = (
                returns if total is None else [t + r for t, r in zip(total, returns, strict=True)]
            )
        assert total is not None
        return [t / self.rollouts for t in total]

    def prior(self, state: State) -> list[tuple[Action, float]]:
        return uniform_prior(state)


class BatchPlayoutEvaluator:
    """Values a state by playouts run in C: for games that declare batch
    playouts (``random_playouts``: Rolit, Othello, Volleyball)."""

    def __init__(self, rng: random.Random, playouts: int = 8) -> None:
        if playouts < 1:
            raise ValueError(f"playouts must be >= 1, got {playouts}")
        self.rng = rng
        self.playouts = playouts

    def evaluate(self, state: State) -> list[float]:
        results = as_batch_playouts(state).random_playouts(self.playouts, self.rng.getrandbits(64))
        return [sum(column) / len(results) for column in zip(*results, strict=True)]

    def prior(self, state: State) -> list[tuple[Action, float]]:
        return uniform_prior(state)


def random_action(state: State, rng: random.Random) -> Action:
    """A uniformly random legal action (sampled from the action space in a
    game with continuous actions), or a chance outcome drawn by its
    probability at a chance node."""
    return draw_action(state, rng, continuous_actions(state))


def continuous_actions(state: State) -> bool:
    """Whether ``state``'s game declares continuous actions."""
    return state.game.game_type.actions is CONTINUOUS


def draw_action(state: State, rng: random.Random, continuous: bool) -> Action:
    """``random_action`` for a caller that has read ``continuous`` once (a
    rollout reads it once for all its steps)."""
    if state.is_chance_node():
        outcomes, weights = zip(*state.chance_outcomes(), strict=True)
        return rng.choices(outcomes, weights)[0]
    if continuous:
        return cast(ContinuousState, state).sample_actions(1, rng)[0]
    return rng.choice(state.legal_actions())


def uniform_prior(state: State) -> list[tuple[Action, float]]:
    """Chance outcomes with their probabilities, else every legal action alike."""
    if state.is_chance_node():
        return list(state.chance_outcomes())
    actions = state.legal_actions()
    return [(action, 1.0 / len(actions)) for action in actions]


class MCTSBot:
    """UCT search with max^n backup; ``choose(state)`` returns its action."""

    def __init__(
        self,
        evaluator: Evaluator,
        rng: random.Random,
        *,
        iterations: int | None = 1000,
        time_limit: float | None = None,
        uct_c: float = math.sqrt(2),
        selection: SelectionFn = uct_value,
        widening_constant: float = 2.0,
        widening_exponent: float = 0.5,
    ) -> None:
        check_budget("MCTS", "iterations", iterations, time_limit)
        self.evaluator = evaluator
        self.rng = rng
        self.iterations = iterations
        self.time_limit = time_limit
        self.uct_c = uct_c
        self.selection = selection
        self.widening_constant = widening_constant
        self.widening_exponent = widening_exponent
        self._continuous = False

    def choose(self, state: State) -> Action:
        if state.is_terminal():
            raise ValueError("the game is over: there is no action to choose")
        return self.search(state).best_child().action

    def search(self, state: State) -> SearchNode:
        """Runs the budget from ``state`` and returns the root."""
        root = SearchNode(None, state.current_player(), 1.0)
        self._continuous = continuous_actions(state)
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        done = 0
        while True:
            self._iterate(root, state.clone())
            done += 1
            if self.iterations is not None and done >= self.iterations:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
        return root

    def _iterate(self, root: SearchNode, working: State) -> None:
        """One simulation: select down to a new node, evaluate it, back up."""
        path = [root]
        node = root
        while not working.is_terminal():
            if working.is_chance_node():
                node = self._chance_child(node, working)
            else:
                node = self._tree_child(node, working)
            working.apply_action(node.action)
            path.append(node)
            if node.visits == 0:
                break
        returns = working.returns() if working.is_terminal() else self.evaluator.evaluate(working)
        for visited in path:
            visited.visits += 1
            if visited.total_reward is None:
                visited.total_reward = list(returns)
            else:
                for seat, value in enumerate(returns):
                    visited.total_reward[seat] += value

    def _tree_child(self, node: SearchNode, working: State) -> SearchNode:
        """Expands ``node`` if it is new (or, for a continuous action space,
        widens it while its visits allow), then selects a child."""
        player = working.current_player()
        if self._continuous:
            limit = math.ceil(self.widening_constant * (node.visits + 1) ** self.widening_exponent)
            if len(node.children) < limit:
                child = SearchNode(
                    as_continuous(working).sample_actions(1, self.rng)[0], player, 1.0
                )
                node.children.append(child)
                return child
        elif not node.children:
            priors = self.evaluator.prior(working)
            # A random order breaks ties between equal children fairly.
            self.rng.shuffle(priors)
            node.children = [SearchNode(action, player, p) for action, p in priors]
        return max(node.children, key=lambda c: self.selection(c, node, self.uct_c))

    def _chance_child(self, node: SearchNode, working: State) -> SearchNode:
        outcomes = working.chance_outcomes()
        actions, weights = zip(*outcomes, strict=True)
        outcome = self.rng.choices(actions, weights)[0]
        for child in node.children:
            if child.action == outcome:
                return child
        child = SearchNode(outcome, working.current_player(), dict(outcomes)[outcome])
        node.children.append(child)
        return child
