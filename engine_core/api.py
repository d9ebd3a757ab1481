"""The Game API shared by every game: constants, errors, the registry.

It mirrors OpenSpiel's method names (``current_player``, ``legal_actions``,
``apply_action``, ``chance_outcomes`` ...) so that search algorithms and habits
carry over. A game module defines a Game (options, ``new_initial_state``) and a
State, and registers the Game's constructor under its name at import time.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

# Player ids that are not seats, with OpenSpiel's values.
CHANCE = -1
TERMINAL = -4


class IllegalAction(ValueError):
    """An action the rules do not allow in this state; the state is unchanged."""


class MalformedAction(IllegalAction):
    """An action that is not an action of this game at all: wrong type, out of
    range, NaN. Services map it to INVALID_ARGUMENT rather than
    FAILED_PRECONDITION."""


class ActionKind(enum.Enum):
    """How a game's actions are given."""

    DISCRETE = "discrete"  # a finite list: ``legal_actions()`` is every action
    CONTINUOUS = "continuous"  # bounds: ``action_space()`` and ``sample_actions(n, rng)``


@dataclass(frozen=True)
class GameType:
    """What a game is, declared once per game (OpenSpiel's ``GameType``):
    algorithms and services read this instead of probing states or
    switching on names.

    ``rules_version`` grows whenever a rules or physics change would make an
    old record replay differently; records carry it, and a replay under
    another version is refused.
    """

    name: str
    min_players: int
    max_players: int
    chance: bool  # has chance nodes (dice), with ``chance_outcomes()``
    actions: ActionKind
    batch_playouts: bool  # states have ``random_playouts(n, seed)``
    rules_version: int


@runtime_checkable
class State(Protocol):
    """What every game's State offers (see DESIGN.md, "The Game API")."""

    def current_player(self) -> int: ...
    def legal_actions(self) -> list[Any]: ...
    def apply_action(self, action: Any) -> None: ...
    def child(self, action: Any) -> State: ...
    def clone(self) -> State: ...
    def is_chance_node(self) -> bool: ...
    def chance_outcomes(self) -> list[tuple[Any, float]]: ...
    def is_terminal(self) -> bool: ...
    def returns(self) -> list[float]: ...
    def history(self) -> list[Any]: ...
    def action_to_string(self, action: Any) -> str: ...
    def string_to_action(self, text: str) -> Any: ...


@runtime_checkable
class Game(Protocol):
    """A game with its options fixed: makes initial states."""

    @property
    def name(self) -> str: ...

    @property
    def game_type(self) -> GameType: ...

    def num_players(self) -> int: ...
    def options(self) -> dict[str, Any]: ...
    def new_initial_state(self) -> State: ...


GameFactory = Callable[..., Game]
_REGISTRY: dict[str, GameFactory] = {}


def register_game(name: str, factory: GameFactory) -> None:
    """Makes ``load_game(name, **options)`` call ``factory(**options)``."""
    if name in _REGISTRY and _REGISTRY[name] is not factory:
        raise ValueError(f"a game named {name!r} is already registered")
    _REGISTRY[name] = factory


def registered_games() -> list[str]:
    """The names ``load_game`` accepts, sorted."""
    return sorted(_REGISTRY)


def load_game(name: str, **options: Any) -> Game:
    """Returns the game ``name`` with ``options``; unknown names or options are
    a ValueError that says what is accepted."""
    try:
        factory = _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown game {name!r}; registered games: {', '.join(registered_games())}"
        ) from None
    signature = inspect.signature(factory)
    try:
        signature.bind(**options)
    except TypeError as error:
        accepted = ", ".join(signature.parameters) or "none"
        raise ValueError(f"{name}: {error} (its options: {accepted})") from None
    return factory(**options)


def returns_for_winners(winners: Sequence[int], num_players: int) -> list[float]:
    """Zero-sum returns where the winners share one win equally.

    With ``k`` winners among ``n`` seats, seat ``i`` gets ``(n*s_i - 1)/(n - 1)``
    where ``s_i`` is ``1/k`` for a winner and 0 otherwise: a lone winner gets +1,
    the others -1/(n-1) each (so +1/-1 with two players), a tie among all seats
    gives everyone 0, and the returns always sum to 0.
    """
    n = num_players
    share = 1.0 / len(winners)
    won = set(winners)
    return [((n * share if seat in won else 0.0) - 1.0) / (n - 1) for seat in range(n)]
