"""The public physics core (``engine_core.volta.World`` and ``Physics``) checks
every argument: random arguments to every public method never crash the
process, never corrupt the world, and always end in a clear TypeError or
ValueError when they are wrong."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine_core.volta import DEFAULT_PHYSICS, Dent, Physics, World
from engine_core.volta._physics import FALLEN_STATE, ROLLING_STATE, SEATED_STATE

from .helpers import world

CLEAR_ERRORS = (TypeError, ValueError)
FUZZ = settings(derandomize=True, deadline=None, max_examples=400)

# Every public method of World, with how many positional arguments it takes.
ARITIES: dict[str, range] = {
    "configure_rider": range(3, 4),
    "reset": range(0, 1),
    "set_steed": range(4, 9),
    "steed": range(1, 2),
    "on_arena": range(1, 2),
    "set_rider": range(2, 7),
    "rider": range(1, 2),
    "rider_mass": range(1, 2),
    "start_flick": range(5, 6),
    "step": range(0, 1),
    "is_at_rest": range(0, 1),
    "run": range(0, 2),
    "copy": range(0, 1),
    "snapshot": range(0, 1),
    "momentum": range(0, 1),
    "angular_momentum": range(0, 3),
    "kinetic_energy": range(0, 1),
    "energy": range(0, 1),
}

junk = st.one_of(
    st.sampled_from([0, 1, 2, 3, -1, 4, 1_000_000, -5_000_000, 2**31, 2**64, 10**400]),
    st.integers(),
    st.floats(),  # NaN and infinities included
    st.floats(-0.2, 0.2),
    st.sampled_from([0.0, 0.005, 0.03, 0.1, 1e300, -1e300, 5e-324]),
    st.booleans(),
    st.none(),
    st.text(max_size=3),
    st.tuples(st.floats(), st.floats()),
    st.lists(st.integers(), max_size=3),
)


def assert_sound(w: World) -> None:
    """The world still runs (to rest or its time cap) and holds finite numbers."""
    w.run()
    assert all(math.isfinite(v) for v in w.snapshot())
    for seat in (0, 1):
        state, dx, dy, *_ = w.rider(seat)
        assert state in (SEATED_STATE, ROLLING_STATE, FALLEN_STATE)
        if state == ROLLING_STATE:
            assert math.hypot(dx, dy) < DEFAULT_PHYSICS.large_dent.rim_radius


def test_every_public_method_is_fuzzed() -> None:
    public = {name for name in dir(World) if not name.startswith("_")}
    assert public - {"physics", "time"} == set(ARITIES)


@FUZZ
@given(st.sampled_from(sorted(ARITIES)), st.data())
def test_random_arguments_give_a_clear_error_or_a_sound_world(name: str, data: Any) -> None:
    w = world()
    count = data.draw(st.sampled_from([*ARITIES[name], ARITIES[name][-1] + 1]), label="count")
    args = data.draw(st.lists(junk, min_size=count, max_size=count), label="args")
    before = w.snapshot()
    try:
        getattr(w, name)(*args)
    except CLEAR_ERRORS:
        if name not in ("step", "run"):  # (these take no arguments that could fail)
            assert w.snapshot() == before  # refused before anything changed
    assert_sound(w)


@FUZZ
@given(
    st.tuples(st.sampled_from([0, 1]), *(st.floats(-100.0, 100.0) for _ in range(2))),
    st.floats(-1e6, 1e6),
    st.tuples(st.floats(-100.0, 100.0), st.floats(-100.0, 100.0), st.floats(-1e4, 1e4)),
    st.tuples(st.sampled_from([0, 1, 2, 3]), st.floats(-1.0, 1.0), st.floats(-0.6, 0.6)),
    st.floats(0.0, DEFAULT_PHYSICS.max_impulse),
)
def test_extreme_values_within_the_limits_run_soundly(
    where: tuple[int, float, float],
    angle: float,
    motion: tuple[float, float, float],
    push: tuple[int, float, float],
    impulse: float,
) -> None:
    """The limits are far past anything on a table (100 m/s, 10^4 rad/s, 100
    m away), and anything within them runs to finite numbers."""
    w = world()
    seat, x, y = where
    w.set_steed(seat, x, y, angle, *motion)
    if w.on_arena(1 - seat):
        w.start_flick(1 - seat, *push, impulse)
    assert_sound(w)


def test_the_reported_crashes_are_clear_errors() -> None:
    w = world()
    with pytest.raises(ValueError, match=r"steed must be 0\.\.1"):
        w.steed(1_000_000)
    with pytest.raises(ValueError, match="impulse"):
        w.start_flick(0, 2, 0.0, 0.0, float("nan"))
    with pytest.raises(ValueError, match=r"steed must be 0\.\.1"):
        w.set_steed(-5_000_000, 0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match=r"steed must be 0\.\.1"):
        w.configure_rider(3, 0.005, 0.004)
    with pytest.raises(ValueError, match="out of range"):
        w.set_steed(0, 10**400, 0.0, 0.0)
    with pytest.raises(TypeError, match="bool"):
        w.set_steed(0, 0.0, 0.0, 0.0, on_arena="yes")
    assert_sound(w)


def test_rider_states_must_make_sense() -> None:
    w = world()
    rim = DEFAULT_PHYSICS.large_dent.rim_radius
    with pytest.raises(ValueError, match="inside its dent's rim"):
        w.set_rider(0, ROLLING_STATE, rim, 0.0)
    with pytest.raises(ValueError, match="no offset or speed"):
        w.set_rider(0, SEATED_STATE, 0.001, 0.0)
    with pytest.raises(ValueError, match=r"rider state must be 0\.\.2"):
        w.set_rider(0, 3)
    bare = world(rider_masses=(0.0, 0.0))
    with pytest.raises(ValueError, match="no rider"):
        bare.set_rider(0, SEATED_STATE)
    bare.set_rider(0, FALLEN_STATE)
    w.set_rider(0, ROLLING_STATE, 0.5 * rim, 0.0, 0.01, 0.0)  # a sensible one is taken
    assert w.rider(0)[0] == ROLLING_STATE


def test_a_flick_stays_within_the_fingers_bounds_and_on_the_arena() -> None:
    w = world()
    cone = DEFAULT_PHYSICS.max_push_angle
    for bad, field in [
        ((0, 4, 0.0, 0.0, 0.01), "side"),
        ((0, 2, 1.5, 0.0, 0.01), "offset"),
        ((0, 2, 0.0, cone * 1.01, 0.01), "angle"),
    ]:
        with pytest.raises(ValueError, match=field):
            w.start_flick(*bad)
    with pytest.raises(ValueError, match="impulse"):
        w.start_flick(0, 2, 0.0, 0.0, DEFAULT_PHYSICS.max_impulse * 1.01)
    w.set_steed(1, 0.0, 0.5, 0.0, on_arena=False)
    with pytest.raises(ValueError, match="off the arena"):
        w.start_flick(1, 2, 0.0, 0.0, 0.01)


def test_an_unbuilt_world_refuses_to_run() -> None:
    raw = World.__new__(World)
    for call in (raw.run, raw.step, raw.reset, raw.copy, lambda: raw.steed(0)):
        with pytest.raises(ValueError, match="never set up"):
            call()


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (("physics",), TypeError),
        ((DEFAULT_PHYSICS, (0.005,)), TypeError),
        ((DEFAULT_PHYSICS, (0.005, float("nan")), (0.004, 0.004)), ValueError),
        ((DEFAULT_PHYSICS, (0.005, 0.005), (0.004, 0.009)), ValueError),  # rim wider than the ball
        ((DEFAULT_PHYSICS, (0.005, -0.005), (0.004, 0.004)), ValueError),
    ],
)
def test_a_world_is_built_from_physics_and_sane_riders(args: tuple[Any, ...], error: type) -> None:
    with pytest.raises(error):
        World(*args)


@pytest.mark.parametrize(
    "change",
    [
        {"time_step": 0.0},
        {"time_step": -0.001},
        {"time_step": float("nan")},
        {"gravity": float("inf")},
        {"steed_mass": 0.0},
        {"restitution": 1.5},
        {"max_push_angle": 2.0},
        {"arena_radius": "0.12"},
        {"time_cap": 1e9},
        {"frame_rate": 1e5},  # more frames than time steps
        {"start_offset": 0.2},  # off the arena
        {"ball_radius": 0.003},  # narrower than the dents' rims
        {"large_dent": Dent(rim_radius=0.009)},
        {"rider_mass": True},
    ],
)
def test_physics_refuses_unphysical_constants(change: dict[str, Any]) -> None:
    with pytest.raises(CLEAR_ERRORS):
        dataclasses.replace(DEFAULT_PHYSICS, **change)


def test_physics_variants_the_tests_use_are_accepted() -> None:
    for change in [
        {"ground_friction": 0.0},
        {"arena_radius": 5.0},
        {"rider_mass": 0.0},
        {"flick_duration": 0.2},
        {"time_cap": 0.02},
    ]:
        assert isinstance(dataclasses.replace(DEFAULT_PHYSICS, **change), Physics)
    with pytest.raises(ValueError, match="rim radius"):
        Dent(rim_radius=-0.001)
