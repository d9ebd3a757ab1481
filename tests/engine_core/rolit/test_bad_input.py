"""Bad input gets a clear exception and changes nothing."""

from __future__ import annotations

import random

import pytest

import engine_core
from engine_core.rolit import FlipState
from tests.engine_core.rolit.helpers import snapshot, squares


def midgame(players: int = 4, plies: int = 17) -> FlipState:
    state = engine_core.load_game("rolit", players=players).new_initial_state()
    rng = random.Random(plies)
    for _ in range(plies):
        state.apply_action(rng.choice(state.legal_actions()))
    assert isinstance(state, FlipState)
    return state


class Index:
    """An int-like object (as numpy integers are): accepted through __index__."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


@pytest.mark.parametrize(
    "action", [-1, 64, 65, 2**70, -(2**70), "d3", 3.0, float("nan"), None, True, [19], b"d3"]
)
def test_malformed_actions_are_refused_and_change_nothing(action: object) -> None:
    state = midgame()
    before = snapshot(state)
    with pytest.raises(engine_core.MalformedAction, match=r"square index 0\.\.63"):
        state.apply_action(action)  # type: ignore[arg-type]
    assert snapshot(state) == before


def test_int_like_actions_are_accepted() -> None:
    state = midgame()
    action = state.legal_actions()[0]
    twin = state.clone()
    state.apply_action(Index(action))  # type: ignore[arg-type]
    twin.apply_action(action)
    assert snapshot(state) == snapshot(twin)


def test_an_occupied_square_is_refused_and_changes_nothing() -> None:
    state = midgame()
    occupied = next(sq for sq, colour in enumerate(state.board()) if colour != -1)
    before = snapshot(state)
    with pytest.raises(engine_core.IllegalAction, match=r"is occupied"):
        state.apply_action(occupied)
    assert snapshot(state) == before


def test_every_illegal_square_is_refused_with_a_reason() -> None:
    state = midgame(players=3, plies=23)
    before = snapshot(state)
    legal = set(state.legal_actions())
    for square in set(range(64)) - legal:
        with pytest.raises(engine_core.IllegalAction) as error:
            state.apply_action(square)
        assert str(error.value).startswith(engine_core.rolit.SQUARE_NAMES[square])
        assert snapshot(state) == before


def test_moves_after_the_end_are_refused() -> None:
    state = midgame(players=2, plies=60)
    assert state.is_terminal()
    before = snapshot(state)
    for square in range(64):
        with pytest.raises(engine_core.IllegalAction, match=r"the game is over"):
            state.apply_action(square)
    assert snapshot(state) == before


@pytest.mark.parametrize("text", ["", "z9", "d", "d33", "i1", "a0", "pass", "19", None, 19])
def test_bad_action_strings_are_malformed(text: object) -> None:
    state = midgame()
    with pytest.raises(engine_core.MalformedAction):
        state.string_to_action(text)  # type: ignore[arg-type]


@pytest.mark.parametrize("action", [-1, 64, "d3", None, True])
def test_action_to_string_refuses_non_squares(action: object) -> None:
    with pytest.raises(engine_core.MalformedAction):
        midgame().action_to_string(action)  # type: ignore[arg-type]


def test_action_strings_round_trip() -> None:
    state = midgame()
    for square in range(64):
        assert state.string_to_action(state.action_to_string(square)) == square
    assert state.string_to_action(" D3 ") == squares("d3")[0]


@pytest.mark.parametrize(
    "options",
    [
        {"players": 1},
        {"players": 5},
        {"players": "4"},
        {"players": True},
        {"players": 2.0},
        {"players": 4, "first_seat": 4},
        {"players": 3, "first_seat": -1},
        {"first_seat": "0"},
    ],
)
def test_invalid_options_are_a_clear_value_error(options: dict[str, object]) -> None:
    with pytest.raises(ValueError, match=r"rolit: (players|first_seat) must be one of"):
        engine_core.load_game("rolit", **options)


def test_othello_takes_no_options() -> None:
    with pytest.raises(ValueError, match=r"othello.*its options: none"):
        engine_core.load_game("othello", players=4)


@pytest.mark.parametrize(
    ("board", "to_move", "message"),
    [
        ([-1] * 63, 0, "64 squares"),
        ([-1] * 64, 0, "at least one ball"),
        ([4] + [-1] * 63, 0, "colour 0..3"),
        ([0] + [-1] * 63, 4, "to_move"),
    ],
)
def test_state_from_board_validates(board: list[int], to_move: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        engine_core.load_game("rolit").state_from_board(board, to_move)  # type: ignore[attr-defined]


def test_othello_boards_hold_two_colours() -> None:
    with pytest.raises(ValueError, match=r"colour 0..1"):
        engine_core.load_game("othello").state_from_board([2] + [-1] * 63, 0)  # type: ignore[attr-defined]
