"""Rolit, rule by rule. Each test quotes the rulebook sentence (rules/rolit.txt)
or the DESIGN.md reading it checks."""

from __future__ import annotations

import random

import pytest

import engine_core
from engine_core.rolit import BLUE, GREEN, RED, YELLOW, RolitGame
from tests.engine_core.rolit.helpers import squares


def rolit(players: int = 4, first_seat: int = 0) -> RolitGame:
    game = engine_core.load_game("rolit", players=players, first_seat=first_seat)
    assert isinstance(game, RolitGame)
    return game


@pytest.mark.parametrize("players", [2, 3, 4])
def test_start_is_four_balls_whatever_the_player_count(players: int) -> None:
    """ "Regardless of the number of players, place 4 Rolit balls (1 of each
    color) in the center of the board." DESIGN: d4 red, e4 yellow, e5 green,
    d5 blue."""
    board = rolit(players).new_initial_state().board()
    d4, e4, e5, d5 = squares("d4", "e4", "e5", "d5")
    assert {board[d4], board[e4], board[e5], board[d5]} == {RED, YELLOW, GREEN, BLUE}
    assert (board[d4], board[e4], board[e5], board[d5]) == (RED, YELLOW, GREEN, BLUE)
    assert sum(cell != -1 for cell in board) == 4


@pytest.mark.parametrize(
    ("players", "colours"),
    [(2, [RED, GREEN]), (3, [RED, YELLOW, GREEN]), (4, [RED, YELLOW, GREEN, BLUE])],
)
def test_seats_map_to_colours(players: int, colours: list[int]) -> None:
    """DESIGN: 2 players red+green (diagonal), 3 players red+yellow+green,
    4 players all."""
    state = rolit(players).new_initial_state()
    assert [state.colour_of(seat) for seat in range(players)] == colours


def test_turns_follow_the_colour_order_from_the_first_seat() -> None:
    """ "The game proceeds clockwise following the order of the colors." DESIGN:
    turn order red, yellow, green, blue; the first seat is an option."""
    state = rolit(4, first_seat=2).new_initial_state()
    seats = []
    for _ in range(6):
        seats.append(state.current_player())
        state.apply_action(state.legal_actions()[0])
    assert seats == [2, 3, 0, 1, 2, 3]


def test_capture_is_compulsory() -> None:
    """ "To be allowed to place a new ball, it must trap 1 or more opponents'
    balls." DESIGN: if any placement captures, the mover must capture."""
    state = rolit(4).new_initial_state()
    # Red (d4) captures yellow e4 from f4, blue d5 from d6, green e5 from f6.
    assert state.legal_actions() == squares("f4", "d6", "f6")
    # c3 touches d4 but traps nothing.
    with pytest.raises(engine_core.IllegalAction, match=r"capture is compulsory"):
        state.apply_action(squares("c3")[0])


def test_without_a_capture_any_touching_empty_square_is_legal() -> None:
    """ "If ... you are unable to roll over your opponent's balls ... you can
    place a new ball anywhere on the board, but in contact with a ball already
    played." """
    state = rolit(2).state_from_diagram(
        """
        . . . . . . . G
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . R . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        """,
        to_move=0,
    )
    around_d4 = squares("c3", "d3", "e3", "c4", "e4", "c5", "d5", "e5")
    around_h8 = squares("g7", "h7", "g8")
    assert state.legal_actions() == sorted(around_d4 + around_h8)
    state.apply_action(squares("g7")[0])
    assert state.board()[squares("g7")[0]] == RED
    assert state.board()[squares("h8")[0]] == GREEN


def test_a_player_with_no_balls_may_still_place() -> None:
    """ "If there is no ball of your color left on the board ... you are not
    necessarily out of the game ... you can place a new ball anywhere on the
    board, but in contact with a ball already played." """
    state = rolit(4).state_from_diagram(
        """
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . Y . . . .
        . . . R R . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        """,
        to_move=3,
    )
    assert state.colour_of(3) == BLUE
    assert state.scores()[3] == 0
    legal = state.legal_actions()
    assert len(legal) == 12
    assert squares("c6", "f3", "e6")[0] in legal
    assert squares("a1")[0] not in legal
    state.apply_action(squares("f3")[0])
    assert state.scores() == [2, 1, 0, 1]


def test_placement_must_touch_a_ball() -> None:
    """ "When placing a ball, you must place it so that it is next to another
    ball." """
    state = rolit(4).state_from_diagram(
        """
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . R . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        """,
        to_move=1,
    )
    with pytest.raises(engine_core.IllegalAction, match=r"a1 does not touch any ball"):
        state.apply_action(squares("a1")[0])


def test_flips_stop_at_the_first_own_ball() -> None:
    """ "In each direction from your starting point, you can roll over balls
    until you meet the first ball of your color." """
    state = rolit(4).state_from_diagram(
        """
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        R Y R Y . . . .
        """,
        to_move=0,
    )
    state.apply_action(squares("e1")[0])
    board = state.board()
    assert [board[s] for s in squares("a1", "b1", "c1", "d1", "e1")] == [
        RED,
        YELLOW,
        RED,
        RED,
        RED,
    ]


def test_a_run_of_several_colours_flips_whole() -> None:
    """DESIGN: "the run of other colours' balls up to the first ball of the
    mover's colour flips to the mover's colour"."""
    state = rolit(4).state_from_diagram(
        """
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        R Y G B . . . .
        """,
        to_move=0,
    )
    state.apply_action(squares("e1")[0])
    assert state.board()[:5] == [RED] * 5
    assert state.scores() == [5, 0, 0, 0]


def test_a_run_broken_by_an_empty_square_does_not_flip() -> None:
    """ "you can ONLY roll over the balls that you trap with the ball you have
    just played": a gap means nothing is trapped."""
    state = rolit(4).state_from_diagram(
        """
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        R . Y Y . . . .
        """,
        to_move=0,
    )
    # e1 touches d1 but traps nothing (the run d1, c1 meets the empty b1).
    assert squares("e1")[0] in state.legal_actions()
    state.apply_action(squares("e1")[0])
    assert state.board()[:5] == [RED, -1, YELLOW, YELLOW, RED]


def test_all_eight_directions_turn_at_once() -> None:
    """ "If you're lucky, you can turn up to 8 lines from your starting point"
    and "Balls can be captured horizontally, vertically and diagonally - or in
    multiple directions at once!" """
    state = rolit(4).state_from_diagram(
        """
        . . . . . . . .
        . . . . . . . .
        . R . R . R . .
        . . Y G B . . .
        . R G . Y R . .
        . . B Y G . . .
        . R . R . R . .
        . . . . . . . .
        """,
        to_move=0,
    )
    state.apply_action(squares("d4")[0])
    board = state.board()
    ring = squares("c3", "d3", "e3", "c4", "e4", "c5", "d5", "e5")
    assert all(board[s] == RED for s in ring)
    assert state.scores()[0] == 17


def test_only_balls_trapped_by_the_new_ball_turn() -> None:
    """ "In any case, you can ONLY roll over the balls that you trap with the
    ball you have just played": a ball turned this move does not trap more."""
    state = rolit(4).state_from_diagram(
        """
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . R . . . .
        . . . Y . . . .
        . . R Y . . . .
        """,
        to_move=0,
    )
    # e1 traps d1 (with c1). d1 turns red, and would now trap d2 with d3, but
    # d2 was not trapped by e1, so it stays yellow.
    state.apply_action(squares("e1")[0])
    board = state.board()
    assert board[squares("d1")[0]] == RED
    assert board[squares("d2")[0]] == YELLOW


def test_neutral_balls_are_capturable_and_never_score() -> None:
    """DESIGN: "an unused colour's ball stays as a neutral ball that anyone may
    capture and that scores for no one"."""
    state = rolit(2).new_initial_state()
    assert state.scores() == [1, 1]  # yellow e4 and blue d5 belong to no seat
    # Red captures the neutral yellow e4 from f4.
    assert squares("f4")[0] in state.legal_actions()
    state.apply_action(squares("f4")[0])
    assert state.board()[squares("e4")[0]] == RED
    assert state.scores() == [3, 1]


def test_neutral_balls_count_as_opponents_for_compulsory_capture() -> None:
    """DESIGN: the opponents' set is every other colour, neutral balls
    included, so a capture of only neutral balls is still compulsory."""
    state = rolit(2).state_from_diagram(
        """
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . R Y . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        """,
        to_move=0,
    )
    assert state.legal_actions() == squares("f4")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_no_passing_every_game_is_exactly_60_placements(players: int) -> None:
    """ "The game ends when all 64 board spaces are filled." DESIGN: "No
    passing: every game is exactly 60 placements." """
    rng = random.Random(players)
    for _ in range(20):
        state = rolit(players).new_initial_state()
        for ply in range(60):
            assert not state.is_terminal(), f"ended early at ply {ply}"
            legal = state.legal_actions()
            assert legal, "Rolit never leaves a player without a placement"
            state.apply_action(rng.choice(legal))
        assert state.is_terminal()
        assert state.current_player() == engine_core.TERMINAL
        assert len(state.history()) == 60
        assert -1 not in state.board()
        assert state.legal_actions() == []


def test_rolit_has_no_pass_action() -> None:
    """DESIGN: "No passing" - 64 (Othello's pass) is not a Rolit action."""
    state = rolit(4).new_initial_state()
    with pytest.raises(engine_core.MalformedAction, match=r"0..63"):
        state.apply_action(64)
    with pytest.raises(engine_core.MalformedAction):
        state.string_to_action("pass")


def full_board(counts: dict[int, int]) -> list[int]:
    board = [colour for colour, count in counts.items() for _ in range(count)]
    assert len(board) == 64
    return board


def test_most_balls_wins() -> None:
    """ "The winner is the player with the most balls of their color on the
    board." """
    state = rolit(4).state_from_board(full_board({RED: 10, YELLOW: 25, GREEN: 14, BLUE: 15}), 0)
    assert state.is_terminal()
    assert state.returns() == pytest.approx([-1 / 3, 1.0, -1 / 3, -1 / 3])


def test_a_tie_is_a_shared_win() -> None:
    """DESIGN: "Most balls wins; a tie is a shared win." """
    state = rolit(4).state_from_board(full_board({RED: 20, YELLOW: 12, GREEN: 20, BLUE: 12}), 0)
    assert state.returns() == pytest.approx([1 / 3, -1 / 3, 1 / 3, -1 / 3])
    two = rolit(2).state_from_board(full_board({RED: 30, YELLOW: 2, GREEN: 30, BLUE: 2}), 0)
    assert two.returns() == [0.0, 0.0]


def test_neutral_balls_do_not_win_a_two_player_game() -> None:
    """DESIGN: neutral balls score for no one, even when they outnumber a seat."""
    state = rolit(2).state_from_board(full_board({RED: 20, YELLOW: 25, GREEN: 19}), 0)
    assert state.returns() == [1.0, -1.0]


def test_returns_are_zero_until_the_end() -> None:
    state = rolit(3).new_initial_state()
    assert state.returns() == [0.0, 0.0, 0.0]
