"""Plain-Python reference of the core's key physics, for differential tests.

Written for clarity, not speed, and independently of the Cython code where it
matters: friction is integrated over the square directly (the core
interpolates a table), the contact is found by testing every corner of each
square against the other (the core uses separating axes and clipping), and
the impulse is computed with small vector helpers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Vec = tuple[float, float]


def add(a: Vec, b: Vec) -> Vec:
    return (a[0] + b[0], a[1] + b[1])


def sub(a: Vec, b: Vec) -> Vec:
    return (a[0] - b[0], a[1] - b[1])


def scale(a: Vec, k: float) -> Vec:
    return (a[0] * k, a[1] * k)


def dot(a: Vec, b: Vec) -> float:
    return a[0] * b[0] + a[1] * b[1]


def cross(a: Vec, b: Vec) -> float:
    return a[0] * b[1] - a[1] * b[0]


def rotate(a: Vec, angle: float) -> Vec:
    c, s = math.cos(angle), math.sin(angle)
    return (c * a[0] - s * a[1], s * a[0] + c * a[1])


# --- friction -------------------------------------------------------------


def square_friction(
    angle: float, velocity: Vec, omega: float, half_side: float, grid: int = 200
) -> tuple[float, float, float]:
    """Coulomb friction on a uniformly loaded square, per unit mu*load*g:
    (fx, fy) and the torque per unit mu*load*g*half_side; the mean over the
    square of -unit(velocity of the point), by the midpoint rule."""
    fx = fy = torque = 0.0
    for i in range(grid):
        for j in range(grid):
            body = (
                (-1.0 + (i + 0.5) * 2.0 / grid) * half_side,
                (-1.0 + (j + 0.5) * 2.0 / grid) * half_side,
            )
            arm = rotate(body, angle)
            point_velocity = (velocity[0] - omega * arm[1], velocity[1] + omega * arm[0])
            speed = math.hypot(*point_velocity)
            if speed == 0.0:
                continue
            fx -= point_velocity[0] / speed
            fy -= point_velocity[1] / speed
            torque -= cross(arm, point_velocity) / speed
    n = grid * grid
    return (fx / n, fy / n, torque / n / half_side)


# --- contact --------------------------------------------------------------


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    angle: float
    half_side: float

    def corners(self) -> list[Vec]:
        h = self.half_side
        offsets = ((h, h), (-h, h), (-h, -h), (h, -h))
        return [add((self.x, self.y), rotate(c, self.angle)) for c in offsets]

    def to_body(self, point: Vec) -> Vec:
        return rotate(sub(point, (self.x, self.y)), -self.angle)

    def contains(self, point: Vec, tolerance: float = 0.0) -> bool:
        bx, by = self.to_body(point)
        limit = self.half_side + tolerance
        return abs(bx) <= limit and abs(by) <= limit


def boxes_overlap(a: Box, b: Box) -> bool:
    """Two squares overlap when a corner of one is inside the other or an edge
    of one crosses an edge of the other."""
    if b.contains((a.x, a.y)) or a.contains((b.x, b.y)):
        return True
    if any(b.contains(c) for c in a.corners()) or any(a.contains(c) for c in b.corners()):
        return True
    ca, cb = a.corners(), b.corners()
    for i in range(4):
        for j in range(4):
            if _segments_cross(ca[i], ca[(i + 1) % 4], cb[j], cb[(j + 1) % 4]):
                return True
    return False


def _segments_cross(p: Vec, q: Vec, r: Vec, s: Vec) -> bool:
    d1 = cross(sub(q, p), sub(r, p))
    d2 = cross(sub(q, p), sub(s, p))
    d3 = cross(sub(s, r), sub(p, r))
    d4 = cross(sub(s, r), sub(q, r))
    return d1 * d2 < 0 and d3 * d4 < 0


# --- impulse --------------------------------------------------------------


@dataclass
class Body:
    x: float
    y: float
    vx: float
    vy: float
    omega: float
    mass: float
    inertia: float

    def point_velocity(self, point: Vec) -> Vec:
        arm = sub(point, (self.x, self.y))
        return (self.vx - self.omega * arm[1], self.vy + self.omega * arm[0])

    def push(self, point: Vec, impulse: Vec) -> None:
        arm = sub(point, (self.x, self.y))
        self.vx += impulse[0] / self.mass
        self.vy += impulse[1] / self.mass
        self.omega += cross(arm, impulse) / self.inertia


def _inverse_mass(a: Body, b: Body, point: Vec, direction: Vec) -> float:
    ra = cross(sub(point, (a.x, a.y)), direction)
    rb = cross(sub(point, (b.x, b.y)), direction)
    return 1 / a.mass + 1 / b.mass + ra * ra / a.inertia + rb * rb / b.inertia


def _exchange(a: Body, b: Body, point: Vec, impulse: Vec) -> None:
    b.push(point, impulse)
    a.push(point, scale(impulse, -1.0))


def resolve_impulse(
    a: Body, b: Body, point: Vec, normal: Vec, restitution: float, friction: float
) -> bool:
    """The contact impulse at ``point`` with ``normal`` from a to b, as the core
    defines it: restitution along the normal, Coulomb friction (at most
    ``friction`` times the normal impulse, at most what stops the sliding),
    then a plastic normal correction if still approaching. Mutates a and b."""
    relative = sub(b.point_velocity(point), a.point_velocity(point))
    approach = dot(relative, normal)
    if approach >= 0.0:
        return False
    normal_impulse = -(1 + restitution) * approach / _inverse_mass(a, b, point, normal)
    _exchange(a, b, point, scale(normal, normal_impulse))
    relative = sub(b.point_velocity(point), a.point_velocity(point))
    sliding = sub(relative, scale(normal, dot(relative, normal)))
    speed = math.hypot(*sliding)
    if speed > 0.0:
        tangent = scale(sliding, 1 / speed)
        stop = speed / _inverse_mass(a, b, point, tangent)
        _exchange(a, b, point, scale(tangent, -min(stop, friction * normal_impulse)))
        approach = dot(sub(b.point_velocity(point), a.point_velocity(point)), normal)
        if approach < 0.0:
            _exchange(a, b, point, scale(normal, -approach / _inverse_mass(a, b, point, normal)))
    return True


# --- a lone steed sliding -------------------------------------------------


def slide_to_rest(speed: float, mu: float, gravity: float = 9.81) -> tuple[float, float]:
    """(distance, time) for a body sliding without spin at ``speed`` under
    Coulomb friction: v^2 / (2 mu g) and v / (mu g)."""
    return speed * speed / (2 * mu * gravity), speed / (mu * gravity)


def spin_to_rest(
    omega: float, mu: float, side: float, load_ratio: float = 1.0, gravity: float = 9.81
) -> tuple[float, float]:
    """(angle turned, time) for a uniformly loaded square of side ``side``
    spinning in place: the friction torque is mu * load * g times the mean
    distance of its points from the centre, side * (sqrt 2 + ln(1 + sqrt 2)) / 6,
    against the square's inertia m side^2 / 6 (``load_ratio`` = load / m: a
    seated marble at the centre weighs on the square but adds no inertia)."""
    arm = side * (math.sqrt(2) + math.log(1 + math.sqrt(2))) / 6
    inertia_per_mass = side * side / 6
    decel = mu * gravity * load_ratio * arm / inertia_per_mass
    return omega * omega / (2 * decel), abs(omega) / decel


# --- one steed sliding and spinning to rest -------------------------------


@dataclass(frozen=True)
class Slide:
    """A lone steed's Coulomb step, as the core does it: the friction impulse
    of a step may stop the motion but never reverse it; positions advance by
    the trapezoid rule, and by the exact constant-deceleration distance in
    the step that stops them."""

    mu: float
    gravity: float
    half_side: float
    mass: float
    load: float  # what presses on the ground (steed plus a seated marble)
    dt: float
    grid: int = 24

    @property
    def inertia(self) -> float:
        side = 2 * self.half_side
        return self.mass * side * side / 6

    def step(self, pose: tuple[float, ...]) -> tuple[float, ...]:
        x, y, angle, vx, vy, omega = pose
        fx, fy, torque = square_friction(angle, (vx, vy), omega, self.half_side, self.grid)
        pull = self.mu * self.load * self.gravity * self.dt
        dvx, dvy = pull * fx / self.mass, pull * fy / self.mass
        dw = pull * self.half_side * torque / self.inertia
        speed2, dv2 = vx * vx + vy * vy, dvx * dvx + dvy * dvy
        if dv2 >= speed2:
            stop = self.dt * math.sqrt(speed2 / dv2) if dv2 > 0 else 0.0
            x, y, nvx, nvy = x + 0.5 * vx * stop, y + 0.5 * vy * stop, 0.0, 0.0
        else:
            nvx, nvy = vx + dvx, vy + dvy
            x, y = x + 0.5 * (vx + nvx) * self.dt, y + 0.5 * (vy + nvy) * self.dt
        if dw * dw >= omega * omega:
            angle += 0.5 * omega * self.dt * (abs(omega / dw) if dw else 0.0)
            nomega = 0.0
        else:
            nomega = omega + dw
            angle += 0.5 * (omega + nomega) * self.dt
        return (x, y, angle, nvx, nvy, nomega)

    def to_rest(self, pose: tuple[float, ...], limit: int = 10_000) -> tuple[float, ...]:
        for _ in range(limit):
            if pose[3:] == (0.0, 0.0, 0.0):
                break
            pose = self.step(pose)
        return pose
