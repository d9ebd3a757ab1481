"""Intercept analysis for bots: can a formation catch a ball, how, and how often.

A formation is one side's pieces: a bitboard (see ``actions``) or a sequence
of (column, row) pairs. Everything here concerns a receiver that has not
moved yet; ``VolleyballState.intercept_plan`` answers mid-turn. The work is
done in the compiled core (``_analysis.Analysis``); ``reference.py`` holds a
plain-Python version of the same answers for tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import cache
from itertools import combinations

from engine_core.volleyball import actions as act
from engine_core.volleyball._analysis import Analysis

Formation = int | Iterable[tuple[int, int]]


@cache
def _analysis(big_leagues: bool) -> Analysis:
    return Analysis(big_leagues)


def formation_mask(formation: Formation) -> act.Bitboard:
    """A formation as a bitboard."""
    if isinstance(formation, int):
        return formation
    return act.mask_of([act.square(column, row) for column, row in formation])


def court_squares(big_leagues: bool = False) -> list[act.Square]:
    """The squares a ball can land on (columns 1-6), lowest first."""
    height = act.BIG_LEAGUES_HEIGHT if big_leagues else act.HEIGHT
    return [act.square(c, r) for r in range(1, height + 1) for c in range(1, 7)]


def all_formations(big_leagues: bool = False) -> list[act.Bitboard]:
    """Every placement of 6 pieces on the court: C(18,6) = 18,564 (C(36,6) in Big Leagues)."""
    return [act.mask_of(list(c)) for c in combinations(court_squares(big_leagues), 6)]


def intercept_plan(
    formation: Formation, landing: tuple[int, int], big_leagues: bool = False
) -> list[act.Action] | None:
    """The fewest step actions after which the formation intercepts a ball on
    ``landing`` (``[]`` if it already does), or None if no legal receive does."""
    plan: list[act.Action] | None = _analysis(big_leagues).intercept_plan(
        formation_mask(formation), act.square(*landing)
    )
    return plan


def can_intercept(
    formation: Formation, landing: tuple[int, int], big_leagues: bool = False
) -> bool:
    result: bool = _analysis(big_leagues).can_intercept(
        formation_mask(formation), act.square(*landing)
    )
    return result


def coverage(formation: Formation, big_leagues: bool = False) -> Fraction:
    """The exact probability that the formation can intercept a rolled ball.

    Every court square is equally likely (1/18 on 3 rows, two die-2 faces per
    row; 1/36 in Big Leagues), so it is the share of squares it covers.
    """
    covered: int = _analysis(big_leagues).covered_landings(formation_mask(formation))
    return Fraction(covered, len(court_squares(big_leagues)))


def coverage_counts(formations: Sequence[act.Bitboard], big_leagues: bool = False) -> list[int]:
    """How many landing squares each formation covers, in one compiled loop."""
    counts: list[int] = _analysis(big_leagues).coverage_counts(formations)
    return counts
