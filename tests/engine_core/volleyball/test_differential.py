"""The compiled core against the plain-Python reference (hypothesis): whole
games, intercept plans, fresh and mid-turn, and coverage."""

from __future__ import annotations

import random

from hypothesis import event, given, settings
from hypothesis import strategies as st

import engine_core
from engine_core.volleyball import VolleyballState, analysis
from engine_core.volleyball import actions as act
from engine_core.volleyball import reference as ref
from engine_core.volleyball._analysis import Analysis

from .helpers import DETERMINISTIC, check_plan

Cell = tuple[int, int]


def formations(height: int) -> st.SearchStrategy[set[Cell]]:
    """Six pieces on the court, one of them sometimes in column 7 (a server
    receiving a return)."""
    court = ref.court_cells(height)
    on_court = st.sets(st.sampled_from(court), min_size=6, max_size=6)
    serving = st.sampled_from([(7, row) for row in range(1, height + 1)])
    with_server = st.tuples(st.sets(st.sampled_from(court), min_size=5, max_size=5), serving)
    return st.one_of(on_court, with_server.map(lambda pair: pair[0] | {pair[1]}))


def compare_plans(
    pieces: set[Cell],
    landing: Cell,
    big_leagues: bool,
    steps_taken: dict[Cell, int] | None = None,
) -> None:
    taken = steps_taken or {}
    max_steps = 2 if big_leagues else 1
    once = act.mask_of([act.square(*c) for c, n in taken.items() if n < max_steps])
    done = act.mask_of([act.square(*c) for c, n in taken.items() if n == max_steps])
    core = Analysis(big_leagues).intercept_plan(
        analysis.formation_mask(pieces), act.square(*landing), once, done, len(taken)
    )
    expected = ref.min_intercept_steps(pieces, landing, big_leagues, taken)
    event(f"fewest steps: {None if expected is None else len(expected)}")
    assert (core is None) == (expected is None), (pieces, landing, core, expected)
    if core is not None and expected is not None:
        assert len(core) == len(expected)
        check_plan(core, pieces, landing, big_leagues, taken)
    if not taken:
        assert analysis.can_intercept(pieces, landing, big_leagues) == (expected is not None)


@settings(DETERMINISTIC, max_examples=300)
@given(formation=formations(3), landing=st.sampled_from(ref.court_cells(3)))
def test_intercept_plans_match_the_reference(formation: set[Cell], landing: Cell) -> None:
    compare_plans(formation, landing, big_leagues=False)


@settings(DETERMINISTIC, max_examples=25)
@given(formation=formations(3))
def test_coverage_matches_the_reference(formation: set[Cell]) -> None:
    core = analysis.coverage(formation)
    expected = ref.covered_landings(formation)
    assert core.denominator in (1, 2, 3, 6, 9, 18)
    assert core * 18 == expected


@settings(DETERMINISTIC, max_examples=12)
@given(formation=formations(6), landing=st.sampled_from(ref.court_cells(6)))
def test_big_league_plans_match_the_reference(formation: set[Cell], landing: Cell) -> None:
    compare_plans(formation, landing, big_leagues=True)


@DETERMINISTIC
@given(
    formation=formations(3),
    landing=st.sampled_from(ref.court_cells(3)),
    seed=st.integers(0, 2**32 - 1),
    moves=st.integers(1, 3),
)
def test_mid_turn_plans_match_the_reference(
    formation: set[Cell], landing: Cell, seed: int, moves: int
) -> None:
    rng = random.Random(seed)
    pieces, taken = set(formation), {}
    for _ in range(moves):
        steps = ref.receive_steps(pieces, taken, 3, 1)
        if not steps:
            break
        cell, target, _ = rng.choice(steps)
        pieces = (pieces - {cell}) | {target}
        taken[target] = taken.pop(cell, 0) + 1
    compare_plans(pieces, landing, False, taken)


@settings(DETERMINISTIC, max_examples=10)
@given(
    formation=formations(6),
    landing=st.sampled_from(ref.court_cells(6)),
    seed=st.integers(0, 2**32 - 1),
    moves=st.integers(1, 4),
)
def test_big_league_mid_turn_plans_match_the_reference(
    formation: set[Cell], landing: Cell, seed: int, moves: int
) -> None:
    rng = random.Random(seed)
    pieces, taken = set(formation), {}
    for _ in range(moves):
        steps = ref.receive_steps(pieces, taken, 6, 2)
        if not steps:
            break
        cell, target, _ = rng.choice(steps)
        pieces = (pieces - {cell}) | {target}
        taken[target] = taken.pop(cell, 0) + 1
    compare_plans(pieces, landing, True, taken)


def _play_both(state: VolleyballState, mirror: ref.ReferenceState, seed: int) -> None:
    """Plays one game on both, comparing everything observable after each action."""
    rng = random.Random(seed)
    big = mirror.big_leagues
    while True:
        assert state.current_player() == mirror.current_player()
        assert state.legal_actions() == mirror.legal_actions()
        assert state.chance_outcomes() == mirror.chance_outcomes()
        assert state.scores() == mirror.scores
        assert state.is_terminal() == mirror.is_terminal()
        assert state.returns() == mirror.returns()
        for seat in (0, 1):
            assert state.squares(seat) == sorted(mirror.pieces[seat])
        landing = state.landing()
        assert (None if landing is None else ref.cell_of(landing)) == mirror.landing
        if state.is_terminal():
            return
        action = rng.choice(state.legal_actions())
        if state.phase() == "receive" and rng.random() < 0.8:
            plan = state.intercept_plan()
            assert mirror.landing is not None
            if not big:  # the Big League searches are checked above, more cheaply
                expected = ref.min_intercept_steps(
                    mirror.pieces[mirror.to_move], mirror.landing, big, mirror.steps_taken
                )
                assert (plan is None) == (expected is None)
                assert plan is None or expected is None or len(plan) == len(expected)
            if plan is not None:
                action = plan[0] if plan else act.END
        state.apply_action(action)
        mirror.apply_action(action)


@settings(DETERMINISTIC, max_examples=24)
@given(
    seed=st.integers(0, 2**32 - 1),
    big_leagues=st.booleans(),
    underdog_boost=st.booleans(),
    first_seat=st.sampled_from([0, 1]),
)
def test_whole_games_match_the_reference(
    seed: int, big_leagues: bool, underdog_boost: bool, first_seat: int
) -> None:
    state = engine_core.load_game(
        "volleyball",
        big_leagues=big_leagues,
        underdog_boost=underdog_boost,
        first_seat=first_seat,
        seed=seed,
    ).new_initial_state()
    assert isinstance(state, VolleyballState)
    mirror = ref.ReferenceState(big_leagues, underdog_boost, first_seat)
    _play_both(state, mirror, seed)
