"""The physical constants of Volta, in SI units (RULES.md gives the reasoning).

``Physics`` is a frozen value object so that a World built from it is fully
described by it; tests build variants with ``dataclasses.replace`` (no ground
friction to watch momentum, a rider of zero mass, ...). The game always uses
``DEFAULT_PHYSICS``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

GRAVITY = 9.81  # m/s^2

LARGE, SMALL = "large", "small"
DENT_SIZES = (LARGE, SMALL)


@dataclass(frozen=True)
class Dent:
    """A dent that a marble of radius ``ball_radius`` sits in, resting on the
    dent's circular rim of radius ``rim_radius``."""

    rim_radius: float  # m

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
    ground_friction: float = 0.3  # varnished wood sliding on wood
    restitution: float = 0.5  # hardwood on hardwood
    contact_friction: float = 0.3  # steed side on steed side
    ball_radius: float = 0.008  # a 16 mm marble
    rider_mass: float = 0.0055  # 16 mm glass marble (2.5 g/cm^3)
    rolling_resistance: float = 0.01  # marble rolling on wood, force / weight
    large_dent: Dent = Dent(rim_radius=0.008 * math.sin(math.radians(45.0)))
    small_dent: Dent = Dent(rim_radius=0.008 * math.sin(math.radians(30.0)))
    flick_duration: float = 0.04  # a brief finger push: 40 ms
    max_impulse: float = 0.1  # N*s: what a fingertip gives a 38 g steed
    max_push_angle: float = math.atan(0.8)  # skin on wood friction cone
    time_step: float = 0.001  # s
    time_cap: float = 10.0  # s of simulated time per flick
    frame_rate: float = 50.0  # frames per second of recorded trajectories

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


DEFAULT_PHYSICS = Physics()
