"""DESIGN.md's calibration targets, from the rulebook's picture of play
("each movement that is too powerful might be beneficial to the other
player"; a broadside hit harms a rider, a corner hit mostly spins):

- the firmest flick that keeps one's own rider (large dent) carries the steed
  across at least half the arena's diameter;
- a broadside hit at that speed unseats a large-dent rider, while the same
  hit on a corner mostly spins the target and its rider stays;
- from the start, a good player can score within two or three of his own
  flicks against a passive opponent.

Every scene is fixed and every search a small exhaustive grid: no seeds, no
clocks."""

from __future__ import annotations

import dataclasses
import math

import pytest

import engine_core
from engine_core.volta import DEFAULT_PHYSICS, Flick, VoltaState, World
from engine_core.volta._physics import FALLEN_STATE, SEATED_STATE

from .helpers import world

P = DEFAULT_PHYSICS
HALF = P.steed_side / 2
WIDE = dataclasses.replace(P, arena_radius=1.0)  # room to slide
PUSH_STEPS = round(P.flick_duration / P.time_step) + 1


def flick_alone(impulse: float, dent: str = "large") -> tuple[int, float, float]:
    """A flick through the centre of a lone steed's back: its rider's state at
    rest, the distance its centre travelled, and its speed when the finger
    left it."""
    w = world(WIDE, dents=(dent, dent))
    w.set_steed(0, 0.0, 0.0, 0.0)
    w.set_steed(1, 0.0, 0.5, 0.0, on_arena=False)
    w.start_flick(0, 2, 0.0, 0.0, impulse)
    for _ in range(PUSH_STEPS):
        w.step()
    speed = w.steed(0)[3]
    w.run()
    return w.rider(0)[0], w.steed(0)[0], speed


def firmest_safe_impulse(dent: str = "large") -> float:
    """The largest impulse (to 1 uN s) whose flick keeps the rider on."""
    low, high = P.min_impulse, P.max_impulse
    assert flick_alone(low, dent)[0] == SEATED_STATE
    assert flick_alone(high, dent)[0] == FALLEN_STATE
    while high - low > 1e-6:
        middle = 0.5 * (low + high)
        if flick_alone(middle, dent)[0] == FALLEN_STATE:
            high = middle
        else:
            low = middle
    return low


FIRMEST = firmest_safe_impulse()
FIRMEST_SPEED = flick_alone(FIRMEST)[2]


def test_the_firmest_safe_flick_crosses_half_the_arena() -> None:
    state, travel, _ = flick_alone(FIRMEST)
    assert state == SEATED_STATE
    assert travel >= P.arena_radius  # half the diameter
    # and it is the firmest: a little more throws the rider
    assert flick_alone(FIRMEST * 1.02)[0] == FALLEN_STATE
    # every gentler flick keeps it (the safe flicks are one interval)
    for share in (0.0, 0.25, 0.5, 0.75, 0.99):
        impulse = P.min_impulse + share * (FIRMEST - P.min_impulse)
        assert flick_alone(impulse)[0] == SEATED_STATE


def test_the_small_dent_is_the_handicap() -> None:
    """The rulebook: "The smaller one is more difficult to play with": its firmest safe
    flick carries the steed less than half as far."""
    small = firmest_safe_impulse("small")
    assert P.min_impulse < small < FIRMEST
    assert flick_alone(small, "small")[1] < 0.5 * flick_alone(FIRMEST)[1]


def hit(target_angle: float, lateral: float) -> tuple[int, float, float]:
    """A steed (large dent) at the firmest safe flick's speed hits a resting
    one (large dent) whose centre is ``lateral`` metres off its line of
    motion. Returns the target's rider state at rest, and the target's speed
    and spin just after the hit."""
    w = world()
    reach = HALF * (abs(math.cos(target_angle)) + abs(math.sin(target_angle)))
    w.set_steed(1, 0.0, 0.0, target_angle)
    w.set_steed(0, -(reach + HALF + 0.001), lateral, 0.0, FIRMEST_SPEED, 0.0, 0.0)
    while w.step() is None:
        pass
    _, _, _, vx, vy, omega = w.steed(1)
    w.run()
    return w.rider(1)[0], math.hypot(vx, vy), omega


def spin_share(speed: float, omega: float) -> float:
    """The share of the target steed's kinetic energy that is spin."""
    inertia = P.steed_mass * P.steed_side**2 / 6
    spin = 0.5 * inertia * omega**2
    return spin / (spin + 0.5 * P.steed_mass * speed**2)


def test_a_full_broadside_hit_at_the_firmest_safe_speed_unseats() -> None:
    assert hit(0.0, 0.0)[0] == FALLEN_STATE


@pytest.mark.parametrize("lateral", [0.025, 0.026, 0.027, 0.028])
def test_the_same_hit_on_a_corner_mostly_spins_and_the_rider_stays(lateral: float) -> None:
    """The attacker's line passes just over half a side from the target's
    centre. Square to it (a broadside) the target is driven off and its rider
    falls; turned 45 degrees (a corner towards the attacker) it spins off at
    a fraction of the speed and its rider stays."""
    broadside_rider, broadside_speed, broadside_spin = hit(0.0, lateral)
    corner_rider, corner_speed, corner_spin = hit(math.pi / 4, lateral)
    assert broadside_rider == FALLEN_STATE
    assert corner_rider == SEATED_STATE
    assert corner_speed < 0.7 * broadside_speed
    assert abs(corner_spin) > 1.3 * abs(broadside_spin)
    assert spin_share(corner_speed, corner_spin) > 0.25
    assert spin_share(corner_speed, corner_spin) > 3 * spin_share(broadside_speed, broadside_spin)


def straight(impulse: float) -> Flick:
    """A flick through the centre of the steed's back (side 2, towards +x)."""
    return Flick(2, 0.0, 0.0, impulse)


@pytest.mark.parametrize("passive_side", [0, 1, 2, 3])
def test_from_the_start_two_own_flicks_score_against_a_passive_opponent(
    passive_side: int,
) -> None:
    """Seat 0 approaches, seat 1 only nudges (the minimal flick on one of its
    sides), and seat 0 pushes: among straight flicks on a 1 mN s grid some
    approach scores with the second flick, by seat 0's own push, and not by
    a knife-edge (three neighbouring pushes in a row score)."""
    start = engine_core.load_game("volta").new_initial_state()
    assert isinstance(start, VoltaState)
    grid = [k / 1000 for k in range(12, 101)]
    winning_approaches = 0
    for approach in grid[:30]:
        state = start.clone()
        if state.apply_flick(straight(approach)).point_to is not None:
            continue
        state.apply_flick(Flick(passive_side, 0.0, 0.0, P.min_impulse))
        if state.scores() != [0, 0]:
            continue
        scoring = [state.simulate(straight(push), record=False).point_to == 0 for push in grid]
        if any(all(scoring[k : k + 3]) for k in range(len(grid) - 2)):
            winning_approaches += 1
    assert winning_approaches >= 3


def test_the_target_of_a_push_is_off_and_the_pusher_stays() -> None:
    """The picture of play: touching the other steed, a firm flick pushes it
    over the rim while the pusher stops short and keeps its rider."""
    w = World(P, (P.rider_mass, P.rider_mass), (P.large_dent.rim_radius,) * 2)
    w.set_steed(1, P.arena_radius - 0.04, 0.0, 0.0)
    w.set_steed(0, P.arena_radius - 0.04 - P.steed_side, 0.0, 0.0)
    w.start_flick(0, 2, 0.0, 0.0, 0.045)
    events, _, _ = w.run()
    assert ("steed_fall", 1) in {(kind, seat) for _, kind, seat in events}
    assert w.on_arena(0)
    assert w.rider(0)[0] == SEATED_STATE
