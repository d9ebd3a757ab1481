"""The Game API around the flick: validation, text forms, sampling, determinism."""

from __future__ import annotations

import copy
import math
import pickle
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine_core
from engine_core.api import MalformedAction
from engine_core.volta import DEFAULT_PHYSICS, Flick, VoltaState, action_space

DETERMINISTIC = settings(derandomize=True, deadline=None, max_examples=200)
SPACE = action_space()


def new_state(**options: object) -> VoltaState:
    state = engine_core.load_game("volta", **options).new_initial_state()
    assert isinstance(state, VoltaState)
    return state


def test_action_space_bounds() -> None:
    assert SPACE.sides == (0, 1, 2, 3)
    assert SPACE.offset == (-1.0, 1.0)
    assert SPACE.angle == (-DEFAULT_PHYSICS.max_push_angle, DEFAULT_PHYSICS.max_push_angle)
    assert 0 < SPACE.angle[1] < math.pi / 2  # always pushes into the steed
    assert SPACE.impulse == (DEFAULT_PHYSICS.min_impulse, DEFAULT_PHYSICS.max_impulse)
    assert 0.0 < SPACE.impulse[0] < SPACE.impulse[1]  # a nudge at the least: no pass
    assert new_state().action_space() == SPACE


BAD_FLICKS: list[tuple[Any, str]] = [
    ((0, 0.0, 0.0, 0.01), "Flick"),
    ("side=0 offset=0 angle=0 impulse=0.01", "Flick"),
    (Flick(4, 0.0, 0.0, 0.01), "side"),
    (Flick(-1, 0.0, 0.0, 0.01), "side"),
    (Flick(True, 0.0, 0.0, 0.01), "side"),
    (Flick(1.0, 0.0, 0.0, 0.01), "side"),  # type: ignore[arg-type]
    (Flick(0, 1.5, 0.0, 0.01), "offset"),
    (Flick(0, float("nan"), 0.0, 0.01), "offset"),
    (Flick(0, 0.0, 1.2, 0.01), "angle"),
    (Flick(0, 0.0, float("-inf"), 0.01), "angle"),
    (Flick(0, 0.0, 0.0, -0.001), "impulse"),
    (Flick(0, 0.0, 0.0, 0.0), "impulse"),  # no pass
    (Flick(0, 0.0, 0.0, 0.0028), "impulse"),  # once too weak to move the steed
    (Flick(0, 0.0, 0.0, math.nextafter(DEFAULT_PHYSICS.min_impulse, 0.0)), "impulse"),
    (Flick(0, 0.0, 0.0, 0.2), "impulse"),
    (Flick(0, 0.0, 0.0, float("inf")), "impulse"),
    (Flick(0, 0.0, 0.0, float("nan")), "impulse"),
    (Flick(0, 0.0, 0.0, "0.01"), "impulse"),  # type: ignore[arg-type]
    (Flick(0, 10**400, 0.0, 0.01), "offset"),  # too large for a float
    (Flick(0, 0.0, -(10**400), 0.01), "angle"),
    (Flick(0, 0.0, 0.0, 10**400), "impulse"),
    (Flick(10**400, 0.0, 0.0, 0.01), "side"),
    (Flick(0, 0.0, 0.0, complex(0.01)), "impulse"),  # type: ignore[arg-type]
    (Flick(0, 0.0, 0.0, None), "impulse"),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("flick", "reason"), BAD_FLICKS)
def test_malformed_flicks_are_refused_with_a_reason_and_change_nothing(
    flick: Any, reason: str
) -> None:
    state = new_state()
    state.apply_action(Flick(1, 0.1, 0.0, 0.015))
    before = (state.world.snapshot(), list(state.scores()), state.history(), state.current_player())
    with pytest.raises(MalformedAction, match=reason):
        state.apply_action(flick)
    with pytest.raises(engine_core.IllegalAction):
        state.simulate(flick)
    after = (state.world.snapshot(), list(state.scores()), state.history(), state.current_player())
    assert after == before


@pytest.mark.parametrize(
    "text",
    [
        "",
        "side=0",
        "side=0 offset=0 angle=0 impulse=0.01 extra=1",
        "side=0 offset=0 angle=0 impulse=zero",
        "side=0 side=1 angle=0 impulse=0.01",
        "side=0 offset=0 angle=0 impulse=nan",
        "side=5 offset=0 angle=0 impulse=0.01",
        "0 0 0 0.01",
    ],
)
def test_bad_strings_are_malformed(text: str) -> None:
    with pytest.raises(MalformedAction):
        new_state().string_to_action(text)


flicks = st.builds(
    Flick,
    side=st.integers(0, 3),
    offset=st.floats(*SPACE.offset),
    angle=st.floats(*SPACE.angle),
    impulse=st.floats(*SPACE.impulse),
)


@DETERMINISTIC
@given(flicks)
def test_strings_and_reprs_round_trip(flick: Flick) -> None:
    state = new_state()
    text = state.action_to_string(flick)
    assert state.string_to_action(text) == flick
    assert eval(repr(flick), {"Flick": Flick}) == flick


def test_numpy_and_other_real_numbers_are_flick_fields_like_floats() -> None:
    """A client computing flicks with numpy may send float32 (which is no
    Python float) or int64: they mean the float they stand for."""
    from fractions import Fraction

    import numpy as np

    plain = new_state()
    plain.apply_action(Flick(2, float(np.float32(0.25)), 0.1, float(np.float32(0.02))))
    for flick in [
        Flick(np.int64(2), np.float32(0.25), np.float64(0.1), np.float32(0.02)),  # type: ignore[arg-type]
        Flick(2, np.float32(0.25), 0.1, np.float32(0.02)),  # type: ignore[arg-type]
    ]:
        state = new_state()
        state.apply_action(flick)
        assert state.world.snapshot() == plain.world.snapshot()
        assert state.history() == plain.history()
        recorded = state.history()[0]
        assert [type(v) for v in (recorded.offset, recorded.angle, recorded.impulse)] == [float] * 3
        assert type(recorded.side) is int
    fraction = new_state()
    fraction.apply_action(Flick(2, Fraction(1, 4), Fraction(1, 10), Fraction(1, 50)))
    assert fraction.history() == [Flick(2, 0.25, 0.1, 0.02)]
    with pytest.raises(MalformedAction, match="side"):
        new_state().apply_action(Flick(np.bool_(True), 0.0, 0.0, 0.02))  # type: ignore[arg-type]
    with pytest.raises(MalformedAction, match="impulse"):
        new_state().apply_action(Flick(0, 0.0, 0.0, np.float32("nan")))  # type: ignore[arg-type]


@pytest.mark.parametrize("count", [-1, -(10**30), 1.5, 2.0, True, "3", None])
def test_sample_actions_wants_a_count(count: Any) -> None:
    with pytest.raises(ValueError, match="int >= 0"):
        new_state().sample_actions(count, random.Random(0))


def test_sample_actions_is_seeded_and_in_bounds() -> None:
    state = new_state()
    first = state.sample_actions(500, random.Random(5))
    assert first == state.sample_actions(500, random.Random(5))
    assert first != state.sample_actions(500, random.Random(6))
    for flick in first:
        assert flick.side in SPACE.sides
        assert SPACE.offset[0] <= flick.offset <= SPACE.offset[1]
        assert SPACE.angle[0] <= flick.angle <= SPACE.angle[1]
        assert SPACE.impulse[0] <= flick.impulse <= SPACE.impulse[1]
    assert {f.side for f in first} == {0, 1, 2, 3}


def test_legal_actions_are_a_legal_representative_grid() -> None:
    state = new_state()
    actions = state.legal_actions()
    assert len(actions) == len(set(actions)) == 180
    for flick in actions:
        assert state.string_to_action(state.action_to_string(flick)) == flick
    impulses = sorted({f.impulse for f in actions})
    assert impulses[-1] == DEFAULT_PHYSICS.max_impulse


def test_text_drawing_shows_arena_steeds_riders_and_score() -> None:
    state = new_state(dents=("large", "small"))
    text = str(state)
    assert text.count("@") == 2
    assert "A" in text
    assert "B" in text
    assert "." in text
    assert "score 0-0 | to flick: seat 0" in text
    assert "small dent" in text
    rows = text.splitlines()
    west = next(row for row in rows if "A" in row)
    assert west.index("A") < west.index("B")  # seat 0 starts west
    state.apply_action(Flick(2, 0.0, 0.0, DEFAULT_PHYSICS.max_impulse))
    assert "score 0-1 | to flick: seat 0" in str(state)


def gentler(flick: Flick, share: float) -> Flick:
    """``flick`` with its impulse moved towards the minimum by ``share`` (in
    [0, 1)) squared: mostly gentle, as players are."""
    low, high = SPACE.impulse
    return Flick(flick.side, flick.offset, flick.angle, low + (high - low) * share**2)


def play(seed: int, record: bool) -> tuple[VoltaState, list[Any]]:
    state = new_state(dents=("large", "small"), rider_masses=(0.005, 0.007), swap_every=5)
    rng = random.Random(seed)
    log = []
    while not state.is_terminal() and len(state.history()) < 300:
        flick = state.sample_actions(1, rng)[0]
        flick = gentler(flick, rng.random())
        result = state.apply_flick(flick, record=record)
        log.append(result)
    return state, log


def test_seeded_games_replay_bit_identically() -> None:
    first, first_log = play(11, record=True)
    second, second_log = play(11, record=True)
    assert first.world.snapshot() == second.world.snapshot()
    assert first.scores() == second.scores()
    assert first.history() == second.history()
    assert first_log == second_log  # frames and events, float for float
    replay = new_state(dents=("large", "small"), rider_masses=(0.005, 0.007), swap_every=5)
    for flick in first.history():
        replay.apply_action(flick)
    assert replay.world.snapshot() == first.world.snapshot()


def test_random_games_end_with_zero_sum_returns() -> None:
    for seed in range(3):
        state, _ = play(seed, record=False)
        assert state.is_terminal(), state.scores()
        assert sum(state.returns()) == 0.0
        assert sorted(state.returns()) == [-1.0, 1.0]
        high, low = max(state.scores()), min(state.scores())
        assert (high >= 10 and high - low == 2) or (high == 10 and low <= 8)


def test_clone_and_child_are_independent() -> None:
    state = new_state()
    flick = Flick(2, 0.3, 0.1, 0.015)
    clone = state.clone()
    child = state.child(flick)
    assert state.history() == []
    assert clone.history() == []
    assert child.history() == [flick]
    assert clone.world.snapshot() == state.world.snapshot()
    assert child.world.snapshot() != state.world.snapshot()
    clone.apply_action(flick)
    assert clone.world.snapshot() == child.world.snapshot()
    assert state.simulate(flick, record=False).frames == ()


DETERMINISM_SCRIPT = """
import random
import engine_core
from engine_core.volta import Flick
state = engine_core.load_game("volta", dents=("large", "small")).new_initial_state()
rng = random.Random(3)
while not state.is_terminal() and len(state.history()) < 40:
    f = state.sample_actions(1, rng)[0]
    low, high = state.action_space().impulse
    state.apply_action(Flick(f.side, f.offset, f.angle, low + (high - low) * rng.random() ** 2))
print(repr(state.world.snapshot()), state.scores())
"""


def test_another_process_computes_the_same_bits() -> None:
    """Nothing depends on memory layout, hash seeds or leftovers: a fresh
    interpreter plays the same flicks to the same numbers."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONHASHSEED": "123"}
    other = subprocess.run(
        [sys.executable, "-c", DETERMINISM_SCRIPT],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout.strip()
    namespace: dict[str, Any] = {}
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(DETERMINISM_SCRIPT, namespace)
    assert other == buffer.getvalue().strip()


def test_time_cap_ends_a_flick_and_says_so() -> None:
    import dataclasses

    from engine_core.volta import World

    physics = dataclasses.replace(DEFAULT_PHYSICS, time_cap=0.02)
    rim = physics.large_dent.rim_radius
    w = World(physics, (physics.rider_mass, physics.rider_mass), (rim, rim))
    w.start_flick(0, 2, 0.0, 0.0, 0.05)
    _, frames, capped = w.run(record=True)
    assert capped
    assert w.time == pytest.approx(0.02)
    assert frames is not None
    assert frames[-1][0] == w.time


def test_states_pickle_for_worker_processes() -> None:
    """A state crosses to another process (an AI worker) by pickle and plays
    on bit-identically: same score, history, poses and next flicks."""
    game = engine_core.load_game("volta", swap_every=5, rider_masses=(0.005, 0.008))
    state = game.new_initial_state()
    rng = random.Random(4)
    for _ in range(12):
        state.apply_action(Flick(side=rng.randrange(4), impulse=rng.uniform(0.012, 0.02)))
    for twin in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state)):
        assert twin.history() == state.history()
        assert twin.scores() == state.scores()
        assert twin.current_player() == state.current_player()
        assert str(twin) == str(state)
        for seat in (0, 1):
            assert twin.world.steed(seat) == state.world.steed(seat)
            assert twin.rider_mass(seat) == state.rider_mass(seat)
        original = state.clone()
        for flick in state.sample_actions(5, random.Random(1)):
            assert twin.apply_flick(flick) == original.apply_flick(flick)
