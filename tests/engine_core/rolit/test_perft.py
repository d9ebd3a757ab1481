"""Perft (leaf counts of the game tree) from data files in perft/*.perft.

A file holds blocks: ``id NAME``, ``game NAME key=value ...``, then lines
``perft DEPTH LEAVES``. Othello's counts are the published ones; they pin the
flip core's move generation, captures and game end against an outside truth.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

import engine_core
from engine_core.rolit import FlipState
from engine_core.rolit.reference import ReferenceFlipGame

PERFT_DIR = Path(__file__).parent / "perft"
REFERENCE_MAX_DEPTH = 3


@dataclass
class PerftCase:
    id: str
    game: str = ""
    options: dict[str, int] = field(default_factory=dict)
    counts: dict[int, int] = field(default_factory=dict)


def load_cases() -> list[PerftCase]:
    cases: list[PerftCase] = []
    for path in sorted(PERFT_DIR.glob("*.perft")):
        for line in path.read_text().splitlines():
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            keyword, *args = words
            if keyword == "id":
                cases.append(PerftCase(id=args[0]))
            elif keyword == "game":
                cases[-1].game = args[0]
                cases[-1].options = {k: int(v) for k, v in (a.split("=") for a in args[1:])}
            elif keyword == "perft":
                cases[-1].counts[int(args[0])] = int(args[1])
            else:
                raise ValueError(f"{path}: unknown line {line!r}")
    return cases


def perft(state: FlipState, depth: int) -> int:
    if depth == 0 or state.is_terminal():
        return 1
    return sum(perft(state.child(action), depth - 1) for action in state.legal_actions())


def reference_perft(ref: ReferenceFlipGame, depth: int) -> int:
    if depth == 0 or ref.over:
        return 1
    total = 0
    for action in ref.legal_actions():
        child = ref.copy()
        child.apply(action)
        total += reference_perft(child, depth - 1)
    return total


CASES = load_cases()
DEPTHS = [(case, depth) for case in CASES for depth in sorted(case.counts)]


@pytest.mark.parametrize(
    ("case", "depth"), DEPTHS, ids=[f"{case.id}-depth{depth}" for case, depth in DEPTHS]
)
def test_perft(case: PerftCase, depth: int) -> None:
    state = engine_core.load_game(case.game, **case.options).new_initial_state()
    assert isinstance(state, FlipState)
    assert perft(state, depth) == case.counts[depth]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_reference_agrees_with_the_data(case: PerftCase) -> None:
    game = engine_core.load_game(case.game, **case.options)
    ref = ReferenceFlipGame(game.seat_colours, game.start, othello=game.othello)  # type: ignore[attr-defined]
    for depth in range(1, REFERENCE_MAX_DEPTH + 1):
        assert reference_perft(ref, depth) == case.counts[depth]


def test_the_data_files_hold_the_published_othello_counts() -> None:
    othello = next(case for case in CASES if case.game == "othello")
    published = [1, 4, 12, 56, 244, 1396, 8200, 55092, 390216]
    assert [othello.counts[d] for d in range(9)] == published
