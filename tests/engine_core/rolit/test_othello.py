"""Standard Othello on the flip core: two colours, passes, the end."""

from __future__ import annotations

import pytest

import engine_core
from engine_core.rolit import BLACK, PASS, WHITE, OthelloGame
from tests.engine_core.rolit.helpers import squares


def othello() -> OthelloGame:
    game = engine_core.load_game("othello")
    assert isinstance(game, OthelloGame)
    return game


def test_standard_start_black_to_move() -> None:
    state = othello().new_initial_state()
    board = state.board()
    d4, e4, d5, e5 = squares("d4", "e4", "d5", "e5")
    assert (board[d4], board[e5], board[e4], board[d5]) == (WHITE, WHITE, BLACK, BLACK)
    assert state.current_player() == 0
    assert state.colour_of(0) == BLACK
    assert state.legal_actions() == squares("d3", "c4", "f5", "e6")


def test_a_player_without_a_capture_must_pass() -> None:
    # Black's balls trap nothing; white captures b1 and c1 from d1.
    state = othello().state_from_diagram(
        """
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        O X X . . . . .
        """,
        to_move=0,
    )
    assert not state.is_terminal()
    assert state.legal_actions() == [PASS]
    with pytest.raises(engine_core.IllegalAction, match="only legal action is to pass"):
        state.apply_action(squares("d1")[0])
    state.apply_action(PASS)
    assert state.current_player() == 1
    assert state.legal_actions() == squares("d1")
    with pytest.raises(engine_core.IllegalAction, match="cannot pass"):
        state.apply_action(PASS)
    assert state.action_to_string(PASS) == "pass"
    assert state.string_to_action(" Pass ") == PASS


def test_the_game_ends_when_neither_side_can_move() -> None:
    # White's e1 captures d1 and leaves black nothing to capture with, and
    # white nothing further either: the game ends with balls still to place.
    state = othello().state_from_diagram(
        """
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . O X . . . .
        """,
        to_move=1,
    )
    assert state.legal_actions() == squares("e1")
    state.apply_action(squares("e1")[0])
    assert state.is_terminal()
    assert state.current_player() == engine_core.TERMINAL
    assert state.returns() == [-1.0, 1.0]
    assert state.legal_actions() == []


def test_a_board_with_no_move_for_anyone_is_over_at_once() -> None:
    state = othello().state_from_board([BLACK] * 10 + [-1] * 54, to_move=0)
    assert state.is_terminal()
    assert state.returns() == [1.0, -1.0]
