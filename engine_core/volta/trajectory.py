"""What a simulated flick returns: frames for clients to animate, events, and
the outcome under the match rules."""

from __future__ import annotations

from dataclasses import dataclass

from engine_core.volta._physics import FALLEN_STATE, ROLLING_STATE

RIDER_STATES = {0: "seated", ROLLING_STATE: "rolling", FALLEN_STATE: "fallen"}


@dataclass(frozen=True, slots=True)
class Pose:
    """One steed and its rider at one instant (metres, radians)."""

    x: float
    y: float
    angle: float
    on_arena: bool
    rider_x: float
    rider_y: float
    rider: str  # "seated", "rolling" (in the dent) or "fallen"


@dataclass(frozen=True, slots=True)
class Frame:
    time: float  # seconds since the flick began
    steeds: tuple[Pose, Pose]  # by seat


@dataclass(frozen=True, slots=True)
class Event:
    time: float
    kind: str  # "collision", "rider_fall" or "steed_fall"
    seat: int | None  # whose rider or steed fell; None for collisions


@dataclass(frozen=True, slots=True)
class FlickResult:
    """The result of one flick: ``frames`` at the physics' frame rate (plus
    the final one) when recorded, else empty; ``point_to`` is the seat that
    scores, or None when the turn simply passes."""

    mover: int
    events: tuple[Event, ...]
    frames: tuple[Frame, ...]
    point_to: int | None
    capped: bool  # the time cap ended the simulation before all was at rest
    duration: float


def pose_from(raw: tuple[float, ...], base: int) -> Pose:
    return Pose(
        x=raw[base],
        y=raw[base + 1],
        angle=raw[base + 2],
        on_arena=raw[base + 3] != 0.0,
        rider_x=raw[base + 4],
        rider_y=raw[base + 5],
        rider=RIDER_STATES[int(raw[base + 6])],
    )


def frame_from(raw: tuple[float, ...]) -> Frame:
    """Seat i always plays steed i (a swap exchanges the riders' marbles)."""
    return Frame(time=raw[0], steeds=(pose_from(raw, 1), pose_from(raw, 8)))


def event_from(raw: tuple[float, str, int]) -> Event:
    time, kind, steed = raw
    return Event(time=time, kind=kind, seat=None if steed < 0 else steed)
