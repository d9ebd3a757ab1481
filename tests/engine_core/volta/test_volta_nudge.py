"""No pass: "Move your steed by nudging it with a finger." Every legal flick
moves the mover's steed measurably (the minimum impulse, stated in the
action space's bounds), so a passive player cannot stall a match."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine_core
from engine_core.api import MalformedAction
from engine_core.volta import DEFAULT_PHYSICS, Flick, VoltaState
from engine_core.volta.rules import RIDER_MASS_RANGE

from .helpers import world

P = DEFAULT_PHYSICS
LOW, HIGH = P.min_impulse, P.max_impulse
PROPERTY = settings(derandomize=True, deadline=None, max_examples=300)
# What "measurably" means here: a free steed's centre moves at least this far
# under the gentlest legal flick, whatever the marble (the heaviest allowed
# is the hardest to move), and this far with the standard marble.
LEAST_MOVE = 0.003  # m
LEAST_MOVE_STANDARD = 0.009  # m

flicks = st.builds(
    Flick,
    side=st.integers(0, 3),
    offset=st.floats(-1.0, 1.0),
    angle=st.floats(-P.max_push_angle, P.max_push_angle),
    impulse=st.one_of(st.just(LOW), st.floats(LOW, 1.5 * LOW), st.floats(LOW, HIGH)),
)


def moved(flick: Flick, heading: float, rider_mass: float, dent: str) -> float:
    """How far the centre of a lone steed turned by ``heading`` moves."""
    w = world(dataclasses.replace(P, arena_radius=1.0), (rider_mass, rider_mass), (dent, dent))
    w.set_steed(0, 0.0, 0.0, heading)
    w.set_steed(1, 0.0, 0.5, 0.0, on_arena=False)
    w.start_flick(0, flick.side, flick.offset, flick.angle, flick.impulse)
    w.run()
    return math.hypot(*w.steed(0)[:2])


@PROPERTY
@given(
    flicks,
    st.floats(-math.pi, math.pi),
    st.floats(*RIDER_MASS_RANGE),
    st.sampled_from(["large", "small"]),
)
def test_every_legal_flick_moves_a_free_steed(
    flick: Flick, heading: float, rider_mass: float, dent: str
) -> None:
    assert moved(flick, heading, rider_mass, dent) >= LEAST_MOVE


@PROPERTY
@given(flicks, st.floats(-math.pi, math.pi), st.sampled_from(["large", "small"]))
def test_with_the_standard_marble_a_nudge_moves_it_about_a_centimetre(
    flick: Flick, heading: float, dent: str
) -> None:
    assert moved(flick, heading, P.rider_mass, dent) >= LEAST_MOVE_STANDARD


@st.composite
def positions(draw: st.DrawFn) -> VoltaState:
    """A match state with both steeds somewhere on the arena, apart."""
    state = engine_core.load_game("volta").new_initial_state()
    assert isinstance(state, VoltaState)
    limit = 0.8 * P.arena_radius
    poses = []
    for _ in range(2):
        radius = draw(st.floats(0.0, limit))
        bearing = draw(st.floats(-math.pi, math.pi))
        poses.append((radius * math.cos(bearing), radius * math.sin(bearing)))
    if math.dist(*poses) < P.steed_side * math.sqrt(2) + 0.001:
        poses[1] = (-poses[0][0], -poses[0][1])  # opposite: apart unless central
        if math.dist(*poses) < P.steed_side * math.sqrt(2) + 0.001:
            poses = [(-P.start_offset, 0.0), (P.start_offset, 0.0)]
    for seat, (x, y) in enumerate(poses):
        state.world.set_steed(seat, x, y, draw(st.floats(-math.pi, math.pi)))
    return state


@PROPERTY
@given(positions(), flicks)
def test_every_legal_flick_in_a_match_moves_the_movers_steed(
    state: VoltaState, flick: Flick
) -> None:
    """Through the Game API, from anywhere on the arena: the mover's steed
    moves (less when it runs into the other steed, but still measurably), or
    leaves the arena (which moves it too)."""
    mover = state.current_player()
    before = state.world.steed(mover)[:2]
    state.apply_action(flick)
    after = state.world.steed(mover)[:2] if state.scores() == [0, 0] else None
    if after is not None:  # (a point resets the steeds: then it scored or fell)
        assert math.dist(before, after) >= LEAST_MOVE


def test_the_bound_is_the_minimum_and_below_it_is_malformed() -> None:
    state = engine_core.load_game("volta").new_initial_state()
    assert state.action_space().impulse == (LOW, HIGH)  # type: ignore[attr-defined]
    for impulse in (0.0, 0.0028, math.nextafter(LOW, 0.0)):
        with pytest.raises(MalformedAction, match="impulse"):
            state.apply_action(Flick(2, 0.0, 0.0, impulse))
    for flick in state.legal_actions():
        assert flick.impulse >= LOW
    sampled = state.sample_actions(500, random.Random(3))  # type: ignore[attr-defined]
    assert min(f.impulse for f in sampled) >= LOW


@pytest.mark.parametrize("side", [0, 1, 2, 3])
def test_pressed_against_the_other_steed_a_nudge_moves_both(side: int) -> None:
    """Pushing into the touching steed, the gentlest flick has both steeds to
    move (twice the friction): it still moves them, if only by a millimetre
    or so with the standard marbles."""
    w = world()
    normal = [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)][side]
    w.set_steed(0, 0.0, 0.0, 0.0)
    w.set_steed(1, -normal[0] * P.steed_side, -normal[1] * P.steed_side, 0.0)
    w.start_flick(0, side, 0.0, 0.0, LOW)
    w.run()
    assert math.hypot(*w.steed(0)[:2]) >= 0.0005
    assert math.hypot(*w.steed(1)[:2]) > 0.0


def test_nudges_alone_end_points() -> None:
    """The issue's stall: 1,000 zero flicks left the score at 0-0. Two
    players who only ever make the gentlest flick, in random directions,
    still move the steeds until one falls."""
    game = engine_core.load_game("volta")
    for seed in range(3):
        state = game.new_initial_state()
        rng = random.Random(seed)
        for _ in range(200):
            side = rng.randrange(4)
            state.apply_action(Flick(side, rng.uniform(-1, 1), 0.0, LOW))
            if state.scores() != [0, 0]:  # type: ignore[attr-defined]
                break
        assert state.scores() != [0, 0]  # type: ignore[attr-defined]
