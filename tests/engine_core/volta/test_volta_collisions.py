"""Steed on steed: conservation through the contact impulse, energy, corners."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import assume, given, reject, settings
from hypothesis import strategies as st

from engine_core.volta import DEFAULT_PHYSICS
from engine_core.volta._contact import resolve

from .helpers import FRICTIONLESS, bare_world, step_to_first_hit, world

HALF = DEFAULT_PHYSICS.steed_side / 2
DETERMINISTIC = settings(derandomize=True, deadline=None, max_examples=150)


@st.composite
def approaches(draw: st.DrawFn) -> tuple[float, ...]:
    """Steed 0 launched at steed 1 from a random pose, with spin."""
    return (
        draw(st.floats(-0.03, 0.03)),  # lateral offset
        draw(st.floats(-math.pi, math.pi)),  # attacker angle
        draw(st.floats(-math.pi, math.pi)),  # target angle
        draw(st.floats(0.2, 2.5)),  # speed
        draw(st.floats(-0.4, 0.4)),  # heading off the x axis
        draw(st.floats(-40.0, 40.0)),  # attacker spin
        draw(st.floats(-10.0, 10.0)),  # target spin
    )


def launch(w_factory, scene: tuple[float, ...]):  # type: ignore[no-untyped-def]
    offset, angle_a, angle_b, speed, heading, spin_a, spin_b = scene
    w = w_factory()
    w.set_steed(1, 0.0, 0.0, angle_b, 0.0, 0.0, spin_b)
    w.set_steed(
        0,
        -0.08,
        offset,
        angle_a,
        speed * math.cos(heading),
        speed * math.sin(heading) - offset * speed / 0.08,
        spin_a,
    )
    return w


def relative_close(before: float, after: float, scale: float, tolerance: float = 1e-9) -> bool:
    return abs(after - before) <= tolerance * scale


@DETERMINISTIC
@given(approaches(), st.booleans())
def test_collision_conserves_momentum_and_angular_momentum(
    scene: tuple[float, ...], with_riders: bool
) -> None:
    """Without ground friction nothing outside acts on the pair, so through the
    step that holds the collision both momenta must be kept (riders included:
    the hit gives a rolling marble 2/7 of the jolt and the steed the rest).

    Angular momentum is checked with bare steeds: the model applies a rolling
    marble's push on its steed at the steed's centre rather than at the rim a
    few millimetres off, so once the hit sets the marbles rolling the rest of
    the step moves angular momentum by ~1e-6 of the total. The impulse alone
    keeps it exactly for any masses (next test)."""

    def factory():  # type: ignore[no-untyped-def]
        if with_riders:
            return world(FRICTIONLESS)
        return bare_world(FRICTIONLESS)

    w = launch(factory, scene)
    # fly close, then take the step with the hit on its own
    for _ in range(5000):
        before = w.copy()
        if w.step() is not None:
            break
    else:
        reject()
    assert before.on_arena(0)
    assert before.on_arena(1)
    assume(w.on_arena(0) and w.on_arena(1))
    p0, p1 = before.momentum(), w.momentum()
    scale = math.hypot(*p0)
    assert relative_close(p0[0], p1[0], scale)
    assert relative_close(p0[1], p1[1], scale)
    for point in ((0.0, 0.0), (0.3, -0.2), (-1.0, 2.0)) if not with_riders else ():
        l0, l1 = before.angular_momentum(*point), w.angular_momentum(*point)
        lever = math.hypot(point[0] + 0.1, point[1] + 0.1) + 0.1
        assert relative_close(l0, l1, scale * lever)
    assert w.kinetic_energy() <= before.kinetic_energy() * (1 + 1e-12)


@DETERMINISTIC
@given(
    st.tuples(*(st.floats(-0.05, 0.05) for _ in range(2))),
    st.tuples(*(st.floats(-3.0, 3.0) for _ in range(3))),
    st.tuples(*(st.floats(-3.0, 3.0) for _ in range(3))),
    st.floats(0.0, 2 * math.pi),
    st.floats(0.005, 0.1),
    st.floats(0.005, 0.1),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
)
def test_contact_impulse_keeps_momenta_and_never_adds_energy(
    point: tuple[float, float],
    va: tuple[float, float, float],
    vb: tuple[float, float, float],
    normal_angle: float,
    ma: float,
    mb: float,
    restitution: float,
    mu: float,
) -> None:
    inertia = 1.3e-5
    a = (-0.02, 0.01, *va)
    b = (0.025, -0.005, *vb)
    normal = (math.cos(normal_angle), math.sin(normal_angle))
    (avx, avy, aw), (bvx, bvy, bw), _ = resolve(
        a, b, ma, mb, inertia, restitution, mu, (*normal, *point)
    )
    scale = ma * math.hypot(*va[:2]) + mb * math.hypot(*vb[:2]) + 1e-6
    assert abs(ma * avx + mb * bvx - ma * va[0] - mb * vb[0]) <= 1e-12 * scale + 1e-15
    assert abs(ma * avy + mb * bvy - ma * va[1] - mb * vb[1]) <= 1e-12 * scale + 1e-15

    def angular(ax: float, ay: float, aw_: float, bx: float, by: float, bw_: float) -> float:
        return (
            ma * (a[0] * ay - a[1] * ax)
            + inertia * aw_
            + mb * (b[0] * by - b[1] * bx)
            + inertia * bw_
        )

    l0 = angular(va[0], va[1], va[2], vb[0], vb[1], vb[2])
    l1 = angular(avx, avy, aw, bvx, bvy, bw)
    assert abs(l1 - l0) <= 1e-12 * (abs(l0) + scale * 0.1 + inertia * 10)

    def energy(ax: float, ay: float, aw_: float, bx: float, by: float, bw_: float) -> float:
        return 0.5 * (
            ma * (ax * ax + ay * ay) + mb * (bx * bx + by * by) + inertia * (aw_ * aw_ + bw_ * bw_)
        )

    e0 = energy(*va, *vb)
    assert energy(avx, avy, aw, bvx, bvy, bw) <= e0 * (1 + 1e-12) + 1e-18


@DETERMINISTIC
@given(approaches(), st.booleans())
def test_energy_never_increases_after_the_push(scene: tuple[float, ...], with_riders: bool) -> None:
    """Friction, hits and the marbles' knocks on their rims only dissipate:
    kinetic energy (plus the marbles' height in their dents) never grows."""
    physics = dataclasses.replace(DEFAULT_PHYSICS, arena_radius=0.5)

    def factory():  # type: ignore[no-untyped-def]
        return world(physics) if with_riders else bare_world(physics)

    w = launch(factory, scene)
    energy = w.energy()
    while not w.is_at_rest():
        w.step()
        now = w.energy()
        assert now <= energy * (1 + 1e-12) + 1e-15
        energy = now


def hit_target(target_angle: float, lateral: float) -> tuple[float, float]:
    """Target's speed and spin just after a bare steed at 1 m/s hits it."""
    w = bare_world(FRICTIONLESS)
    reach = HALF * (abs(math.cos(target_angle)) + abs(math.sin(target_angle)))
    w.set_steed(1, 0.0, 0.0, target_angle)
    w.set_steed(0, -(reach + HALF + 0.005), lateral, 0.0, 1.0, 0.0, 0.0)
    step_to_first_hit(w)
    _, _, _, vx, vy, omega = w.steed(1)
    return math.hypot(vx, vy), omega


@pytest.mark.parametrize("lateral", [0.01, 0.015, 0.02, 0.03])
def test_broadside_takes_more_than_a_corner(lateral: float) -> None:
    """The rulebook's tactic: with a corner towards the attacker part of the
    push turns into spin, so the target is driven off more slowly."""
    broadside_speed, broadside_spin = hit_target(0.0, lateral)
    corner_speed, corner_spin = hit_target(math.pi / 4, lateral)
    assert broadside_speed > corner_speed * 1.05
    assert abs(corner_spin) > abs(broadside_spin)


def test_dead_centre_broadside_is_the_textbook_head_on_collision() -> None:
    speed, spin = hit_target(0.0, 0.0)
    e = DEFAULT_PHYSICS.restitution
    assert speed == pytest.approx((1 + e) / 2, rel=1e-9)  # equal masses, v = 1
    assert spin == pytest.approx(0.0, abs=1e-9)


def test_collision_events_are_reported_once_per_contact() -> None:
    w = bare_world()
    w.set_steed(1, 0.0, 0.0, 0.0)
    w.set_steed(0, -0.06, 0.0, 0.0, 0.8, 0.0, 0.0)
    events, _, _ = w.run()
    hits = [e for e in events if e[1] == "collision"]
    assert len(hits) == 1
    assert 0.0 < hits[0][0] < 0.02
