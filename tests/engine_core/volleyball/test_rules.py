"""The standard game's rules on hand-built positions. Each test quotes the
rulebook sentence (or the DESIGN.md reading) it checks."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from engine_core import CHANCE, TERMINAL, IllegalAction, MalformedAction
from engine_core.volleyball import VolleyballState
from engine_core.volleyball import actions as act

from .helpers import SERVER, new_state, places, play, served, snapshot

# No three of these are in a line, whatever the landing: every untouched
# receive misses.
NO_LINES = [(1, 1), (3, 1), (5, 1), (2, 3), (4, 3), (6, 3)]
# 2,2 3,2 4,2 is a line along row 2 (and nothing else is).
ROW_2 = [(2, 2), (3, 2), (4, 2), (1, 1), (6, 1), (5, 3)]


def test_a_point_starts_with_the_server_placing_then_the_receiver() -> None:
    """'Both players place their 6 pieces on their side of the board'; DESIGN:
    'Each point starts with both players placing 6 pieces (server first)'."""
    state = new_state(first_seat=1)
    assert state.phase() == "place"
    assert state.current_player() == 1
    assert len(state.legal_actions()) == 18
    play(state, *places(SERVER))
    assert state.current_player() == 0
    assert state.phase() == "place"
    play(state, *places(NO_LINES))
    assert state.phase() == "serve"
    assert state.current_player() == 1
    assert state.squares(1) == sorted(SERVER)
    assert state.squares(0) == sorted(NO_LINES)


def test_pieces_are_placed_on_distinct_court_squares() -> None:
    """'in squares without overlapping their pieces'; the court is columns 1-6
    ('An extra column 7 for serving ... is located past the end of the board')."""
    state = play(new_state(), "place 3,2")
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="already holds"):
        play(state, "place 3,2")
    with pytest.raises(IllegalAction, match="column 7 is the serving zone"):
        play(state, "place 7,1")
    assert snapshot(state) == before
    assert all(act.column_of(a - act.PLACE_BASE) <= 6 for a in state.legal_actions())


def test_the_serving_piece_is_one_nearest_column_6_and_goes_to_column_7() -> None:
    """'The active player removes one character piece closest to the back
    column 6 and places that character piece into the serving zone'. DESIGN:
    ties, the server chooses; it keeps its row (a reading: the rulebook says
    only 'into the serving zone')."""
    formation = [(1, 1), (2, 2), (5, 1), (5, 3), (3, 3), (4, 2)]
    state = play(new_state(), *places(formation), *places(NO_LINES))
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["serve 5,1", "serve 5,3"]
    with pytest.raises(IllegalAction, match="nearest column 6, here 5,1 or 5,3"):
        play(state, "serve 4,2")
    play(state, "serve 5,3")
    assert (7, 3) in state.squares(0)
    assert (5, 3) not in state.squares(0)
    assert state.current_player() == CHANCE


def test_the_dice_are_chance_with_exact_probabilities() -> None:
    """'The active player rolls both dice to serve'; 'the first die determines
    the X axis and the second die determines the Y axis', rows 1-2, 3-4, 5-6."""
    state = served(NO_LINES)
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == state.legal_actions() == sorted(a for a, _ in outcomes)
    assert len(outcomes) == 36
    assert all(p == 1 / 36 for _, p in outcomes)
    assert math.fsum(p for _, p in outcomes) == 1.0
    landings: dict[tuple[int, int], Fraction] = {}
    for action, _ in outcomes:
        die1, die2 = act.dice_of(action)
        landing = state.child(action).landing()
        assert landing is not None
        cell = (act.column_of(landing), act.row_of(landing))
        assert cell == (die1, (die2 + 1) // 2)
        landings[cell] = landings.get(cell, Fraction(0)) + Fraction(1, 36)
    assert len(landings) == 18
    assert set(landings.values()) == {Fraction(1, 18)}


def test_the_receiver_moves_up_to_three_distinct_pieces_one_step_each() -> None:
    """'The receiving player may move up to 3 of their pieces one space in any
    direction'."""
    state = play(served(NO_LINES), "dice 6,6", "step 1,1->1,2")
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="already moved this turn"):
        play(state, "step 1,2->2,2")
    assert snapshot(state) == before
    play(state, "step 3,1->3,2", "step 5,1->5,2")
    assert state.legal_actions() == [act.END]
    with pytest.raises(IllegalAction, match="3 pieces have moved"):
        play(state, "step 2,3->2,2")
    assert state.receive_progress()[0] == 3


def test_any_direction_means_the_eight_king_steps() -> None:
    """'one space in any direction': the 8 neighbours that are free court squares."""
    state = play(served([(3, 2), (1, 1), (1, 3), (6, 1), (6, 3), (5, 3)]), "dice 6,6")
    steps = [state.action_to_string(a) for a in state.legal_actions() if a < act.END]
    from_3_2 = sorted(s for s in steps if s.startswith("step 3,2->"))
    targets = ["2,1", "2,2", "2,3", "3,1", "3,3", "4,1", "4,2", "4,3"]
    assert from_3_2 == sorted(f"step 3,2->{t}" for t in targets)


def test_no_stacking() -> None:
    """'in squares without overlapping their pieces' holds while moving too
    (DESIGN: 'no stacking')."""
    state = play(served(ROW_2), "dice 6,6")
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="no stacking"):
        play(state, "step 2,2->3,2")
    assert snapshot(state) == before


def test_no_piece_crosses_the_net() -> None:
    """'without crossing the center dividing line net'."""
    state = play(served(ROW_2), "dice 6,6")
    assert not any(
        a < act.END and act.step_target((a - act.STEP_BASE) // 8, (a - act.STEP_BASE) % 8)[0] == 0
        for a in state.legal_actions()
    )
    with pytest.raises(MalformedAction, match="across the net"):
        state.apply_action(act.STEP_BASE + act.square(1, 1) * 8 + 1)
    with pytest.raises(MalformedAction):
        play(state, "step 1,1->0,1")


def test_no_piece_steps_into_column_7() -> None:
    """DESIGN: 'never into column 7' (the serving zone is past the board)."""
    state = play(served(ROW_2), "dice 6,6")
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="never step into column 7"):
        play(state, "step 6,1->7,1")
    assert snapshot(state) == before


@pytest.mark.parametrize(
    ("formation", "dice", "caught"),
    [
        # Along a row, either end on the ball.
        (ROW_2, "dice 2,3", True),
        (ROW_2, "dice 4,4", True),
        (ROW_2, "dice 3,3", False),  # the ball under the middle piece
        # Along a column: on 3 rows the ball must be on row 1 or 3.
        ([(3, 1), (3, 2), (3, 3), (1, 1), (6, 1), (5, 3)], "dice 3,1", True),
        ([(3, 1), (3, 2), (3, 3), (1, 1), (6, 1), (5, 3)], "dice 3,6", True),
        ([(3, 1), (3, 2), (3, 3), (1, 1), (6, 1), (5, 3)], "dice 3,3", False),
        ([(3, 1), (3, 2), (3, 3), (1, 1), (6, 1), (5, 3)], "dice 3,4", False),
        # Diagonals count, in both directions.
        ([(2, 1), (3, 2), (4, 3), (6, 1), (6, 3), (1, 3)], "dice 2,1", True),
        ([(2, 1), (3, 2), (4, 3), (6, 1), (6, 3), (1, 3)], "dice 4,6", True),
        ([(2, 1), (3, 2), (4, 3), (6, 1), (6, 3), (1, 3)], "dice 3,3", False),
        ([(4, 1), (3, 2), (2, 3), (6, 1), (6, 3), (1, 1)], "dice 2,5", True),
        # A gap breaks the line; so does a ball beside the line.
        ([(1, 2), (2, 2), (4, 2), (6, 1), (6, 3), (3, 3)], "dice 1,3", False),
        (ROW_2, "dice 5,3", False),
    ],
)
def test_an_intercept_is_three_in_a_line_with_one_end_on_the_ball(
    formation: list[tuple[int, int]], dice: str, caught: bool
) -> None:
    """'If the receiving player has 3 pieces in a straight, contiguous line
    without gaps, where one end of the line overlaps with the volleyball, then
    the volleyball is successfully intercepted.' DESIGN: row, column or
    diagonal; so the middle row of a 3-row board is never caught by a column."""
    state = play(served(formation), dice, "end")
    assert (state.scores() == [0, 0]) is caught
    assert (state.phase() == "roll") is caught


def test_moving_pieces_can_make_the_line() -> None:
    """Rule 6 then 7: the receiver moves, then the line is checked."""
    state = play(served([(1, 2), (2, 2), (4, 2), (6, 1), (6, 3), (3, 3)]), "dice 1,3")
    missed = play(state.clone(), "end")
    assert missed.scores() == [1, 0]
    caught = play(state, "step 4,2->3,2", "end")
    assert caught.scores() == [0, 0]
    assert caught.current_player() == CHANCE


def test_an_intercept_reverses_the_roles_with_the_pieces_as_they_stand() -> None:
    """'Go back to step 3 except the player roles are reversed': the receiver
    rolls, the ball lands on the server's side, nothing is re-placed."""
    state = play(served([(1, 2), (2, 2), (4, 2), (6, 1), (6, 3), (3, 3)]), "dice 1,3")
    play(state, "step 4,2->3,2", "end")
    assert state.hitter() == 1
    assert state.hits() == 2
    assert state.squares(1) == sorted([(1, 2), (2, 2), (3, 2), (6, 1), (6, 3), (3, 3)])
    assert (7, 2) in state.squares(0)
    play(state, "dice 1,1")
    assert state.current_player() == 0
    assert state.phase() == "receive"
    assert state.landing() == act.square(1, 1)


def _rally_to_seat_0(dice: str) -> VolleyballState:
    """Seat 0 served from 6,2 (now 7,2) with 5,2 and 6,1 on court; seat 1
    intercepted on 2,2 and its return lands on seat 0's side at ``dice``."""
    server = [(5, 2), (6, 1), (6, 2), (1, 3), (2, 1), (3, 3)]
    state = served(ROW_2, server=server, serve="serve 6,2")
    return play(state, "dice 2,3", "end", dice)


def test_a_piece_in_column_7_may_step_back_onto_column_6() -> None:
    """DESIGN: 'a piece in column 7 may step back onto column 6' (any king step
    that lands on column 6; never along column 7)."""
    state = _rally_to_seat_0("dice 6,5")
    assert state.current_player() == 0
    steps = {state.action_to_string(a) for a in state.legal_actions()}
    assert {"step 7,2->6,2", "step 7,2->6,3"} <= steps
    assert "step 7,2->6,1" not in steps  # 6,1 is taken
    with pytest.raises(IllegalAction, match="never step into column 7"):
        play(state, "step 7,2->7,3")
    # Stepped back, it counts again: 6,1 6,2 6,3 is a column with 6,3 on the ball.
    play(state, "step 7,2->6,2", "step 5,2->6,3", "end")
    assert state.scores() == [0, 0]
    assert state.hitter() == 0


def test_pieces_in_column_7_never_count() -> None:
    """DESIGN: 'pieces in column 7 never count': 5,2 6,2 7,2 is no line."""
    state = _rally_to_seat_0("dice 5,3")
    play(state, "step 6,1->6,2")
    assert {(5, 2), (6, 2), (7, 2)} <= set(state.squares(0))
    play(state, "end")
    assert state.scores() == [0, 1]


def test_a_miss_scores_for_the_hitter_who_serves_next() -> None:
    """'If the ball is not successfully intercepted, then the previous active
    player to hit the volleyball over the net ... earns 1 point'; 'the last
    player to earn a point becomes the active player'; 'Go back to step 1'."""
    state = _rally_to_seat_0("dice 4,1")
    play(state, "end")
    assert state.scores() == [0, 1]
    assert state.phase() == "place"
    assert state.server() == 1
    assert state.current_player() == 1
    assert state.pieces(0) == state.pieces(1) == 0
    assert state.hits() == 0


def test_four_points_win_the_game() -> None:
    """'The first player to earn 4 points wins'; 'If a player has 4 points,
    then they win'."""
    state = new_state()
    for point in range(4):
        assert state.returns() == [0.0, 0.0]
        assert state.current_player() == 0
        play(state, *places(SERVER), *places(NO_LINES), "serve 6,2", "dice 1,3", "end")
        assert state.scores() == [point + 1, 0]
    assert state.is_terminal()
    assert state.current_player() == TERMINAL
    assert state.winner() == 0
    assert state.returns() == [1.0, -1.0]
    assert state.legal_actions() == []
    assert state.chance_outcomes() == []
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="game is over"):
        play(state, "end")
    assert snapshot(state) == before


def test_the_score_can_change_hands_and_the_scorer_serves() -> None:
    """Rule 10 from the other side: the returner scores and then serves."""
    state = _rally_to_seat_0("dice 4,1")
    play(state, "end")  # seat 1 scores and serves
    play(state, *places(SERVER), *places(NO_LINES), "serve 6,2", "dice 1,3", "end")
    assert state.scores() == [0, 2]
    assert state.server() == 1
