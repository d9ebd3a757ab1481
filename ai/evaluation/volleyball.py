"""Evaluation of Volleyball Returns positions, from the engine's exact
coverage helper.

A side's coverage ``c`` is the exact chance that it can intercept a ball that
lands on a random square of its side (``analysis.covered_landings``). If the
ball is heading for a receiver with coverage ``c_r`` and the hitter's side has
coverage ``c_h``, and both keep their formations, the rally is a geometric
series: the hitter wins the point with probability

    (1 - c_r) + c_r c_h (1 - c_r) + ... = (1 - c_r) / (1 - c_r c_h).

The point's chance then becomes a chance of winning the game (first to 4),
taking later points as even. A seat's value is ``2 P(win) - 1``, in [-1, 1]
like ``returns()``.
"""

from __future__ import annotations

from functools import cache, lru_cache

from engine_core.volleyball import VolleyballState
from engine_core.volleyball.actions import WINNING_SCORE
from engine_core.volleyball.analysis import court_squares, coverage_counts


def covered_landings(formation: int, big_leagues: bool) -> int:
    return coverage_counts([formation], big_leagues)[0]


def rally_won_by_hitter(c_receiver: float, c_hitter: float) -> float:
    """The chance that the hitter wins a rally heading for the receiver."""
    endless = c_receiver * c_hitter
    if endless >= 1.0:
        return 0.5  # both sides catch everything: call it even
    return (1.0 - c_receiver) / (1.0 - endless)


@cache
def game_won(mine: int, theirs: int) -> float:
    """The chance of reaching 4 points first from ``mine``-``theirs`` when
    every point is even."""
    if mine >= WINNING_SCORE:
        return 1.0
    if theirs >= WINNING_SCORE:
        return 0.0
    return 0.5 * game_won(mine + 1, theirs) + 0.5 * game_won(mine, theirs + 1)


def coverage(state: VolleyballState, seat: int) -> float:
    """The share of landing squares ``seat``'s formation can intercept now."""
    return formation_coverage(state.pieces(seat), state.game.big_leagues)


@lru_cache(maxsize=1 << 16)
def formation_coverage(formation: int, big_leagues: bool) -> float:
    # A search meets the same formations again and again (the side that is
    # not moving keeps its own), and in Big Leagues each costs a search.
    return covered_landings(formation, big_leagues) / len(court_squares(big_leagues))


def point_won_by_hitter(state: VolleyballState) -> float:
    """The chance that the current hitter wins the point under way."""
    phase = state.phase()
    hitter = state.hitter()
    receiver = 1 - hitter
    c_hitter = coverage(state, hitter)
    c_receiver = coverage(state, receiver)
    if phase == "hit":
        # Underdog Boost: the hitter may pick any square; one the receiver
        # cannot reach wins the point outright.
        return 1.0 if c_receiver < 1.0 else rally_won_by_hitter(c_receiver, c_hitter)
    if phase in ("serve", "roll"):
        return rally_won_by_hitter(c_receiver, c_hitter)
    # The ball has landed: the receiver returns it or loses the point, and a
    # return sends it to the hitter's side, where the roles swap.
    if phase == "receive":
        saved = state.intercept_plan() is not None
    else:  # the hitter's Big Leagues step, before the receiver moves
        landing = state.landing()
        assert landing is not None
        saved = state.game.analysis.can_intercept(state.pieces(receiver), landing)
    if not saved:
        return 1.0
    return 1.0 - rally_won_by_hitter(c_hitter, c_receiver)


def evaluate(state: VolleyballState) -> list[float]:
    """Per seat, ``2 P(win) - 1``; terminal states give their returns."""
    if state.is_terminal():
        return state.returns()
    scores = state.scores()
    if state.phase() == "place":
        point = [0.5, 0.5]  # formations still being built
    else:
        hitter = state.hitter()
        p = point_won_by_hitter(state)
        point = [p, 1.0 - p] if hitter == 0 else [1.0 - p, p]
    values = []
    for seat in (0, 1):
        mine, theirs = scores[seat], scores[1 - seat]
        won = point[seat] * game_won(mine + 1, theirs) + (1 - point[seat]) * game_won(
            mine, theirs + 1
        )
        values.append(2.0 * won - 1.0)
    return values
