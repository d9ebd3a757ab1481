"""Evaluation of Volta positions at rest, between flicks.

What makes a position good for a seat (the rulebook's tactics and the
physics of a push):
- its own steed far from the rim, the opponent's close to it: a steed whose
  centre of mass leaves the disk loses the point;
- a push set up: its steed close behind the opponent's, with the opponent
  near the rim along that line, so that the next flick (an approach, then a
  push) can carry it off, while the pusher, further in, stops short;
- a corner of its own steed pointing at the opponent: a hit on a corner
  turns part of the energy into spin, so it pushes the steed less far;
- the opponent's steed showing a face to it: a broadside takes a hit whole.

Values are in (-1, 1) like ``returns()``, exactly opposite for the two seats;
a terminal state gives its returns. A won or lost point is scored by the
planner, which sees the flick's result; this values the position after it.
"""

from __future__ import annotations

import math

from engine_core.volta import VoltaState

RIM_WEIGHT = 2.0
PUSH_WEIGHT = 1.0
CORNER_WEIGHT = 0.4
SQUASH = 1.5
# A push is set up within this gap between the steeds (what an approach
# closes with one flick) and carries the other steed this far (about what the
# pair slides under the firmest flick that keeps the pusher's rider).
SETUP_GAP = 0.08  # m
PUSH_REACH = 0.12  # m


def corner_toward(state: VoltaState, seat: int) -> float:
    """1 when ``seat``'s steed points a corner at the other steed, 0 when it
    shows it a face (the square's 90-degree symmetry: (1 - cos 4 phi) / 2)."""
    x, y, angle = state.world.steed(seat)[:3]
    ox, oy = state.world.steed(1 - seat)[:2]
    phi = math.atan2(oy - y, ox - x) - angle
    return (1.0 - math.cos(4.0 * phi)) / 2.0


def rim_margin(state: VoltaState, seat: int) -> float:
    """How far ``seat``'s centre of mass is from the rim, as a share of the
    arena's radius (1 at the centre, 0 on the rim)."""
    x, y = state.world.steed(seat)[:2]
    radius = state.game.physics.arena_radius
    return max(0.0, 1.0 - math.hypot(x, y) / radius)


def distance_to_rim(x: float, y: float, ux: float, uy: float, radius: float) -> float:
    """How far the point (x, y) inside the disk goes along the unit vector
    (ux, uy) before it leaves the disk of ``radius``."""
    along = x * ux + y * uy
    return -along + math.sqrt(max(0.0, along * along - (x * x + y * y) + radius * radius))


def push_setup(state: VoltaState, seat: int) -> float:
    """In [0, 1]: how well ``seat`` is placed to push the other steed off
    with its next flicks. It is the product of how close it is behind the
    other steed (1 when touching, 0 at SETUP_GAP) and how near the other
    steed is to the rim straight ahead (1 on the rim, 0 at PUSH_REACH)."""
    physics = state.game.physics
    x, y = state.world.steed(seat)[:2]
    ox, oy = state.world.steed(1 - seat)[:2]
    between = math.hypot(ox - x, oy - y)
    if between == 0.0:
        return 0.0
    ux, uy = (ox - x) / between, (oy - y) / between
    gap = between - physics.steed_side
    close = min(1.0, max(0.0, 1.0 - gap / SETUP_GAP))
    ahead = distance_to_rim(ox, oy, ux, uy, physics.arena_radius)
    exposed = max(0.0, 1.0 - ahead / PUSH_REACH)
    return close * exposed


def position_score(state: VoltaState, seat: int) -> float:
    other = 1 - seat
    rims = rim_margin(state, seat) - rim_margin(state, other)
    pushes = push_setup(state, seat) - push_setup(state, other)
    corners = corner_toward(state, seat) - corner_toward(state, other)
    return RIM_WEIGHT * rims + PUSH_WEIGHT * pushes + CORNER_WEIGHT * corners


def evaluate(state: VoltaState) -> list[float]:
    if state.is_terminal():
        return state.returns()
    value = math.tanh(position_score(state, 0) / SQUASH)
    return [value, -value]
