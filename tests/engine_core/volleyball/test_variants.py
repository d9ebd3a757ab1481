"""Big Leagues and Underdog Boost on hand-built positions. Each test quotes
the rulebook sentence (or the DESIGN.md / issue reading) it checks."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine_core import CHANCE, IllegalAction
from engine_core.volleyball import VolleyballState
from engine_core.volleyball import actions as act

from .helpers import SERVER, new_state, places, play, served, snapshot

NO_LINES = [(1, 1), (3, 1), (5, 1), (2, 3), (4, 3), (6, 3)]
ROW_2 = [(2, 2), (3, 2), (4, 2), (1, 1), (6, 1), (5, 3)]


# --- Big Leagues ---------------------------------------------------------------


def test_big_leagues_board_is_six_rows_and_die_2_is_the_row() -> None:
    """'Big Leagues: Increase the board height from 3 to 6'; DESIGN: 'Big
    Leagues: die 2 is the row'."""
    state = new_state(big_leagues=True)
    assert len(state.legal_actions()) == 36
    play(state, *places([(1, 6), (2, 5), (3, 4), (4, 1), (5, 2), (6, 6)]))
    play(state, *places(NO_LINES), "serve 6,6")
    assert (7, 6) in state.squares(0)
    landings = {}
    for action, probability in state.chance_outcomes():
        die1, die2 = act.dice_of(action)
        landing = state.child(action).landing()
        landings[landing] = Fraction(probability).limit_denominator(100)
        assert landing == act.square(die1, die2)
    assert len(landings) == 36
    assert set(landings.values()) == {Fraction(1, 36)}


def test_big_leagues_pieces_take_up_to_two_steps() -> None:
    """'allow the character pieces to move one extra square every turn'; the
    issue: 'each moved piece may take up to 2 king steps' (still 3 pieces)."""
    state = play(served(NO_LINES, big_leagues=True), "dice 6,6", "end")
    assert state.phase() == "receive"
    play(state, "step 1,1->2,2", "step 3,1->4,2", "step 5,1->5,2")
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="3 pieces have moved"):
        play(state, "step 2,3->3,3")
    assert snapshot(state) == before
    play(state, "step 2,2->1,2")  # the first piece's second step
    with pytest.raises(IllegalAction, match="taken its 2 steps"):
        play(state, "step 1,2->1,3")
    play(state, "step 4,2->4,1", "step 5,2->5,3")
    assert state.legal_actions() == [act.END]


def test_big_leagues_two_steps_reach_an_intercept() -> None:
    """A piece two squares away fills the line only with the extra step."""
    receiver = [(1, 2), (2, 2), (5, 2), (6, 6), (1, 5), (4, 5)]
    state = play(served(receiver, big_leagues=True), "dice 1,2", "end")
    play(state, "step 5,2->4,2", "step 4,2->3,2", "end")
    assert state.scores() == [0, 0]
    assert state.hitter() == 1
    standard = play(served([(1, 2), (2, 2), (5, 2), (6, 1), (1, 3), (4, 3)]), "dice 1,3")
    with pytest.raises(IllegalAction, match="already moved"):
        play(standard, "step 5,2->4,2", "step 4,2->3,2")


def test_big_leagues_column_of_three_catches_on_six_rows() -> None:
    """On 6 rows a column of three has ends on rows other than 1 and 3."""
    receiver = [(3, 2), (3, 3), (3, 4), (6, 6), (1, 6), (6, 1)]
    state = play(served(receiver, big_leagues=True), "dice 3,2", "end", "end")
    assert state.scores() == [0, 0]
    state = play(served(receiver, big_leagues=True), "dice 3,3", "end", "end")
    assert state.scores() == [1, 0]


def test_big_leagues_the_hitter_may_step_one_piece_once() -> None:
    """'including during an opponent's turn'; the issue: 'after the dice land,
    before the receiver moves, the hitter may move one of its pieces one king
    step'. Its serving piece may come back from column 7."""
    state = play(served(NO_LINES, big_leagues=True), "dice 6,6")
    assert state.phase() == "hitter step"
    assert state.current_player() == 0
    steps = [state.action_to_string(a) for a in state.legal_actions()]
    assert steps[-1] == "end"
    assert "step 7,2->6,2" in steps
    assert all(s.startswith("step") for s in steps[:-1])
    assert not any("->7," in s for s in steps)
    play(state, "step 7,2->6,2")
    assert (6, 2) in state.squares(0)
    assert state.phase() == "receive"
    assert state.current_player() == 1
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="not seat 0's turn"):
        state.apply_actions([state.string_to_action("step 6,2->5,2")], player=0)
    assert snapshot(state) == before
    skipped = play(served(NO_LINES, big_leagues=True), "dice 6,6", "end")
    assert skipped.phase() == "receive"
    assert (7, 2) in skipped.squares(0)


def test_the_standard_game_has_no_hitter_step() -> None:
    """Without Big Leagues the receiver moves straight after the dice."""
    state = play(served(NO_LINES), "dice 6,6")
    assert state.phase() == "receive"
    assert state.current_player() == 1


# --- Underdog Boost ----------------------------------------------------------


def _seat_0_leads_2_0(**options: object) -> VolleyballState:
    state = new_state(**options)
    for _ in range(2):
        play(state, *places(SERVER), *places(NO_LINES), "serve 6,2", "dice 1,3")
        if state.phase() == "hitter step":
            play(state, "end")
        play(state, "end")
    assert state.scores() == [2, 0]
    return state


def test_underdog_a_player_level_on_points_rolls() -> None:
    """'If a player is behind': at 0-0 nobody is, so the serve is rolled."""
    state = served(NO_LINES, underdog_boost=True)
    assert state.current_player() == CHANCE
    with pytest.raises(IllegalAction, match="dice are rolling"):
        play(state, "land 3,2")


def test_underdog_a_hitter_behind_chooses_the_landing_on_a_return() -> None:
    """'If a player is behind, then they may choose where the volleyball lands
    for their opponent without rolling'; the issue: 'when hitting (serve or
    return) ... choosing or rolling is its decision'."""
    state = _seat_0_leads_2_0(underdog_boost=True)
    play(state, *places(SERVER), *places(ROW_2), "serve 6,2")
    assert state.current_player() == CHANCE  # the leader rolls
    play(state, "dice 2,3", "end")  # seat 1, behind, intercepts
    assert state.phase() == "hit"
    assert state.current_player() == 1
    legal = state.legal_actions()
    assert len(legal) == 19
    assert legal[-1] == act.ROLL
    with pytest.raises(IllegalAction, match="columns 1-6"):
        play(state, "land 7,1")
    rolled = play(state.clone(), "roll")
    assert rolled.is_chance_node()
    play(state, "land 4,1")
    assert state.landing() == act.square(4, 1)
    assert state.phase() == "receive"
    assert state.current_player() == 0
    assert "(chosen)" in str(state)
    play(state, "end")
    assert state.scores() == [2, 1]


def test_underdog_a_server_behind_chooses_too() -> None:
    """The server who is behind chooses the serve's landing (serve or return)."""
    state = _seat_0_leads_2_0(underdog_boost=True)
    play(state, *places(SERVER), *places(ROW_2), "serve 6,2", "dice 2,3", "end", "land 4,1")
    play(state, "end")  # 2-1: seat 1 scored and serves while behind
    play(state, *places(SERVER), *places(NO_LINES), "serve 6,2")
    assert state.server() == 1
    assert state.phase() == "hit"
    assert state.current_player() == 1


def test_underdog_off_a_player_behind_still_rolls() -> None:
    """Underdog Boost is an alternative mode: off by default."""
    state = _seat_0_leads_2_0()
    play(state, *places(SERVER), *places(ROW_2), "serve 6,2", "dice 2,3", "end")
    assert state.hitter() == 1
    assert state.current_player() == CHANCE
    before = snapshot(state)
    with pytest.raises(IllegalAction):
        play(state, "land 4,1")
    assert snapshot(state) == before


def test_underdog_a_player_ahead_may_not_choose() -> None:
    """Only a player who is behind chooses."""
    state = _seat_0_leads_2_0(underdog_boost=True)
    play(state, *places(SERVER), *places(NO_LINES), "serve 6,2")
    with pytest.raises(IllegalAction):
        state.apply_action(act.land_action(3, 2))
    assert state.is_chance_node()


def test_both_variants_a_chosen_landing_then_the_hitter_step() -> None:
    """Big Leagues and Underdog Boost together: the hitter's step follows the
    landing whether it was rolled or chosen."""
    state = _seat_0_leads_2_0(underdog_boost=True, big_leagues=True)
    play(state, *places(SERVER), *places(ROW_2), "serve 6,2", "dice 2,2", "end", "end")
    assert state.phase() == "hit"
    play(state, "land 4,5")
    assert state.phase() == "hitter step"
    assert state.current_player() == 1
    play(state, "step 2,2->2,3")
    assert state.current_player() == 0
    assert state.landing() == act.square(4, 5)
