"""Alpha-beta (pruning, a transposition table, iterative deepening, move
ordering) against plain minimax written here, with none of that, on seeded
random Othello and two-player Rolit positions at depth 5 and 6.

- At the root: the value is minimax's, and the chosen move's minimax value
  is the best one.
- In the table: every entry's value is what its flag says it is (EXACT: the
  minimax value of that node at that depth, LOWER: at most it, UPPER: at
  least it). Swapped LOWER/UPPER flags leave the root right on most
  positions (a bound is misused only when a transposition comes back with
  another window), so the root check alone misses them most of the time;
  the entries are wrong on every position.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import engine_core
from ai import alphabeta
from ai.alphabeta import EXACT, LOWER, UPPER, AlphaBetaBot
from ai.evaluation import flip
from ai.knowledge import knowledge_of
from engine_core.rolit import FlipState
from tests.engine_core.rolit.helpers import late_position


def minimax(state: engine_core.State, seat: int, depth: int) -> float:
    """``seat``'s value of ``state`` searched ``depth`` plies: every line,
    the evaluation where the depth ends, ``returns()`` where the game does.
    The seat maximises; the other minimises (a pass just hands over the turn)."""
    if state.is_terminal():
        return float(state.returns()[seat])
    if depth == 0:
        return float(flip.evaluate(state)[seat])  # type: ignore[arg-type]
    values = [minimax(state.child(action), seat, depth - 1) for action in state.legal_actions()]
    return max(values) if state.current_player() == seat else min(values)


def positions() -> Iterator[Any]:
    for name, options in [("othello", {}), ("rolit", {"players": 2})]:
        for empties, depth, seeds in [(14, 5, range(4)), (11, 6, range(2))]:
            for seed in seeds:
                state = late_position(name, seed, empties, **options)
                assert not state.is_terminal()
                label = f"{name}-{empties}-empties-{seed}-depth-{depth}"
                yield pytest.param(state, depth, id=label)


POSITIONS = list(positions())


def search(state: FlipState, depth: int) -> AlphaBetaBot:
    """The bot as ``alphabeta:depth=N`` makes it (the game's move order),
    after choosing on ``state``."""
    bot = AlphaBetaBot(
        2,
        flip.evaluate,  # type: ignore[arg-type]
        depth=depth,
        order=knowledge_of(state.game).order,
    )
    bot.choose(state.clone())
    return bot


@pytest.mark.parametrize(("state", "depth"), POSITIONS)
def test_the_root_value_and_move_are_minimaxs(state: FlipState, depth: int) -> None:
    seat = state.current_player()
    values = {a: minimax(state.child(a), seat, depth - 1) for a in state.legal_actions()}
    best = max(values.values())
    bot = search(state, depth)
    choice = bot.choose(state.clone())  # a second search, on the table of the first
    assert bot.value == best
    assert values[choice] == best, f"chose {choice} worth {values[choice]}, the best is {best}"
    fresh = search(state, depth)
    assert fresh.value == best


@pytest.mark.parametrize(("state", "depth"), POSITIONS)
def test_every_table_entry_bounds_the_minimax_value(
    state: FlipState, depth: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    searched: dict[int, FlipState] = {}

    def recording_key(node: FlipState) -> int:
        key = node.zobrist_hash()
        searched[key] = node.clone()
        return key

    monkeypatch.setattr(alphabeta, "zobrist_key", recording_key)
    bot = search(state, depth)
    assert bot.table
    wrong = []
    for (key, seat, _), (stored_depth, value, flag, _, _) in bot.table.items():
        true = minimax(searched[key], seat, stored_depth)
        sound = {EXACT: true == value, LOWER: true >= value, UPPER: true <= value}[flag]
        if not sound:
            kind = {EXACT: "EXACT", LOWER: "LOWER", UPPER: "UPPER"}[flag]
            wrong.append(f"{kind} {value:.4f} at depth {stored_depth}, minimax {true:.4f}")
    assert not wrong, f"{len(wrong)} of {len(bot.table)} entries wrong: {wrong[:5]}"
