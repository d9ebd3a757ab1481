"""The Game API surface of Volleyball Returns: options, strings, errors,
atomic turns, seeded dice, the drawing."""

from __future__ import annotations

import copy
import pickle
import random

import pytest

import engine_core
from engine_core import CHANCE, IllegalAction, MalformedAction, State
from engine_core.volleyball import VolleyballGame, VolleyballState, _core
from engine_core.volleyball import actions as act

from .helpers import SERVER, new_state, places, play, served, snapshot

NO_LINES = [(1, 1), (3, 1), (5, 1), (2, 3), (4, 3), (6, 3)]


def test_registered_with_its_options() -> None:
    assert "volleyball" in engine_core.registered_games()
    game = engine_core.load_game(
        "volleyball", big_leagues=True, underdog_boost=True, first_seat=1, seed=5
    )
    assert isinstance(game, VolleyballGame)
    assert game.num_players() == 2
    assert game.options() == {
        "big_leagues": True, "underdog_boost": True, "first_seat": 1, "seed": 5,
    }  # fmt: skip
    assert repr(game) == (
        "load_game('volleyball', big_leagues=True, underdog_boost=True, first_seat=1, seed=5)"
    )
    state = game.new_initial_state()
    assert isinstance(state, State)
    assert state.current_player() == 1


@pytest.mark.parametrize(
    "options",
    [{"big_leagues": 1}, {"underdog_boost": "yes"}, {"first_seat": 2}, {"seed": 1.5},
     {"players": 3}],
)  # fmt: skip
def test_bad_options_are_refused(options: dict[str, object]) -> None:
    with pytest.raises((ValueError, TypeError)):
        engine_core.load_game("volleyball", **options)


def test_core_encoding_matches_the_python_encoding() -> None:
    assert _core.ENCODING == {
        "NUM_SQUARES": act.NUM_SQUARES, "PLACE_BASE": act.PLACE_BASE,
        "SERVE_BASE": act.SERVE_BASE, "STEP_BASE": act.STEP_BASE, "END": act.END,
        "LAND_BASE": act.LAND_BASE, "ROLL": act.ROLL, "DICE_BASE": act.DICE_BASE,
        "NUM_DISTINCT_ACTIONS": act.NUM_DISTINCT_ACTIONS,
    }  # fmt: skip


@pytest.mark.parametrize("height", [3, 6])
def test_every_well_formed_action_round_trips_through_its_string(height: int) -> None:
    well_formed = 0
    for action in range(act.NUM_DISTINCT_ACTIONS):
        try:
            text = act.action_to_string(action, height)
        except MalformedAction:
            continue
        well_formed += 1
        assert act.string_to_action(text, height) == action
    # place, serve, land: 7 columns x height; 8 directions that stay on the side.
    assert well_formed > 3 * 7 * height + 3 + 36


def test_strings_read_as_the_issue_writes_them() -> None:
    state = new_state()
    assert state.action_to_string(state.string_to_action("place c2")) == "place 3,2"
    assert state.string_to_action("place 3,2") == act.place_action(3, 2)
    assert state.string_to_action(" STEP 3,2->2,2 ") == act.step_action((3, 2), (2, 2))
    assert state.string_to_action("step c2-b2") == act.step_action((3, 2), (2, 2))
    assert state.string_to_action("end") == act.END
    assert state.string_to_action("roll") == act.ROLL
    assert state.string_to_action("dice 4,5") == act.dice_action(4, 5)
    assert state.action_to_string(act.dice_action(4, 5)) == "dice 4,5"
    assert state.action_to_string(act.serve_action(6, 2)) == "serve 6,2"
    assert state.action_to_string(act.land_action(1, 3)) == "land 1,3"


@pytest.mark.parametrize(
    "text",
    ["", "place", "place 3,4", "place 8,1", "step 3,2->5,2", "dice 7,1", "dice 0,3",
     "jump 1,1", "land 0,1", "step 1,1->0,1"],
)  # fmt: skip
def test_malformed_strings(text: str) -> None:
    with pytest.raises(MalformedAction):
        new_state().string_to_action(text)


@pytest.mark.parametrize("action", [-1, act.NUM_DISTINCT_ACTIONS, "end", 3.0, True, None,
                                    act.place_action(1, 4)])  # fmt: skip
def test_malformed_actions_are_refused_with_the_state_unchanged(action: object) -> None:
    state = new_state()
    before = snapshot(state)
    with pytest.raises(MalformedAction):
        state.apply_action(action)  # type: ignore[arg-type]
    assert snapshot(state) == before


def test_whole_turns_apply_atomically() -> None:
    """A client's whole receive is one list: all or nothing, and the error
    says which action failed and why."""
    state = play(served([(1, 2), (2, 2), (4, 2), (6, 1), (6, 3), (3, 3)]), "dice 1,3")
    before = snapshot(state)
    turn = [state.string_to_action(s) for s in ("step 4,2->3,2", "step 3,2->3,1", "end")]
    with pytest.raises(IllegalAction, match=r"action 1 \(step 3,2->3,1\): .*already moved"):
        state.apply_actions(turn)
    assert snapshot(state) == before
    with pytest.raises(MalformedAction, match=r"action 1 \(-5\)"):
        state.apply_actions([turn[0], -5])
    assert snapshot(state) == before
    with pytest.raises(IllegalAction, match="not seat 0's turn"):
        state.apply_actions(turn, player=0)
    assert snapshot(state) == before
    state.apply_actions([turn[0], turn[2]], player=1)
    assert state.scores() == [0, 0]
    assert state.current_player() == CHANCE
    assert state.history()[-2:] == [turn[0], turn[2]]


def test_seeded_dice_replay_and_clones_continue_the_stream() -> None:
    """The seed drives sample_chance_outcome; the history holds the dice, so
    replaying it rebuilds the match exactly."""

    def rolls(state: VolleyballState) -> list[int]:
        out = []
        for _ in range(3):  # three points of the four a game lasts here
            outcome = state.sample_chance_outcome()
            out.append(outcome)
            state.apply_action(outcome)
            play(state, "end")
            if state.phase() == "place":
                play(state, *places(SERVER), *places(NO_LINES), "serve 6,2")
        return out

    one, two = served(NO_LINES), served(NO_LINES)
    copy = one.clone()
    assert rolls(one) == rolls(two) == rolls(copy)
    other = engine_core.load_game("volleyball", seed=1).new_initial_state()
    play(other, *places(SERVER), *places(NO_LINES), "serve 6,2")
    assert rolls(other) != rolls(served(NO_LINES))

    replay = engine_core.load_game("volleyball").new_initial_state()
    for action in one.history():
        replay.apply_action(action)
    assert str(replay) == str(one)
    assert replay.history() == one.history()


def test_sampling_with_a_caller_rng_and_outside_chance() -> None:
    state = served(NO_LINES)
    outcome = state.sample_chance_outcome(random.Random(3))
    assert outcome in state.legal_actions()
    play(state, "dice 1,1")
    with pytest.raises(IllegalAction, match="no dice are rolling"):
        state.sample_chance_outcome()


def test_clone_and_child_are_independent() -> None:
    state = served(NO_LINES)
    before = snapshot(state)
    child = state.child(act.dice_action(2, 2))
    clone = state.clone()
    play(clone, "dice 3,3", "end")
    assert snapshot(state) == before
    assert child.landing() == act.square(2, 1)
    assert clone.scores() == [1, 0]


def test_the_drawing_shows_both_sides_the_net_the_ball_scores_and_turn() -> None:
    state = play(served(NO_LINES), "dice 3,5")
    text = str(state)
    lines = text.splitlines()
    assert lines[0].startswith("seat 0 (X) 0 : 0 seat 1 (O)")
    assert "serving: seat 0" in lines[0]
    # Row 3: seat 0 has its serving piece nowhere here, 2,3 and 4,3 on court;
    # seat 1 has 2,3 4,3 6,3 and the ball on the empty 3,3.
    row3 = next(line for line in lines if line.startswith("  3"))
    assert row3 == "  3  .   . . X . X . | . O * O . O   .  3"
    row2 = next(line for line in lines if line.startswith("  2"))
    assert row2 == "  2  X   . . . . . . | . . . . . .   .  2"
    assert "lands on seat 1's side at 3,3 (dice 3,5)" in text
    assert lines[-1].startswith("to move: seat 1 (O): move up to 3 pieces")
    over = new_state()
    for _ in range(4):
        play(over, *places(SERVER), *places(NO_LINES), "serve 6,2", "dice 1,3", "end")
    assert "seat 0 wins" in str(over)
    assert str(over).splitlines()[-1] == "game over"
    assert repr(state).startswith("<load_game('volleyball'")
    assert "dice 3,5]>" in repr(state)


@pytest.mark.parametrize("options", [{}, {"big_leagues": True, "underdog_boost": True}])
def test_states_pickle_for_worker_processes(options: dict[str, bool]) -> None:
    """A state crosses to another process (an AI worker) by pickle: same
    position, history, legal actions and dice stream."""
    game = engine_core.load_game("volleyball", seed=9, **options)
    state = game.new_initial_state()
    rng = random.Random(9)
    while state.phase() != "receive":
        if state.is_chance_node():
            state.apply_action(state.sample_chance_outcome())
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    for twin in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state)):
        assert type(twin) is type(state)
        assert twin.history() == state.history()
        assert str(twin) == str(state)
        assert twin.legal_actions() == state.legal_actions()
        assert twin.intercept_plan() == state.intercept_plan()
        assert twin.game.options() == game.options()
        end = state.clone()
        end.apply_action(act.END)
        twin.apply_action(act.END)
        if end.is_chance_node():
            assert twin.sample_chance_outcome() == end.sample_chance_outcome()
