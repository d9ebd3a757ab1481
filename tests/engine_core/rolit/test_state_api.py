"""The Game API's State methods on the flip games: copies, history, strings."""

from __future__ import annotations

import copy
import pickle
import random

import pytest

import engine_core
from engine_core.rolit import FlipState
from tests.engine_core.rolit.helpers import snapshot, squares


def played(name: str, plies: int, seed: int = 0, **options: int) -> FlipState:
    state = engine_core.load_game(name, **options).new_initial_state()
    rng = random.Random(seed)
    for _ in range(plies):
        state.apply_action(rng.choice(state.legal_actions()))
    assert isinstance(state, FlipState)
    return state


def test_a_state_satisfies_the_state_protocol() -> None:
    assert isinstance(played("rolit", 3, players=4), engine_core.State)
    assert isinstance(engine_core.load_game("othello"), engine_core.Game)


def test_clone_is_independent() -> None:
    state = played("rolit", 10, players=4)
    before = snapshot(state)
    twin = state.clone()
    assert snapshot(twin) == before
    twin.apply_action(twin.legal_actions()[0])
    assert snapshot(state) == before
    assert snapshot(twin) != before
    assert twin.game is state.game


def test_child_equals_clone_then_apply() -> None:
    state = played("othello", 12)
    for action in state.legal_actions():
        twin = state.clone()
        twin.apply_action(action)
        assert snapshot(state.child(action)) == snapshot(twin)


def test_child_of_an_illegal_action_raises_and_leaves_the_parent() -> None:
    state = played("rolit", 5, players=2)
    before = snapshot(state)
    with pytest.raises(engine_core.IllegalAction):
        state.child(squares("a1")[0])
    assert snapshot(state) == before


def test_history_replays_to_the_same_state() -> None:
    state = played("rolit", 40, seed=3, players=3)
    replay = engine_core.load_game("rolit", players=3).new_initial_state()
    for action in state.history():
        replay.apply_action(action)
    assert snapshot(replay) == snapshot(state)
    assert state.move_number() == 40


@pytest.mark.parametrize("name", ["rolit", "othello"])
def test_pickle_and_deepcopy_round_trip(name: str) -> None:
    state = played(name, 25, seed=4)
    for twin in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state)):
        assert type(twin) is type(state)
        assert snapshot(twin) == snapshot(state)
        assert twin.game.options() == state.game.options()
        twin.apply_action(twin.legal_actions()[0])
        assert snapshot(twin) != snapshot(state)


def test_no_chance_in_the_flip_games() -> None:
    state = played("rolit", 2, players=4)
    assert not state.is_chance_node()
    assert state.chance_outcomes() == []


def test_str_draws_the_board_scores_and_turn() -> None:
    text = str(engine_core.load_game("rolit", players=4).new_initial_state())
    lines = text.splitlines()
    assert lines[0].split() == list("abcdefgh")
    assert lines[4].split() == ["5", ".", ".", ".", "B", "G", ".", ".", ".", "5"]
    assert lines[5].split() == ["4", ".", ".", ".", "R", "Y", "*", ".", ".", "4"]
    assert lines[-1] == "red 1  yellow 1  green 1  blue 1 | to move: seat 0 (red)"
    assert str(played("rolit", 60, players=2)).endswith("| game over")


def test_str_round_trips_through_a_diagram() -> None:
    state = played("othello", 30, seed=9)
    game = state.game
    again = game.state_from_diagram(str(state), to_move=state.current_player())
    assert again.board() == state.board()


def test_repr_names_the_game_and_the_moves() -> None:
    state = engine_core.load_game("rolit", players=2).new_initial_state()
    state.apply_action(squares("f4")[0])
    assert repr(state) == "<load_game('rolit', players=2, first_seat=0) after [f4]>"


def test_zobrist_hash_depends_on_the_position_not_the_path() -> None:
    game = engine_core.load_game("othello")
    one = game.new_initial_state()
    two = game.new_initial_state()
    for action in squares("d3", "c3", "c4"):
        one.apply_action(action)
    for action in squares("c4", "c3", "d3"):
        two.apply_action(action)
    assert one.history() != two.history()
    assert one.board() == two.board()
    assert one.zobrist_hash() == two.zobrist_hash()
    assert one.zobrist_hash() != game.new_initial_state().zobrist_hash()
    other_seat = game.state_from_board(one.board(), 1 - one.current_player())  # type: ignore[attr-defined]
    assert other_seat.zobrist_hash() != one.zobrist_hash()


def test_zobrist_hashes_of_many_positions_are_distinct() -> None:
    seen: dict[int, list[int]] = {}
    for seed in range(30):
        state = played("rolit", 0, players=4)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            previous = seen.setdefault(state.zobrist_hash(), state.board())
            assert previous == state.board()


def test_captures_mask_is_mobility_for_any_seat() -> None:
    state = engine_core.load_game("othello").new_initial_state()
    assert isinstance(state, FlipState)
    assert state.captures_mask(0) == state.legal_mask()
    white = sum(1 << s for s in squares("c5", "d6", "e3", "f4"))
    assert state.captures_mask(1) == white
    with pytest.raises(ValueError, match="no seat 2"):
        state.captures_mask(2)


def test_with_turn_hands_the_move_to_another_seat() -> None:
    state = played("rolit", 6, players=4)
    before = snapshot(state)
    other = state.with_turn(3)
    assert snapshot(state) == before
    assert other.current_player() == 3
    assert other.board() == state.board()
    assert other.history() == state.history()
    assert other.legal_actions() == state.with_turn(3).legal_actions()
    with pytest.raises(ValueError, match="no seat 4"):
        state.with_turn(4)
    with pytest.raises(engine_core.IllegalAction, match="game is over"):
        played("rolit", 60, players=2).with_turn(0)
