"""The compiled core against the plain-Python reference (engine_core.volta.reference)."""

from __future__ import annotations

import math

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine_core.volta import DEFAULT_PHYSICS
from engine_core.volta import reference as ref
from engine_core.volta._contact import contact, resolve
from engine_core.volta._friction import friction

HALF = DEFAULT_PHYSICS.steed_side / 2
DETERMINISTIC = settings(derandomize=True, deadline=None, max_examples=150)
angles = st.floats(-math.pi, math.pi)


@settings(derandomize=True, deadline=None, max_examples=40)
@given(angles, angles, st.floats(0.0, 2.0), st.floats(-80.0, 80.0))
def test_friction_table_matches_direct_integration(
    body_angle: float, heading: float, speed: float, omega: float
) -> None:
    assume(speed > 1e-3 or abs(omega) > 1e-2)
    velocity = (speed * math.cos(heading), speed * math.sin(heading))
    core = friction(body_angle, *velocity, omega, HALF)
    direct = ref.square_friction(body_angle, velocity, omega, HALF, grid=120)
    for got, want in zip(core, direct, strict=True):
        assert abs(got - want) < 4e-3


def test_friction_limits_are_exact() -> None:
    assert friction(0.7, 0.3, -0.4, 0.0, HALF) == (-0.6, 0.8, 0.0)
    fx, fy, torque = friction(0.7, 0.0, 0.0, 5.0, HALF)
    assert (fx, fy) == (0.0, 0.0)
    assert math.isclose(torque, -(math.sqrt(2) + math.log(1 + math.sqrt(2))) / 3, rel_tol=1e-15)
    assert friction(0.0, 0.0, 0.0, 0.0, HALF) == (0.0, 0.0, 0.0)


poses = st.tuples(st.floats(-0.06, 0.06), st.floats(-0.06, 0.06), angles)


@DETERMINISTIC
@given(poses, poses)
def test_contact_detection_matches_corner_and_edge_tests(
    a: tuple[float, float, float], b: tuple[float, float, float]
) -> None:
    found = contact(HALF, *a, *b)
    box_a, box_b = ref.Box(*a, HALF), ref.Box(*b, HALF)
    if found is None:
        assert not ref.boxes_overlap(box_a, box_b)
        return
    nx, ny, px, py, depth = found
    assert depth >= 0.0
    assert math.isclose(math.hypot(nx, ny), 1.0, rel_tol=1e-12)
    if depth > 1e-9:
        assert ref.boxes_overlap(box_a, box_b)
    # the contact point lies in both squares (up to the depth), the normal
    # points from a to b's side
    assert box_a.contains((px, py), depth + 1e-9)
    assert box_b.contains((px, py), depth + 1e-9)
    assert nx * (b[0] - a[0]) + ny * (b[1] - a[1]) > -1e-12 or depth > HALF
    # moving b along the normal by the depth (plus a hair) separates them
    shift = depth + 1e-7
    moved = ref.Box(b[0] + nx * shift, b[1] + ny * shift, b[2], HALF)
    if depth < 0.2 * HALF:
        assert not ref.boxes_overlap(box_a, moved)


def test_corner_hit_contact_is_the_corner() -> None:
    # b turned 45 degrees, its west corner 1 mm inside a's east face
    corner = HALF * math.sqrt(2)
    found = contact(HALF, 0.0, 0.0, 0.0, HALF + corner - 0.001, 0.01, math.pi / 4)
    assert found is not None
    nx, ny, px, py, depth = found
    assert (round(nx, 12), round(ny, 12)) == (1.0, 0.0)
    assert math.isclose(px, HALF - 0.001, abs_tol=1e-12)
    assert math.isclose(py, 0.01)
    assert math.isclose(depth, 0.001, rel_tol=1e-9)


bodies = st.tuples(*(st.floats(-2.0, 2.0) for _ in range(3)))


@DETERMINISTIC
@given(
    bodies,
    bodies,
    angles,
    st.tuples(st.floats(-0.03, 0.03), st.floats(-0.03, 0.03)),
    st.floats(0.01, 0.1),
    st.floats(0.01, 0.1),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
)
def test_impulse_matches_reference(
    va: tuple[float, float, float],
    vb: tuple[float, float, float],
    normal_angle: float,
    point: tuple[float, float],
    ma: float,
    mb: float,
    restitution: float,
    mu: float,
) -> None:
    inertia = 1.3e-5
    pa, pb = (-0.025, 0.003), (0.025, -0.004)
    normal = (math.cos(normal_angle), math.sin(normal_angle))
    got_a, got_b, hit = resolve(
        (*pa, *va), (*pb, *vb), ma, mb, inertia, restitution, mu, (*normal, *point)
    )
    body_a = ref.Body(*pa, *va, ma, inertia)
    body_b = ref.Body(*pb, *vb, mb, inertia)
    assert hit == ref.resolve_impulse(body_a, body_b, point, normal, restitution, mu)
    want_a = (body_a.vx, body_a.vy, body_a.omega)
    want_b = (body_b.vx, body_b.vy, body_b.omega)
    for got, want in zip((*got_a, *got_b), (*want_a, *want_b), strict=True):
        assert math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9)
    if hit:
        # the points no longer approach, and their sliding did not reverse
        after_a = ref.Body(*pa, *got_a, ma, inertia)
        after_b = ref.Body(*pb, *got_b, mb, inertia)
        relative = ref.sub(after_b.point_velocity(point), after_a.point_velocity(point))
        assert ref.dot(relative, normal) >= -1e-9


@settings(derandomize=True, deadline=None, max_examples=12)
@given(
    st.floats(0.0, 0.3),
    angles,
    st.floats(-15.0, 15.0),
    angles,
)
def test_sliding_to_rest_matches_reference(
    speed: float, heading: float, omega: float, body_angle: float
) -> None:
    """The whole Coulomb stepping of a bare steed (friction table, clamps,
    trapezoid, exact last step) against the plain-Python slide, which
    integrates the friction over the square directly at every step."""
    from engine_core.volta import World

    physics = DEFAULT_PHYSICS
    w = World(physics, (0.0, 0.0), (0.0, 0.0))
    w.set_steed(1, 0.0, 0.1, 0.0, on_arena=False)
    vx, vy = speed * math.cos(heading), speed * math.sin(heading)
    w.set_steed(0, 0.0, 0.0, body_angle, vx, vy, omega)
    w.run()
    slide = ref.Slide(
        mu=physics.ground_friction,
        gravity=physics.gravity,
        half_side=HALF,
        mass=physics.steed_mass,
        load=physics.steed_mass,
        dt=physics.time_step,
    )
    want = slide.to_rest((0.0, 0.0, body_angle, vx, vy, omega))
    got = w.steed(0)
    assert got[3:] == (0.0, 0.0, 0.0)
    # (the reference's coarser grid and the table's interpolation differ by
    # ~1e-3 of the force; the paths agree to well under 1%)
    travel = math.hypot(want[0], want[1])
    assert math.hypot(got[0] - want[0], got[1] - want[1]) <= 0.005 * travel + 1e-6
    turn = abs(want[2] - body_angle)
    assert abs(got[2] - want[2]) <= 0.005 * turn + 2e-4
