"""Shared helpers for the Volleyball Returns tests: build positions by playing
readable actions, and snapshot everything observable about a state."""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import settings

import engine_core
from engine_core.volleyball import VolleyballState
from engine_core.volleyball import actions as act
from engine_core.volleyball import reference as ref
from engine_core.volleyball.actions import square

# Derandomized so the suite is deterministic; no deadline (timing never decides).
DETERMINISTIC = settings(derandomize=True, deadline=None, print_blob=True)

# A server formation whose only piece nearest column 6 is 6,2, and which
# never holds a line on its own side.
SERVER = [(1, 1), (2, 3), (3, 1), (4, 3), (5, 1), (6, 2)]


def new_state(**options: object) -> VolleyballState:
    state = engine_core.load_game("volleyball", seed=0, **options).new_initial_state()
    assert isinstance(state, VolleyballState)
    return state


def play(state: VolleyballState, *texts: str) -> VolleyballState:
    for text in texts:
        state.apply_action(state.string_to_action(text))
    return state


def places(cells: Iterable[tuple[int, int]]) -> list[str]:
    return [f"place {column},{row}" for column, row in cells]


def served(
    receiver: Iterable[tuple[int, int]],
    server: Iterable[tuple[int, int]] = SERVER,
    serve: str = "serve 6,2",
    **options: object,
) -> VolleyballState:
    """A new game in which seat 0 placed ``server``, seat 1 ``receiver``, and
    seat 0 sent its serving piece to column 7: the dice (or the hitter) next."""
    state = new_state(**options)
    return play(state, *places(server), *places(receiver), serve)


def mask(*cells: tuple[int, int]) -> int:
    out = 0
    for cell in cells:
        out |= 1 << square(*cell)
    return out


def snapshot(state: VolleyballState) -> tuple[object, ...]:
    """Everything observable about a state, to check that a refusal changed nothing."""
    return (
        state.history(),
        state.current_player(),
        state.legal_actions(),
        state.scores(),
        state.pieces(0),
        state.pieces(1),
        state.phase(),
        state.landing(),
        state.receive_progress(),
        state.hitter(),
        state.server(),
        str(state),
    )


def check_plan(
    plan: list[int],
    pieces: set[tuple[int, int]],
    landing: tuple[int, int],
    big_leagues: bool,
    steps_taken: dict[tuple[int, int], int] | None = None,
) -> None:
    """Each step of ``plan`` is a legal receiving step, and it ends intercepting."""
    height, max_steps = (6, 2) if big_leagues else (3, 1)
    here, taken = set(pieces), dict(steps_taken or {})
    for action in plan:
        steps = {a: (cell, target) for cell, target, a in ref.receive_steps(here, taken, height,
                                                                            max_steps)}  # fmt: skip
        assert action in steps, act.action_to_string(action, height)
        cell, target = steps[action]
        here = (here - {cell}) | {target}
        taken[target] = taken.pop(cell, 0) + 1
    assert ref.intercepts(here, landing, height)
