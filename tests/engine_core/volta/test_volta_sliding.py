"""A lone steed: Coulomb friction of a uniformly loaded square."""

from __future__ import annotations

import dataclasses
import math

import pytest

from engine_core.volta import DEFAULT_PHYSICS
from engine_core.volta.reference import slide_to_rest, spin_to_rest

from .helpers import world

MU = DEFAULT_PHYSICS.ground_friction
WIDE = dataclasses.replace(DEFAULT_PHYSICS, arena_radius=1.0)  # room to slide
G = DEFAULT_PHYSICS.gravity


@pytest.mark.parametrize("speed", [0.1, 0.3, 0.6, 1.2])
@pytest.mark.parametrize("heading", [0.0, 0.7, 2.0])
@pytest.mark.parametrize("body_angle", [0.0, 0.4])
def test_slides_straight_and_stops_at_v2_over_2_mu_g(
    speed: float, heading: float, body_angle: float
) -> None:
    w = world(WIDE)
    w.set_steed(1, 0.0, 0.0, 0.0, on_arena=False)  # out of the way
    vx, vy = speed * math.cos(heading), speed * math.sin(heading)
    w.set_steed(0, 0.0, 0.0, body_angle, vx, vy, 0.0)
    events, _, capped = w.run()
    assert not capped
    assert events == []
    x, y, angle, *velocity = w.steed(0)
    distance, time = slide_to_rest(speed, MU, G)
    assert math.hypot(x, y) == pytest.approx(distance, rel=0.01)
    assert math.hypot(x, y) == pytest.approx(distance, rel=1e-6)  # exact to rounding
    # straight along the heading, no spin
    assert abs(-math.sin(heading) * x + math.cos(heading) * y) < 1e-12
    assert angle == body_angle
    assert velocity == [0.0, 0.0, 0.0]
    assert w.time == pytest.approx(time, abs=DEFAULT_PHYSICS.time_step)
    assert w.rider(0)[0] == 0  # mu*g is under g*tan(lip): the rider stays seated


@pytest.mark.parametrize(
    ("rider_mass", "impulse"),
    [(DEFAULT_PHYSICS.rider_mass, 0.008), (0.0, 0.015), (0.0, 0.03)],
    ids=["gentle-with-rider", "bare", "bare-hard"],
)
def test_flick_through_the_centre_slides_straight_without_spin(
    rider_mass: float, impulse: float
) -> None:
    """After the push the steed coasts to v^2 / (2 mu g) (a gentle flick, so
    the marble rides seated and adds nothing but weight; or a bare steed)."""
    w = world(WIDE, (rider_mass, rider_mass))
    w.set_steed(1, 0.0, 0.5, 0.0, on_arena=False)  # out of the way
    w.start_flick(0, 2, 0.0, 0.0, impulse)  # push the -x side towards +x
    steps = round(DEFAULT_PHYSICS.flick_duration / DEFAULT_PHYSICS.time_step)
    for _ in range(steps):
        w.step()
    x0, _y0, angle0, vx, vy, omega = w.steed(0)
    assert vx > 0
    assert vy == 0.0
    assert omega == 0.0
    assert angle0 == 0.0
    w.run()
    x1, y1, angle1, *_ = w.steed(0)
    assert (y1, angle1) == (0.0, 0.0)
    assert x1 - x0 == pytest.approx(slide_to_rest(vx, MU, G)[0], rel=0.01)
    if rider_mass:
        assert w.rider(0)[0] == 0


@pytest.mark.parametrize("omega", [2.0, 10.0, -25.0])
def test_spin_in_place_stops_as_the_square_integral_predicts(omega: float) -> None:
    w = world()
    w.set_steed(0, 0.0, 0.0, 0.3, 0.0, 0.0, omega)
    w.set_steed(1, 0.0, 0.0, 0.0, on_arena=False)
    w.run()
    x, y, angle, vx, vy, spin = w.steed(0)
    mass = DEFAULT_PHYSICS.steed_mass
    load_ratio = (mass + DEFAULT_PHYSICS.rider_mass) / mass
    turned, time = spin_to_rest(omega, MU, DEFAULT_PHYSICS.steed_side, load_ratio, G)
    assert (x, y, vx, vy, spin) == (0.0, 0.0, 0.0, 0.0, 0.0)
    assert abs(angle - 0.3) == pytest.approx(turned, rel=0.01)
    assert math.copysign(1.0, angle - 0.3) == math.copysign(1.0, omega)
    assert w.time == pytest.approx(time, abs=DEFAULT_PHYSICS.time_step)


def test_spinning_while_sliding_curves_and_both_stop_together() -> None:
    """Coupled friction: a spinning puck's sliding friction is weaker (part of
    each point's velocity is the spin), so it slides further than a
    non-spinning one, and spin and slide end at the same moment."""
    plain, spun = world(), world()
    for w, omega in ((plain, 0.0), (spun, 30.0)):
        w.set_steed(1, 0.0, 0.0, 0.0, on_arena=False)
        w.set_steed(0, 0.0, 0.0, 0.0, 0.5, 0.0, omega)
    plain.run()
    last_moving = [0.0, 0.0]
    while not spun.is_at_rest():
        spun.step()
        _, _, _, vx, vy, omega = spun.steed(0)
        if vx or vy:
            last_moving[0] = spun.time
        if omega:
            last_moving[1] = spun.time
    assert math.hypot(*spun.steed(0)[:2]) > math.hypot(*plain.steed(0)[:2]) * 1.05
    assert abs(last_moving[0] - last_moving[1]) < 0.05


def test_a_flick_does_not_depend_on_the_clock() -> None:
    """The second flick of a match plays out exactly like the same flick on
    a fresh world from the same positions."""
    played = world()
    played.start_flick(1, 0, 0.0, 0.0, 0.01)
    played.run()
    assert played.time > 0.0
    fresh = world()
    for i in range(2):
        fresh.set_steed(i, *played.steed(i))
    for w in (played, fresh):
        w.start_flick(0, 3, 0.4, 0.3, 0.015)
        w.run()
    assert played.steed(0) == fresh.steed(0)
    assert played.steed(1) == fresh.steed(1)
    assert played.rider(0) == fresh.rider(0)


@pytest.mark.parametrize(
    ("impulse", "rider_mass"),
    [
        (0.004, 0.0),
        (0.02, 0.0),
        (0.1, 0.0),
        (0.004, DEFAULT_PHYSICS.rider_mass),  # the marble stays seated
        (0.02, DEFAULT_PHYSICS.rider_mass),  # it rolls in its dent, and stays
    ],
)
def test_the_push_delivers_exactly_its_impulse(impulse: float, rider_mass: float) -> None:
    """On a frictionless arena the momentum of steed and marble after the
    push is the flick's impulse, in the flick's direction."""
    frictionless = dataclasses.replace(DEFAULT_PHYSICS, ground_friction=0.0, arena_radius=5.0)
    w = world(frictionless, (rider_mass, rider_mass))
    w.set_steed(1, 0.0, 3.0, 0.0, on_arena=False)
    w.set_steed(0, 0.0, 0.0, 0.3)
    side, offset, angle = 1, 0.0, 0.4
    w.start_flick(0, side, offset, angle, impulse)
    for _ in range(round(DEFAULT_PHYSICS.flick_duration / DEFAULT_PHYSICS.time_step) + 1):
        w.step()
    # the inward normal of side 1 is -y in the body frame, turned by the angle
    # and by the steed's own 0.3 rad
    direction = -math.pi / 2 + angle + 0.3
    if rider_mass:
        assert w.rider(0)[0] != 2
    px, py = w.momentum()
    assert px == pytest.approx(impulse * math.cos(direction), rel=1e-9, abs=1e-15)
    assert py == pytest.approx(impulse * math.sin(direction), rel=1e-9, abs=1e-15)
