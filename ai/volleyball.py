"""The Volleyball Returns bot: formations chosen by exact coverage, every
other decision by expectimax over the dice with the coverage evaluation.

Placement is six actions deep before anything can be evaluated, so it is
planned whole: among the formations that contain the pieces already placed,
take the one that covers the most landing squares: as receiver, as it
stands; as server, after its serve (the piece nearest column 6 goes to column
7, choosing the best of tied pieces). On the standard board every formation
is scored (C(18,6) = 18,564, one compiled call); in Big Leagues (C(36,6) is
near two million) a seeded sample of completions is.
"""

from __future__ import annotations

import itertools
import random
from functools import cache

from ai.evaluation import for_states
from ai.evaluation import volleyball as evaluation
from ai.expectimax import ExpectimaxBot
from engine_core import State
from engine_core.volleyball import VolleyballState, all_formations, coverage_counts, place_action
from engine_core.volleyball.actions import (
    PIECES_PER_SIDE,
    SERVING_COLUMN,
    Bitboard,
    column_of,
    row_of,
    square,
    squares_of,
)
from engine_core.volleyball.analysis import court_squares

BIG_LEAGUES_SAMPLES = 200


def served(formation: Bitboard) -> list[Bitboard]:
    """The formations a server can leave by sending one of its pieces nearest
    column 6 to column 7 (same row)."""
    pieces = squares_of(formation)
    back = max(column_of(sq) for sq in pieces)
    return [
        formation & ~(1 << sq) | 1 << square(SERVING_COLUMN, row_of(sq))
        for sq in pieces
        if column_of(sq) == back
    ]


def formation_values(formations: list[Bitboard], serving: bool, big_leagues: bool) -> list[int]:
    """Landing squares covered by each formation (after the best serve)."""
    if not serving:
        return coverage_counts(formations, big_leagues)
    options = [served(f) for f in formations]
    counts = iter(coverage_counts([o for group in options for o in group], big_leagues))
    return [max(itertools.islice(counts, len(group))) for group in options]


@cache
def standard_table(serving: bool) -> tuple[list[Bitboard], list[int]]:
    formations = all_formations(False)
    return formations, formation_values(formations, serving, False)


def best_formation(
    placed: Bitboard, serving: bool, big_leagues: bool, rng: random.Random
) -> Bitboard:
    """The formation containing ``placed`` that covers the most squares."""
    if not big_leagues:
        formations, values = standard_table(serving)
        candidates = [
            (value, -f) for f, value in zip(formations, values, strict=True) if f & placed == placed
        ]
        return -max(candidates)[1]
    free = [sq for sq in court_squares(True) if not placed >> sq & 1]
    missing = PIECES_PER_SIDE - bin(placed).count("1")
    samples = sorted(
        {
            placed | sum(1 << sq for sq in rng.sample(free, missing))
            for _ in range(BIG_LEAGUES_SAMPLES)
        }
    )
    values = formation_values(samples, serving, True)
    return samples[values.index(max(values))]


class VolleyballBot:
    """Coverage-planned placement, then expectimax at ``depth``."""

    def __init__(self, rng: random.Random, depth: int = 2) -> None:
        self.rng = rng
        evaluate = for_states(VolleyballState, evaluation.evaluate)
        self.search = ExpectimaxBot(2, evaluate, rng, depth=depth)
        # The formation being placed, kept across its six place actions.
        self._target: Bitboard = 0

    def choose(self, state: State) -> int:
        if not isinstance(state, VolleyballState):
            raise ValueError(f"the volleyball bot plays volleyball, not {type(state).__name__}")
        if state.phase() != "place":
            action: int = self.search.choose(state)
            return action
        seat = state.current_player()
        placed = state.pieces(seat)
        if not placed or placed & ~self._target:
            self._target = best_formation(
                placed, seat == state.server(), state.game.big_leagues, self.rng
            )
        next_square = min(squares_of(self._target & ~placed))
        return place_action(column_of(next_square), row_of(next_square))
