"""Match rules: who scores, resets, first flicker, win by two, swaps, options."""

from __future__ import annotations

import pytest

import engine_core
from engine_core.api import TERMINAL
from engine_core.volta import DEFAULT_PHYSICS, Flick, VoltaState
from engine_core.volta._physics import SEATED_STATE

MAX = DEFAULT_PHYSICS.max_impulse
HALF = DEFAULT_PHYSICS.steed_side / 2
START = DEFAULT_PHYSICS.start_offset
THROW_OWN_RIDER = Flick(2, 0.0, 0.0, MAX)
GENTLE = Flick(0, 0.0, 0.0, 0.015)


def new_state(**options: object) -> VoltaState:
    state = engine_core.load_game("volta", **options).new_initial_state()
    assert isinstance(state, VoltaState)
    return state


def at_start(state: VoltaState) -> bool:
    w = state.world
    return (
        w.steed(0) == (-START, 0.0, 0.0, 0.0, 0.0, 0.0)
        and w.steed(1) == (START, 0.0, 0.0, 0.0, 0.0, 0.0)
        and w.on_arena(0)
        and w.on_arena(1)
        and w.rider(0)[0] == w.rider(1)[0] == SEATED_STATE
    )


def test_starting_position() -> None:
    state = new_state()
    assert at_start(state)
    assert state.current_player() == 0
    assert new_state(first_seat=1).current_player() == 1
    scores = state.scores()
    assert scores == [0, 0]
    scores[0] = 5  # a copy: the state's own score is unchanged
    assert state.scores() == [0, 0]
    assert not state.is_chance_node()
    assert state.chance_outcomes() == []
    assert state.returns() == [0.0, 0.0]
    assert isinstance(state, engine_core.State)


def test_pushing_the_opponent_off_the_arena_scores() -> None:
    state = new_state()
    edge = DEFAULT_PHYSICS.arena_radius
    state.world.set_steed(1, edge - 0.006, 0.0, 0.0)
    state.world.set_steed(0, edge - 0.006 - 2 * HALF - 0.003, 0.0, 0.0)
    result = state.apply_flick(Flick(2, 0.0, 0.0, 0.02), record=True)
    kinds = [(e.kind, e.seat) for e in result.events]
    assert ("steed_fall", 1) in kinds
    assert ("steed_fall", 0) not in kinds
    assert ("rider_fall", 0) not in kinds
    assert result.point_to == 0
    assert state.scores() == [1, 0]
    assert state.current_player() == 1  # the loser starts
    assert at_start(state)
    assert not result.frames[-1].steeds[1].on_arena


def test_both_steeds_off_gives_the_point_to_the_movers_opponent() -> None:
    """Seat 1, by the west edge, clips seat 0's steed over the edge and slides
    after it, keeping its rider: both steeds off, so seat 0 scores."""
    state = new_state(first_seat=1)
    # (a scene that keeps this outcome when the flick is changed by a few %)
    state.world.set_steed(1, -0.1089, -0.0197, 0.437)
    state.world.set_steed(0, -0.1116, 0.039, 0.445)
    result = state.apply_flick(Flick(0, 0.54, -0.51, 0.0147), record=True)
    kinds = {(e.kind, e.seat) for e in result.events}
    assert {("steed_fall", 0), ("steed_fall", 1), ("collision", None)} <= kinds
    assert ("rider_fall", 1) not in kinds
    assert result.point_to == 0
    assert state.scores() == [1, 0]
    assert state.current_player() == 1


def test_own_rider_down_outweighs_knocking_the_opponent() -> None:
    """Seat 0 throws the opponent's rider but loses its own: the point goes to
    the opponent ("the point always goes to your opponent")."""
    state = new_state()
    state.world.set_steed(0, -2 * HALF - 0.002, 0.0, 0.0)
    state.world.set_steed(1, 0.0, 0.0, 0.0)
    result = state.apply_flick(Flick(2, 0.0, 0.0, MAX))
    fallen = {e.seat for e in result.events if e.kind in ("rider_fall", "steed_fall")}
    assert 0 in fallen
    assert 1 in fallen
    assert result.point_to == 1


@pytest.mark.parametrize("impulse", [0.03, 0.036, 0.042])
def test_knocking_the_opponents_rider_off_scores(impulse: float) -> None:
    """A firm flick 3 mm behind the other steed hits it while the finger
    still pushes: the hit throws its rider, while the mover's marble, pressed
    back by the push, takes the jolt and stays."""
    state = new_state(dents=("large", "small"))
    state.world.set_steed(0, -2 * HALF - 0.003, 0.0, 0.0)
    state.world.set_steed(1, 0.0, 0.0, 0.0)
    result = state.apply_flick(Flick(2, 0.0, 0.0, impulse))
    assert [(e.kind, e.seat) for e in result.events if e.kind != "collision"] == [("rider_fall", 1)]
    assert result.point_to == 0


def play_points(state: VoltaState, winners: list[int]) -> None:
    """Gives each listed seat a point: the player to move throws its own
    rider when the point should go to the other, else passes the turn with
    a gentle flick first."""
    for winner in winners:
        if state.current_player() == winner:
            state.apply_action(GENTLE)
        assert state.current_player() == 1 - winner
        before = list(state.scores())
        state.apply_action(THROW_OWN_RIDER)
        before[winner] += 1
        assert state.scores() == before


def test_first_to_ten_with_a_lead_of_two() -> None:
    state = new_state()
    play_points(state, [1] * 9)
    assert state.scores() == [0, 9]
    assert not state.is_terminal()
    play_points(state, [1])
    assert state.is_terminal()
    assert state.current_player() == TERMINAL
    assert state.returns() == [-1.0, 1.0]
    assert state.legal_actions() == []
    with pytest.raises(engine_core.IllegalAction):
        state.apply_action(GENTLE)


def test_ten_nine_plays_on_until_a_lead_of_two() -> None:
    state = new_state()
    play_points(state, [0, 1] * 9)
    assert state.scores() == [9, 9]
    play_points(state, [0])
    assert state.scores() == [10, 9]
    assert not state.is_terminal()
    play_points(state, [1, 0, 1, 1])
    assert state.scores() == [11, 12]
    assert not state.is_terminal()
    play_points(state, [1])
    assert state.scores() == [11, 13]
    assert state.is_terminal()
    assert state.returns() == [-1.0, 1.0]


def test_swap_every_five_points_exchanges_the_marbles() -> None:
    state = new_state(rider_masses=(0.004, 0.012), swap_every=5, dents=("small", "large"))
    assert state.world.rider_mass(0) == 0.004
    assert state.world.rider_mass(1) == 0.012
    play_points(state, [0, 1, 0, 1])
    assert not state.swapped()
    assert state.world.rider_mass(0) == 0.004
    play_points(state, [0])
    assert state.swapped()
    assert state.world.rider_mass(0) == 0.012
    assert state.world.rider_mass(1) == 0.004
    assert state.rider_mass(0) == 0.012
    play_points(state, [1] * 5)
    assert not state.swapped()
    assert state.world.rider_mass(0) == 0.004
    no_swap = new_state(rider_masses=(0.004, 0.012))
    play_points(no_swap, [0] * 5)
    assert no_swap.world.rider_mass(0) == 0.004


@pytest.mark.parametrize(
    "options",
    [
        {"dents": ("large", "medium")},
        {"dents": ("large",)},
        {"dents": "large"},
        {"rider_masses": (0.005, 0.0)},
        {"rider_masses": (0.005, float("nan"))},
        {"rider_masses": (0.005, True)},
        {"swap_every": 3},
        {"swap_every": 5.0},
        {"first_seat": 2},
        {"colour": "red"},
    ],
)
def test_bad_options_are_refused(options: dict[str, object]) -> None:
    with pytest.raises((ValueError, TypeError)):
        engine_core.load_game("volta", **options)


def test_options_round_trip() -> None:
    game = engine_core.load_game(
        "volta", dents=["small", "large"], rider_masses=(0.004, 0.006), swap_every=5
    )
    assert game.options() == {
        "dents": ("small", "large"),
        "rider_masses": (0.004, 0.006),
        "swap_every": 5,
        "first_seat": 0,
    }
    assert engine_core.load_game("volta", **game.options()).options() == game.options()
    assert game.num_players() == 2
    assert "volta" in engine_core.registered_games()
