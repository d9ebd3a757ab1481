"""The physical constants of Volta, in SI units (RULES.md gives the reasoning).

``Physics`` is a frozen value object so that a World built from it is fully
described by it; tests build variants with ``dataclasses.replace`` (no ground
friction to watch momentum, a rider of zero mass, ...). The game always uses
``DEFAULT_PHYSICS``.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, fields

GRAVITY = 9.81  # m/s^2

LARGE, SMALL = "large", "small"
DENT_SIZES = (LARGE, SMALL)


def check_real(name: str, value: object, low: float, high: float) -> float:
    """``value`` as a float if it is a real number (not a bool) within
    [low, high]; else TypeError or ValueError naming ``name``. NaN and
    infinities are never within."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"volta: {name} must be a real number, got {value!r}")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(f"volta: {name} is out of range: {value!r}") from None
    if not low <= number <= high:
        raise ValueError(f"volta: {name} must be within [{low!r}, {high!r}], got {value!r}")
    return number


@dataclass(frozen=True)
class Dent:
    """A dent that a marble of radius ``ball_radius`` sits in, resting on the
    dent's circular rim of radius ``rim_radius``."""

    rim_radius: float  # m

    def __post_init__(self) -> None:
        check_real("a dent's rim radius", self.rim_radius, 0.0, 1.0)

    def lip_angle(self, ball_radius: float) -> float:
        """Angle of the rim contact normal from the vertical: the wall holds a
        horizontal acceleration up to g*tan(lip angle)."""
        return math.asin(self.rim_radius / ball_radius)

    def lip_height(self, ball_radius: float) -> float:
        """How far the ball's centre must rise to roll over the rim."""
        return ball_radius - math.sqrt(ball_radius**2 - self.rim_radius**2)


@dataclass(frozen=True)
class Physics:
    """Every constant of the simulation; see RULES.md for the real-world values."""

    gravity: float = GRAVITY
    arena_radius: float = 0.12  # a 24 cm wooden disk
    steed_side: float = 0.05  # a 5 cm square of beech, 18 mm thick
    steed_mass: float = 0.032  # 5 x 5 x 1.8 cm^3 at 720 kg/m^3
    start_offset: float = 0.075  # centres at (-/+ 7.5 cm, 0): "opposite ends"
    ground_friction: float = 0.25  # varnished wood sliding on varnished wood
    restitution: float = 0.5  # hardwood on hardwood
    contact_friction: float = 0.3  # steed side on steed side
    ball_radius: float = 0.008  # a 16 mm marble
    rider_mass: float = 0.0055  # 16 mm glass marble (2.5 g/cm^3)
    rolling_resistance: float = 0.01  # marble rolling on wood, force / weight
    large_dent: Dent = Dent(rim_radius=0.008 * math.sin(math.radians(50.0)))
    small_dent: Dent = Dent(rim_radius=0.008 * math.sin(math.radians(30.0)))
    flick_duration: float = 0.08  # a brief finger push: 80 ms
    min_impulse: float = 0.012  # N*s: the gentlest nudge, which always moves the steed
    max_impulse: float = 0.1  # N*s: what a fingertip gives a 38 g steed
    max_push_angle: float = math.atan(0.8)  # skin on wood friction cone
    time_step: float = 0.001  # s
    time_cap: float = 10.0  # s of simulated time per flick
    frame_rate: float = 50.0  # frames per second of recorded trajectories

    def __post_init__(self) -> None:
        """Every constant finite and physical, so that the core, which trusts
        them, can neither divide by zero nor loop for ever nor overflow."""
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, Dent):
                if not 0.0 < value.rim_radius < self.ball_radius:
                    raise ValueError(f"volta: {field.name}'s rim must be narrower than the ball")
                continue
            low, high = PHYSICS_LIMITS[field.name]
            check_real(field.name, value, low, high)
            if low == 0.0 and field.name in POSITIVE and not value > 0.0:
                raise ValueError(f"volta: {field.name} must be positive, got {value!r}")
        if not self.min_impulse < self.max_impulse:
            raise ValueError("volta: min_impulse must be under max_impulse")
        if not self.start_offset < self.arena_radius:
            raise ValueError("volta: the steeds must start on the arena (start_offset < radius)")
        if self.frame_rate * self.time_step > 1.0:
            raise ValueError("volta: at most one frame per time step")
        if self.time_cap > MAX_STEPS * self.time_step:
            raise ValueError(f"volta: at most {MAX_STEPS:,} time steps per flick")
        if self.time_cap * self.frame_rate > MAX_FRAMES:
            raise ValueError(f"volta: at most {MAX_FRAMES:,} recorded frames per flick")

    def dent(self, size: str) -> Dent:
        """The ``"large"`` or ``"small"`` dent."""
        if size == LARGE:
            return self.large_dent
        if size == SMALL:
            return self.small_dent
        raise ValueError(f"volta: a dent is 'large' or 'small', got {size!r}")

    def climb_speed(self, size: str) -> float:
        """Relative speed a rolling marble needs to roll over the lip:
        (7/10) v^2 = g h, so v = sqrt(10 g h / 7)."""
        height = self.dent(size).lip_height(self.ball_radius)
        return math.sqrt(10.0 * self.gravity * height / 7.0)


# What a Physics may hold: (low, high) per constant, wide enough for any
# tabletop variant a test builds (no friction, a 10 m arena, a massless
# rider), narrow enough that the C doubles never overflow.
PHYSICS_LIMITS: dict[str, tuple[float, float]] = {
    "gravity": (0.0, 100.0),
    "arena_radius": (0.0, 10.0),
    "steed_side": (0.0, 1.0),
    "steed_mass": (0.0, 10.0),
    "start_offset": (0.0, 10.0),
    "ground_friction": (0.0, 10.0),
    "restitution": (0.0, 1.0),
    "contact_friction": (0.0, 10.0),
    "ball_radius": (0.0, 1.0),
    "rider_mass": (0.0, 10.0),
    "rolling_resistance": (0.0, 1.0),
    "flick_duration": (0.0, 10.0),
    "min_impulse": (0.0, 100.0),
    "max_impulse": (0.0, 100.0),
    "max_push_angle": (0.0, 1.5),  # under pi/2: a push always goes into the steed
    "time_step": (0.0, 0.1),
    "time_cap": (0.0, 600.0),
    "frame_rate": (0.0, 1e6),
}
# Of those with a low of 0, the ones that must not be 0 (a divisor, a size).
POSITIVE = frozenset(
    {
        "gravity",
        "arena_radius",
        "steed_side",
        "steed_mass",
        "ball_radius",
        "flick_duration",
        "max_impulse",
        "max_push_angle",
        "time_step",
        "time_cap",
        "frame_rate",
    }
)
MAX_STEPS = 10_000_000
MAX_FRAMES = 1_000_000

DEFAULT_PHYSICS = Physics()
