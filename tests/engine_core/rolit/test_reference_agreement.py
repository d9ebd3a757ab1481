"""The compiled core against the plain-Python reference (reference.py).

Two kinds of positions: those reached by seeded random games for 2, 3 and 4
players and Othello, and arbitrary boards (any colours anywhere, any seat to
move), which reach corners of the rules a real game rarely does.
"""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

import engine_core
from engine_core.api import returns_for_winners
from engine_core.rolit import FlipState
from engine_core.rolit.reference import ReferenceFlipGame
from tests.engine_core.rolit.helpers import assert_children_agree, reference_of

GAMES = [("rolit", {"players": 2}), ("rolit", {"players": 3}), ("rolit", {"players": 4})]
GAMES.append(("othello", {}))


@given(game_index=st.integers(0, len(GAMES) - 1), seed=st.integers(0, 2**32 - 1))
def test_random_games_agree_at_every_ply(game_index: int, seed: int) -> None:
    name, options = GAMES[game_index]
    game = engine_core.load_game(name, **options)
    state = game.new_initial_state()
    assert isinstance(state, FlipState)
    ref = ReferenceFlipGame(
        game.seat_colours,  # type: ignore[attr-defined]
        game.start,  # type: ignore[attr-defined]
        othello=game.othello,  # type: ignore[attr-defined]
    )
    rng = random.Random(seed)
    while True:
        assert state.board() == ref.cells
        assert state.is_terminal() == ref.over
        assert state.legal_actions() == ref.legal_actions()
        assert state.scores() == ref.scores()
        if ref.over:
            break
        assert state.current_player() == ref.seat
        action = rng.choice(ref.legal_actions())
        state.apply_action(action)
        ref.apply(action)
    expected = returns_for_winners(ref.winners(), len(ref.seat_colours))
    assert state.returns() == expected


@st.composite
def boards(draw: st.DrawFn, colours: int) -> list[int]:
    """Boards from nearly empty to nearly full, with at least one ball."""
    empties = draw(st.integers(0, 12))
    cells = draw(
        st.lists(st.sampled_from([-1] * empties + list(range(colours))), min_size=64, max_size=64)
    )
    if all(cell == -1 for cell in cells):
        cells[draw(st.integers(0, 63))] = draw(st.integers(0, colours - 1))
    return cells


@given(players=st.sampled_from([2, 3, 4]), cells=boards(4), data=st.data())
def test_arbitrary_rolit_boards_agree(players: int, cells: list[int], data: st.DataObject) -> None:
    to_move = data.draw(st.integers(0, players - 1))
    game = engine_core.load_game("rolit", players=players)
    state = game.state_from_board(cells, to_move)  # type: ignore[attr-defined]
    assert_children_agree(state, reference_of(state, to_move))


@given(cells=boards(2), to_move=st.integers(0, 1))
def test_arbitrary_othello_boards_agree(cells: list[int], to_move: int) -> None:
    state = engine_core.load_game("othello").state_from_board(cells, to_move)  # type: ignore[attr-defined]
    assert_children_agree(state, reference_of(state, to_move))
