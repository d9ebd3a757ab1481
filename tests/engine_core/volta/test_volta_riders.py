"""The marble in its dent: gentle flicks keep it, hard ones and hits throw it."""

from __future__ import annotations

import itertools
import math

import pytest

import engine_core
from engine_core.volta import DEFAULT_PHYSICS, Flick, VoltaState
from engine_core.volta._physics import FALLEN_STATE, ROLLING_STATE, SEATED_STATE

from .helpers import world

MAX = DEFAULT_PHYSICS.max_impulse


def new_state(**options: object) -> VoltaState:
    state = engine_core.load_game("volta", **options).new_initial_state()
    assert isinstance(state, VoltaState)
    return state


@pytest.mark.parametrize("side", [0, 1, 2, 3])
def test_gentle_flick_keeps_own_rider_and_passes_the_turn(side: int) -> None:
    state = new_state()
    result = state.apply_flick(Flick(side, 0.2, 0.1, 0.2 * MAX))
    assert result.point_to is None
    assert not [e for e in result.events if e.kind == "rider_fall"]
    assert state.world.rider(0)[0] == SEATED_STATE
    assert state.current_player() == 1
    assert state.scores() == [0, 0]


@pytest.mark.parametrize("side", [0, 1, 2, 3])
def test_maximal_flick_throws_own_rider_point_to_opponent(side: int) -> None:
    state = new_state()
    result = state.apply_flick(Flick(side, 0.0, 0.0, MAX))
    falls = [e for e in result.events if e.kind == "rider_fall"]
    assert falls
    assert falls[0].seat == 0
    assert falls[0].time < DEFAULT_PHYSICS.flick_duration  # thrown during the push
    assert result.point_to == 1
    assert state.scores() == [0, 1]
    assert state.current_player() == 0  # the loser of the point flicks first


def test_same_impulse_slower_push_keeps_the_rider() -> None:
    """What unseats the marble is the acceleration, not the impulse: the same
    impulse over a longer push (a lead, which the rules forbid) keeps it."""
    import dataclasses

    impulse = 0.045
    brief = world()
    slow = world(dataclasses.replace(DEFAULT_PHYSICS, flick_duration=0.3))
    for w in (brief, slow):
        w.set_steed(1, 0.0, 0.5, 0.0, on_arena=False)
        w.start_flick(0, 2, 0.0, 0.0, impulse)
        w.run()
    assert brief.rider(0)[0] == FALLEN_STATE
    assert slow.rider(0)[0] == SEATED_STATE


@pytest.mark.parametrize("dent", ["large", "small"])
def test_marble_rolls_over_the_lip_at_sqrt_10gh_over_7(dent: str) -> None:
    climb = DEFAULT_PHYSICS.climb_speed(dent)
    outcomes = {}
    for share in (0.97, 1.03):
        w = world(dents=(dent, dent))
        w.set_rider(0, ROLLING_STATE, 0.0, 0.0, climb * share, 0.0)
        w.run()
        outcomes[share] = w.rider(0)[0]
    # rolling resistance takes ~1% on the way up
    assert outcomes == {0.97: SEATED_STATE, 1.03: FALLEN_STATE}


def test_marble_settles_back_after_a_small_knock() -> None:
    w = world()
    w.set_rider(0, ROLLING_STATE, 0.0, 0.0, 0.05, 0.02)
    w.run()
    state, dx, dy, ux, uy = w.rider(0)
    assert (state, dx, dy, ux, uy) == (SEATED_STATE, 0.0, 0.0, 0.0, 0.0)


def hit_at(speed: float, target_dent: str) -> int:
    """A bare steed hits a resting target broadside at ``speed``; returns the
    target's rider state afterwards."""
    w = world(rider_masses=(0.0, DEFAULT_PHYSICS.rider_mass), dents=("large", target_dent))
    w.set_steed(1, 0.0, 0.0, 0.0)
    w.set_steed(0, -DEFAULT_PHYSICS.steed_side - 0.001, 0.0, 0.0, speed, 0.0, 0.0)
    w.run()
    state: int = w.rider(1)[0]
    return state


@pytest.mark.parametrize("speed", [0.4, 0.45])
def test_hard_hit_throws_a_small_dent_rider_where_a_large_dent_one_stays(speed: float) -> None:
    assert hit_at(speed, "large") == SEATED_STATE
    assert hit_at(speed, "small") == FALLEN_STATE


def test_soft_hit_throws_nobody_and_a_violent_one_throws_both_dents() -> None:
    assert hit_at(0.2, "small") == SEATED_STATE
    assert hit_at(1.5, "large") == FALLEN_STATE


def test_heavier_marble_is_harder_to_carry() -> None:
    """A heavier rider makes the steed heavier: the same flick accelerates it
    less, so a flick that throws a light marble can keep a heavy one."""
    impulse = 0.038
    kept = {}
    for mass in (0.002, 0.02):
        w = world(rider_masses=(mass, mass))
        w.set_steed(1, 0.0, 0.5, 0.0, on_arena=False)
        w.start_flick(0, 2, 0.0, 0.0, impulse)
        w.run()
        kept[mass] = w.rider(0)[0]
    assert kept == {0.002: FALLEN_STATE, 0.02: SEATED_STATE}


def test_recorded_frames_follow_the_rider() -> None:
    state = new_state()
    result = state.simulate(Flick(2, 0.0, 0.0, MAX), record=True)
    assert result.frames[0].time == 0.0
    spacing = 1 / DEFAULT_PHYSICS.frame_rate
    times = [f.time for f in result.frames]
    assert all(math.isclose(b - a, spacing) for a, b in itertools.pairwise(times[:-1]))
    assert result.frames[-1].time == pytest.approx(result.duration)
    riders = [f.steeds[0].rider for f in result.frames]
    assert riders[0] == "seated"
    assert riders[-1] == "fallen"
    assert state.scores() == [0, 0]
    assert state.history() == []


def test_frames_keep_each_marble_within_its_dent_until_it_falls() -> None:
    state = new_state(dents=("small", "large"))
    state.world.set_steed(0, -DEFAULT_PHYSICS.steed_side - 0.014, 0.01, 0.2)  # 3 mm apart
    state.world.set_steed(1, 0.0, 0.0, -0.3)
    result = state.simulate(Flick(2, 0.3, -0.2, 0.03), record=True)
    rims = (DEFAULT_PHYSICS.small_dent.rim_radius, DEFAULT_PHYSICS.large_dent.rim_radius)
    fallen = [False, False]
    for frame in result.frames:
        for seat, pose in enumerate(frame.steeds):
            offset = math.hypot(pose.rider_x - pose.x, pose.rider_y - pose.y)
            if pose.rider == "fallen":
                fallen[seat] = True
            else:
                assert not fallen[seat]  # nobody climbs back on
                assert offset < rims[seat]
                if pose.rider == "seated":
                    assert offset == 0.0
    assert [e.kind for e in result.events].count("collision") >= 1


@pytest.mark.parametrize("impulse", [0.015, 0.02])
def test_a_rocking_marble_is_never_pinned_in_place(impulse: float) -> None:
    """While it rolls, a marble with a velocity relative to its steed moves
    relative to it (a near-zero update rescaled to the energy's speed once
    pinned it off-centre for the rest of the slide)."""
    w = world()
    w.set_steed(1, 0.0, 0.5, 0.0, on_arena=False)
    w.start_flick(0, 2, 0.0, 0.0, impulse)
    previous = w.rider(0)
    while not w.is_at_rest():
        w.step()
        state, dx, dy, ux, uy = w.rider(0)
        if state == ROLLING_STATE and previous[0] == ROLLING_STATE and (ux or uy):
            assert (dx, dy) != previous[1:3]
        previous = (state, dx, dy, ux, uy)
    assert w.rider(0)[0] == SEATED_STATE
