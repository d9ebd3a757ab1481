"""A static evaluation for Rolit and Othello positions (the flip games).

Features per seat, in the order strong Othello programs weigh them:
- corners held (they can never be flipped), and edges;
- X-squares (diagonally next to an empty corner) held: they give the corner away;
- mobility: squares where the seat could capture now;
- stable balls: a simple, sound lower bound — balls on an edge connected to an
  owned corner through the seat's own balls along that edge;
- ball count, which only matters late: its weight grows as the board fills.

Each seat's score is compared with the mean of all seats and squashed into
(-1, 1), so it reads like ``returns()``: two-player values are exactly
opposite, and a seat far ahead approaches +1.
"""

from __future__ import annotations

import math

from engine_core.rolit import FlipState

Bitboard = int

CORNERS: Bitboard = (1 << 0) | (1 << 7) | (1 << 56) | (1 << 63)
EDGES: Bitboard = 0xFF000000000000FF | 0x8181818181818181
# Each corner with the X-square diagonal to it.
X_SQUARES: list[tuple[int, int]] = [(0, 9), (7, 14), (56, 49), (63, 54)]
# Each corner with the two edge rays that start at it (square steps).
EDGE_RAYS: list[tuple[int, list[list[int]]]] = [
    (0, [[1, 2, 3, 4, 5, 6, 7], [8, 16, 24, 32, 40, 48, 56]]),
    (7, [[6, 5, 4, 3, 2, 1, 0], [15, 23, 31, 39, 47, 55, 63]]),
    (56, [[57, 58, 59, 60, 61, 62, 63], [48, 40, 32, 24, 16, 8, 0]]),
    (63, [[62, 61, 60, 59, 58, 57, 56], [55, 47, 39, 31, 23, 15, 7]]),
]

CORNER_WEIGHT = 25.0
X_SQUARE_WEIGHT = -12.0
EDGE_WEIGHT = 2.0
MOBILITY_WEIGHT = 3.0
STABLE_WEIGHT = 6.0
SQUASH = 40.0


def stable_edge_balls(own: Bitboard) -> Bitboard:
    """Balls of ``own`` connected to an owned corner along an edge."""
    stable = 0
    for corner, rays in EDGE_RAYS:
        if not own >> corner & 1:
            continue
        stable |= 1 << corner
        for ray in rays:
            for square in ray:
                if not own >> square & 1:
                    break
                stable |= 1 << square
    return stable


def seat_score(state: FlipState, seat: int, masks: tuple[int, ...], filled: float) -> float:
    own = masks[state.colour_of(seat)]
    occupied = masks[0] | masks[1] | masks[2] | masks[3]
    score = CORNER_WEIGHT * (own & CORNERS).bit_count()
    score += EDGE_WEIGHT * (own & EDGES).bit_count()
    for corner, x_square in X_SQUARES:
        if own >> x_square & 1 and not occupied >> corner & 1:
            score += X_SQUARE_WEIGHT
    score += MOBILITY_WEIGHT * state.captures_mask(seat).bit_count()
    score += STABLE_WEIGHT * stable_edge_balls(own).bit_count()
    # Ball count: worthless early (fewer balls means more mobility), decisive late.
    score += (4.0 * filled**4) * own.bit_count()
    return score


def evaluate(state: FlipState) -> list[float]:
    """Values in (-1, 1) per seat; a terminal state returns its returns."""
    if state.is_terminal():
        return state.returns()
    masks = state.colour_masks()
    occupied = masks[0] | masks[1] | masks[2] | masks[3]
    filled = occupied.bit_count() / 64
    seats = range(state.game.num_players())
    scores = [seat_score(state, seat, masks, filled) for seat in seats]
    mean = sum(scores) / len(scores)
    return [math.tanh((score - mean) / SQUASH) for score in scores]


def order_actions(state: FlipState, actions: list[int]) -> list[int]:
    """Corners first, X-squares last: a cheap static move ordering."""

    def rank(action: int) -> int:
        if CORNERS >> action & 1:
            return 0
        if any(action == x for _, x in X_SQUARES):
            return 3
        return 1 if EDGES >> action & 1 else 2

    return sorted(actions, key=rank)
