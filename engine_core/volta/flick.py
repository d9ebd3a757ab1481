"""The flick, Volta's action: where a finger touches the steed, which way it
pushes and how hard. Validation, text form and sampling live here."""

from __future__ import annotations

import math
import numbers
import random
from dataclasses import dataclass

from engine_core.api import MalformedAction
from engine_core.volta.params import DEFAULT_PHYSICS, Physics

SIDES = 4  # 0: the steed's +x side, 1: +y, 2: -x, 3: -y (counter-clockwise)
FIELDS = ("side", "offset", "angle", "impulse")


@dataclass(frozen=True, slots=True)
class Flick:
    """A finger push on the mover's steed.

    ``side`` 0..3 is the side touched, in the steed's own frame (0: +x, then
    counter-clockwise). ``offset`` in [-1, 1] is where along that side, in half
    sides from its middle (+-1 are the corners; positive is counter-clockwise).
    ``angle`` (radians) turns the push away from the side's inward normal
    (positive is counter-clockwise); it is limited by the fingertip's friction
    cone, so a push always goes into the steed. ``impulse`` (N s) is the push's
    total impulse, from the gentlest nudge that still moves the steed (the
    rulebook's "Move your steed by nudging it": there is no pass) to what a
    finger can give.
    """

    side: int
    offset: float = 0.0
    angle: float = 0.0
    impulse: float = 0.0


@dataclass(frozen=True)
class ActionSpace:
    """The bounds of a flick: any Flick inside them (bounds included) is legal
    whenever the match is not over. ``impulse[0]`` is the minimum nudge: every
    legal flick moves the mover's steed (RULES.md, "No pass")."""

    sides: tuple[int, ...]
    offset: tuple[float, float]
    angle: tuple[float, float]
    impulse: tuple[float, float]


def action_space(physics: Physics = DEFAULT_PHYSICS) -> ActionSpace:
    return ActionSpace(
        sides=tuple(range(SIDES)),
        offset=(-1.0, 1.0),
        angle=(-physics.max_push_angle, physics.max_push_angle),
        impulse=(physics.min_impulse, physics.max_impulse),
    )


def _check_number(name: str, value: object, bounds: tuple[float, float]) -> float:
    # Any real number: int, float, Fraction, numpy's float32 and int64 (which
    # register as numbers.Real); a bool is a flag, not a number (numpy's
    # bool_ is no numbers.Real at all).
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise MalformedAction(f"flick {name} must be a number, got {value!r}")
    try:
        number = float(value)
    except OverflowError:  # an int too large for a float
        raise MalformedAction(f"flick {name} is far outside the bounds: {value!r}") from None
    if not math.isfinite(number):
        raise MalformedAction(f"flick {name} must be finite, got {value!r}")
    low, high = bounds
    if not low <= number <= high:
        raise MalformedAction(f"flick {name} {value!r} is outside [{low!r}, {high!r}]")
    return number


def validate(flick: object, physics: Physics = DEFAULT_PHYSICS) -> Flick:
    """The flick with plain float fields, or a MalformedAction saying what is
    wrong with it (wrong type, side not 0..3, a value out of bounds, NaN, inf)."""
    if not isinstance(flick, Flick):
        raise MalformedAction(f"a Volta action is a Flick, got {type(flick).__name__}: {flick!r}")
    if isinstance(flick.side, bool) or not isinstance(flick.side, numbers.Integral):
        raise MalformedAction(f"flick side must be an int 0..3, got {flick.side!r}")
    if not 0 <= flick.side < SIDES:
        raise MalformedAction(f"flick side must be 0..3, got {flick.side!r}")
    space = action_space(physics)
    return Flick(
        side=int(flick.side),
        offset=_check_number("offset", flick.offset, space.offset),
        angle=_check_number("angle", flick.angle, space.angle),
        impulse=_check_number("impulse", flick.impulse, space.impulse),
    )


def to_string(flick: Flick) -> str:
    """``side=0 offset=0.25 angle=-0.1 impulse=0.03`` (floats round-trip)."""
    return (
        f"side={flick.side} offset={flick.offset!r} angle={flick.angle!r} impulse={flick.impulse!r}"
    )


def parse(text: str, physics: Physics = DEFAULT_PHYSICS) -> Flick:
    """The inverse of ``to_string``; a MalformedAction for anything else."""
    if not isinstance(text, str):
        raise MalformedAction(f"not a flick string: {text!r}")
    values: dict[str, str] = {}
    for token in text.split():
        key, sep, value = token.partition("=")
        if not sep or key not in FIELDS or key in values:
            raise MalformedAction(
                f"not a flick string (side=.. offset=.. angle=.. impulse=..): {text!r}"
            )
        values[key] = value
    if set(values) != set(FIELDS):
        raise MalformedAction(f"a flick string needs {', '.join(FIELDS)}: {text!r}")
    try:
        flick = Flick(
            side=int(values["side"]),
            offset=float(values["offset"]),
            angle=float(values["angle"]),
            impulse=float(values["impulse"]),
        )
    except ValueError:
        raise MalformedAction(f"not a flick string (numbers expected): {text!r}") from None
    return validate(flick, physics)


def check_count(n: object) -> int:
    """``n`` for ``sample``: a count, so an int >= 0 (a ValueError otherwise)."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
        raise ValueError(f"the number of flicks to sample must be an int >= 0, got {n!r}")
    return int(n)


def sample(n: int, rng: random.Random, physics: Physics = DEFAULT_PHYSICS) -> list[Flick]:
    """``n`` flicks drawn uniformly from the action space with ``rng``."""
    n = check_count(n)
    space = action_space(physics)
    return [
        Flick(
            side=rng.randrange(SIDES),
            offset=rng.uniform(*space.offset),
            angle=rng.uniform(*space.angle),
            impulse=rng.uniform(*space.impulse),
        )
        for _ in range(n)
    ]


# legal_actions(): a representative grid, since the real space is continuous.
GRID_OFFSETS = (-0.5, 0.0, 0.5)
GRID_ANGLE_SHARES = (-0.5, 0.0, 0.5)
# The minimum, then shares of the maximum: dense where riders stay on.
GRID_IMPULSE_SHARES = (0.2, 0.3, 0.45, 1.0)


def representative(physics: Physics = DEFAULT_PHYSICS) -> list[Flick]:
    """4 sides x 3 offsets x 3 angles x 5 impulses = 180 flicks spanning the
    space, from the minimum nudge up, with the gentle end dense (that is
    where riders stay on)."""
    impulses = [physics.min_impulse] + [
        max(physics.min_impulse, round(share * physics.max_impulse, 9))
        for share in GRID_IMPULSE_SHARES
    ]
    return [
        Flick(side, offset, round(share * physics.max_push_angle, 9), impulse)
        for side in range(SIDES)
        for offset in GRID_OFFSETS
        for share in GRID_ANGLE_SHARES
        for impulse in impulses
    ]
