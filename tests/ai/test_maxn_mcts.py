"""MCTS with more than two players (issue 16): at each node the seat that
chose it must read its own value (max^n), not seat 0's, the two-player view.

The puzzles are late 3- and 4-player Rolit positions, found by exhaustive
search, where seat 1 or 2 is to move and
- some moves give the mover its best max^n result however the later ties are
  broken (the moves a correct search must find), and every other move is
  worse for it whatever the ties;
- the moves that would be best if every seat played for seat 0 are none of
  those, so a search that reads seat 0's totals at every node picks one of
  them (checked by hand: the test fails when ``SearchNode.value`` reads
  ``total_reward[0]``).
"""

from __future__ import annotations

from functools import cache

import pytest

from ai import make_bot
from engine_core.rolit import FlipState
from tests.engine_core.rolit.helpers import late_position

Returns = tuple[float, ...]


def replay(state: FlipState, line: tuple[int, ...]) -> FlipState:
    node = state.clone()
    for action in line:
        node.apply_action(action)
    return node


def maxn_outcomes(state: FlipState) -> dict[int, frozenset[Returns]]:
    """For each root move, every returns vector max^n can reach after it,
    one per way of breaking the ties (a seat picks any child whose value for
    it is the highest)."""

    @cache
    def solve(line: tuple[int, ...]) -> frozenset[Returns]:
        node = replay(state, line)
        if node.is_terminal():
            return frozenset([tuple(node.returns())])
        seat = node.current_player()
        reachable = [solve((*line, a)) for a in node.legal_actions()]
        best = max(v[seat] for outcomes in reachable for v in outcomes)
        return frozenset(v for outcomes in reachable for v in outcomes if v[seat] == best)

    return {a: solve((a,)) for a in state.legal_actions()}


def best_for_seat_0(state: FlipState) -> set[int]:
    """The root moves that are best if every seat plays for seat 0."""

    @cache
    def solve(line: tuple[int, ...]) -> float:
        node = replay(state, line)
        if node.is_terminal():
            return node.returns()[0]
        return max(solve((*line, a)) for a in node.legal_actions())

    values = {a: solve((a,)) for a in state.legal_actions()}
    return {a for a, v in values.items() if v == max(values.values())}


def maxn_puzzle(state: FlipState) -> set[int] | None:
    """The moves a max^n search must pick, if ``state`` is a puzzle."""
    mover = state.current_player()
    if mover == 0:
        return None
    outcomes = maxn_outcomes(state)
    worst = {a: min(v[mover] for v in vs) for a, vs in outcomes.items()}
    best = {a: max(v[mover] for v in vs) for a, vs in outcomes.items()}
    target = max(worst.values())
    right = {a for a in outcomes if worst[a] == target}
    if len(right) == len(outcomes) or any(best[a] >= target for a in outcomes if a not in right):
        return None
    if right & best_for_seat_0(state):
        return None
    return right


def puzzles(players: int, empties: int, count: int) -> list[tuple[FlipState, set[int]]]:
    found = []
    for seed in range(200):
        state = late_position("rolit", seed, empties=empties, players=players)
        right = None if state.is_terminal() else maxn_puzzle(state)
        if right is not None:
            found.append((state, right))
            if len(found) == count:
                return found
    raise AssertionError("no puzzle found")


PUZZLES = puzzles(3, empties=5, count=3) + puzzles(4, empties=6, count=3)


@pytest.mark.parametrize(("state", "right"), PUZZLES, ids=repr)
def test_mcts_picks_the_movers_best_move_not_seat_0s(state: FlipState, right: set[int]) -> None:
    assert state.current_player() != 0
    assert not right & best_for_seat_0(state)
    for seed in range(2):
        assert make_bot(state.game, "mcts:iterations=1000", seed=seed).choose(state) in right
