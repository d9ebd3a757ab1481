"""The Game API shared by every game: constants, errors, the registry.

It mirrors OpenSpiel's method names (``current_player``, ``legal_actions``,
``apply_action``, ``chance_outcomes`` ...) so that search algorithms and habits
carry over. A game module defines a Game (options, ``new_initial_state``) and a
State, and registers the Game's constructor under its name at import time.
"""

from __future__ import annotations

import enum
import functools
import inspect
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, Self, cast, runtime_checkable

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
    actions: ActionKind  # CONTINUOUS: states are ``ContinuousState``s
    position_hash: bool  # states have ``zobrist_hash()``: a ``HashedState``
    turn_override: bool  # states have ``with_turn(seat)``: a ``TurnOverrideState``
    batch_playouts: bool  # states have ``random_playouts(n, seed)``: a ``BatchPlayoutState``
    rules_version: int


@runtime_checkable
class State(Protocol):
    """What every game's State offers (see docs/architecture.md, "The Game API")."""

    @property
    def game(self) -> Game:
        """The Game this state belongs to (its options and ``game_type``)."""
        ...

    def current_player(self) -> int: ...
    def legal_actions(self) -> list[Any]: ...
    def apply_action(self, action: Any) -> None: ...
    def child(self, action: Any) -> State: ...
    def clone(self) -> State: ...
    def is_chance_node(self) -> bool: ...
    def chance_outcomes(self) -> list[tuple[Any, float]]: ...
    def is_terminal(self) -> bool: ...
    def returns(self) -> list[float]: ...
    def scores(self) -> list[int]:
        """Each seat's score as the game counts it (balls, points); the
        winner is decided from these, ``returns()`` says by how much."""
        ...

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


# --- what a GameType's flags promise ------------------------------------------
#
# A GameType says when every state of the game offers more than State: the
# protocols below name those methods, and the ``as_...`` functions narrow a
# state to one after reading its game's declaration (never by probing it).


class ContinuousState(State, Protocol):
    """A state of a game with ``ActionKind.CONTINUOUS``: ``legal_actions()`` is
    only a representative list; any action within ``action_space()`` is legal."""

    def action_space(self) -> Any: ...
    def sample_actions(self, n: int, rng: random.Random) -> list[Any]:
        """``n`` legal actions drawn uniformly from the action space."""
        ...


class HashedState(State, Protocol):
    """A state of a game with ``position_hash``."""

    def zobrist_hash(self) -> int:
        """A 64-bit key of the position: equal positions (however reached)
        get equal keys, the seat to move included."""
        ...


class TurnOverrideState(State, Protocol):
    """A state of a game with ``turn_override``."""

    def with_turn(self, seat: int) -> Self:
        """A copy with ``seat`` to move and nothing else changed: not a move of
        the game, but what Best-Reply Search needs (one opponent replies while
        the others wait)."""
        ...


class BatchPlayoutState(State, Protocol):
    """A state of a game with ``batch_playouts``."""

    def random_playouts(self, n: int, seed: int) -> list[tuple[float, ...]]:
        """Plays ``n`` uniformly random games (chance by its odds) from here to
        the end in compiled code and returns each game's ``returns()``, a
        tuple of one float per seat, in order. The state is unchanged; the
        same ``seed`` (any int, taken mod 2**64) gives the same games.
        ``n`` is an int from 0 to ``MAX_PLAYOUTS`` (see
        ``check_playout_arguments``)."""
        ...


MAX_PLAYOUTS = 10_000_000  # per call: the results are Python tuples


def check_playout_arguments(n: object, seed: object) -> None:
    """What every ``random_playouts`` checks first: ``n`` an int (not a bool)
    from 0 to MAX_PLAYOUTS, ``seed`` an int (not a bool); TypeError for a
    wrong type, ValueError for a count out of range."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"random_playouts: n must be an int (the number of playouts), got {n!r}")
    if not 0 <= n <= MAX_PLAYOUTS:
        raise ValueError(f"random_playouts: n must be within 0..{MAX_PLAYOUTS:_}, got {n}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"random_playouts: seed must be an int, got {seed!r}")


def as_continuous(state: State) -> ContinuousState:
    """``state`` with its action space; ValueError unless its game declares
    continuous actions."""
    _require(state, state.game.game_type.actions is ActionKind.CONTINUOUS, "continuous actions")
    return cast(ContinuousState, state)


def as_hashed(state: State) -> HashedState:
    """``state`` with ``zobrist_hash()``; ValueError unless its game declares
    ``position_hash``."""
    _require(state, state.game.game_type.position_hash, "position hashes")
    return cast(HashedState, state)


def as_turn_override(state: State) -> TurnOverrideState:
    """``state`` with ``with_turn(seat)``; ValueError unless its game declares
    ``turn_override``."""
    _require(state, state.game.game_type.turn_override, "turn override")
    return cast(TurnOverrideState, state)


def as_batch_playouts(state: State) -> BatchPlayoutState:
    """``state`` with ``random_playouts(n, seed)``; ValueError unless its game
    declares ``batch_playouts``."""
    _require(state, state.game.game_type.batch_playouts, "batch playouts")
    return cast(BatchPlayoutState, state)


def _require(state: State, declared: bool, what: str) -> None:
    if not declared:
        raise ValueError(f"{state.game.name} does not declare {what}")


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


@functools.cache
def _signature(factory: GameFactory) -> inspect.Signature:
    return inspect.signature(factory)


def load_game(name: str, **options: Any) -> Game:
    """Returns the game ``name`` with ``options``; unknown names or options are
    a ValueError that says what is accepted."""
    try:
        factory = _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown game {name!r}; registered games: {', '.join(registered_games())}"
        ) from None
    signature = _signature(factory)
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
