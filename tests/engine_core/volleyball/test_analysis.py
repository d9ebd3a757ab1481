"""The analysis helpers on hand-built formations, and the compiled fast path
(Hall's condition) against the compiled search on every placement."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine_core import IllegalAction
from engine_core.volleyball import actions as act
from engine_core.volleyball import analysis
from engine_core.volleyball import reference as ref
from engine_core.volleyball._analysis import Analysis

from .helpers import check_plan, mask, play, served


def names(plan: list[int] | None, height: int = 3) -> list[str] | None:
    return None if plan is None else [act.action_to_string(a, height) for a in plan]


def test_a_line_already_made_needs_no_step() -> None:
    formation = [(2, 2), (3, 2), (4, 2), (1, 1), (6, 1), (5, 3)]
    assert analysis.intercept_plan(formation, (2, 2)) == []
    assert analysis.can_intercept(formation, (4, 2))


def test_a_gap_is_filled_by_one_step() -> None:
    formation = [(1, 2), (2, 2), (4, 2), (6, 1), (6, 3), (3, 3)]
    assert names(analysis.intercept_plan(formation, (1, 2))) in (
        ["step 4,2->3,2"], ["step 3,3->3,2"],
    )  # fmt: skip


def test_the_middle_row_is_not_caught_by_the_column_as_it_stands() -> None:
    """DESIGN: one end on the ball; 3,1 3,2 3,3 does not catch a ball on 3,2,
    though two steps (3,3->4,2 and 6,1->5,2) make a row that does."""
    formation = [(3, 1), (3, 2), (3, 3), (6, 1), (6, 3), (1, 3)]
    plan = analysis.intercept_plan(formation, (3, 2))
    assert plan is not None
    assert len(plan) == 2
    check_plan(plan, set(formation), (3, 2), big_leagues=False)


def test_a_chain_of_steps_counts() -> None:
    """Each piece steps once, but together they shift a line along: 5,2 to
    6,3, 4,1 to 5,2, 3,1 to 4,1 catch a ball in the far corner."""
    formation = [(1, 1), (2, 1), (2, 2), (3, 1), (4, 1), (5, 2)]
    plan = analysis.intercept_plan(formation, (6, 3))
    assert plan is not None
    assert len(plan) == 3
    check_plan(plan, set(formation), (6, 3), big_leagues=False)
    assert analysis.coverage(formation) == 1


def test_far_balls_cannot_be_caught() -> None:
    formation = [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3)]
    assert analysis.intercept_plan(formation, (6, 3)) is None
    assert not analysis.can_intercept(formation, (6, 2))
    # Columns 1-2 full and one step each: no piece gets past column 3.
    covered = [c for c in ref.court_cells(3) if analysis.can_intercept(formation, c)]
    assert max(column for column, _ in covered) == 3
    assert analysis.coverage(formation) == Fraction(len(covered), 18)


def test_column_7_pieces_only_help_by_stepping_back() -> None:
    """DESIGN: pieces in column 7 never count, but may step back onto column 6."""
    formation = [(5, 2), (6, 1), (7, 2), (1, 3), (2, 1), (3, 3)]
    plan = analysis.intercept_plan(formation, (5, 2))
    assert plan != []  # 5,2 6,2 7,2 would not be a line anyway
    plan = analysis.intercept_plan(formation, (6, 3))
    assert plan is not None
    assert any(step.startswith("step 7,2->6,") for step in names(plan) or [])
    check_plan(plan, set(formation), (6, 3), big_leagues=False)


def test_big_leagues_a_six_step_intercept_matches_the_reference() -> None:
    """The longest receive there is (3 pieces x 2 steps); the reference's
    breadth-first search confirms that nothing shorter exists (about 2 s)."""
    formation = [(2, 2), (3, 1), (3, 6), (6, 1), (6, 5), (6, 6)]
    plan = analysis.intercept_plan(formation, (1, 5), big_leagues=True)
    assert plan is not None
    assert len(plan) == 6
    check_plan(plan, set(formation), (1, 5), big_leagues=True)
    expected = ref.min_intercept_steps(set(formation), (1, 5), big_leagues=True)
    assert expected is not None
    assert len(expected) == 6


def test_coverage_is_the_share_of_landing_squares() -> None:
    """Every court square is equally likely: 2/36 on 3 rows, 1/36 in Big Leagues."""
    formation = [(1, 1), (3, 1), (5, 1), (2, 3), (4, 3), (6, 3)]
    counted = sum(analysis.can_intercept(formation, c) for c in ref.court_cells(3))
    assert analysis.coverage(formation) == Fraction(counted, 18)
    big = sum(analysis.can_intercept(formation, c, True) for c in ref.court_cells(6))
    assert analysis.coverage(formation, big_leagues=True) == Fraction(big, 36)


def test_every_placement_fast_path_agrees_with_the_search() -> None:
    """All C(18,6) placements through the batch call; the Hall's-condition
    fast path against the step search on every 25th placement and landing."""
    formations = analysis.all_formations()
    assert len(formations) == 18_564
    counts = analysis.coverage_counts(formations)
    core = Analysis(False)
    for formation, count in list(zip(formations, counts, strict=True))[::25]:
        searched = sum(
            core.intercept_plan(formation, act.square(*c)) is not None for c in ref.court_cells(3)
        )
        assert count == searched == core.covered_landings(formation)


def test_bad_inputs_are_refused() -> None:
    core = Analysis(False)
    with pytest.raises(ValueError, match="not on the court"):
        core.can_intercept(mask((1, 1)), act.square(7, 1))
    with pytest.raises(ValueError, match="off the side"):
        core.covered_landings(mask((1, 4)))
    with pytest.raises(ValueError, match="off the side"):
        core.coverage_counts([mask((1, 1)), 1 << 7])
    seven = mask((1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3), (3, 1))
    with pytest.raises(ValueError, match="more than 6 pieces"):
        core.intercept_plan(seven, act.square(4, 1))
    with pytest.raises(ValueError, match="more than 6 pieces"):
        core.coverage_counts([seven])
    with pytest.raises(ValueError, match="at most 3 pieces"):
        core.intercept_plan(mask((1, 1)), act.square(4, 1), movers=4)


def test_the_state_plans_the_receive_under_way() -> None:
    state = play(served([(1, 2), (2, 2), (4, 2), (6, 1), (6, 3), (3, 3)]), "dice 1,3")
    plan = state.intercept_plan()
    assert plan is not None
    assert len(plan) == 1
    play(state, "step 3,3->2,3", "step 4,2->5,2", "step 6,1->5,1")
    assert state.intercept_plan() is None  # three pieces moved, none into 3,2
    with pytest.raises(IllegalAction, match="no receive turn"):
        play(state, "end").intercept_plan()
