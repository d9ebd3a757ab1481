"""``World``: the Python face of the Volta core (``_physics.pyx``).

It sets the two steeds and their riders up, starts a flick, runs the C core
to rest and hands back events and frames; the physics lives in _physics.pyx.

Every argument is checked here, before it reaches the C structs: a steed
index is 0 or 1, every number is finite and within physical limits (a NaN or
an overflow would otherwise index the friction table out of bounds), and a
World that ``__init__`` never set up refuses to run. Wrong types raise
TypeError, wrong values ValueError.
"""

import math
import numbers

from libc.math cimport cos, sin, sqrt
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from engine_core.volta._physics cimport (
    at_rest,
    lip_slope,
    refresh_rider,
    run_to_rest,
    step,
    touching,
)
from engine_core.volta._types cimport (
    FALLEN,
    FRAME_DOUBLES,
    ROLLING,
    SEATED,
    Body,
    Log,
    Params,
    Rider,
    Sim,
)

from engine_core.volta._physics import EVENT_KINDS
from engine_core.volta.params import Physics

# A rolling marble takes 5/7 of a push (see _physics.pyx).
cdef double ROLL = 5.0 / 7.0

# Limits on what a World accepts: far beyond anything on a tabletop, well
# within what the C doubles carry through a run without overflow.
POSITION_LIMIT = 100.0  # m from the arena's centre
ANGLE_LIMIT = 1e6  # rad
SPEED_LIMIT = 100.0  # m/s, of a steed or of a marble in its dent
SPIN_LIMIT = 1e4  # rad/s
RIDER_MASS_LIMIT = 10.0  # kg

cdef int SIDE_NORMALS[4][2]
SIDE_NORMALS[0][:] = [1, 0]
SIDE_NORMALS[1][:] = [0, 1]
SIDE_NORMALS[2][:] = [-1, 0]
SIDE_NORMALS[3][:] = [0, -1]


cdef int _index(str name, object value, int count) except -1:
    """An int in 0..count-1 (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if not 0 <= value < count:
        raise ValueError(f"{name} must be 0..{count - 1}, got {value!r}")
    return <int>value


cdef double _real(str name, object value, double low, double high) except? -1.0:
    """A finite real number (not a bool) in [low, high], as a C double."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(f"{name} is out of range: {value!r}") from None
    if not low <= number <= high:  # also refuses NaN
        raise ValueError(f"{name} must be finite and within [{low!r}, {high!r}], got {value!r}")
    return number


cdef bint _flag(str name, object value) except -1:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {value!r}")
    return value


cdef tuple _pair(str name, object value):
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"{name} must be a pair (one per steed), got {value!r}")
    return (value[0], value[1])


cdef class World:
    """Two steeds with riders on the arena, and the physics that moves them.

    Steed 0 starts at (-start_offset, 0), steed 1 at (+start_offset, 0), both
    square to the x axis. ``physics`` is an ``engine_core.volta.Physics``.
    A rider mass of 0 means no rider (for tests of the bare steeds).
    """

    cdef Sim sim
    cdef double start_offset
    cdef object _physics
    cdef double* _frames
    cdef int _frame_capacity
    cdef bint _ready

    def __cinit__(self) -> None:
        self._frames = NULL
        self._frame_capacity = 0
        self._ready = 0

    def __dealloc__(self) -> None:
        free(self._frames)

    cdef int _check(self) except -1:
        if not self._ready:
            raise ValueError("this World was never set up: build it with World(physics, ...)")
        return 0

    def __init__(self, physics, rider_masses=(0.0, 0.0), rim_radii=(0.0, 0.0)):
        if not isinstance(physics, Physics):
            raise TypeError(f"physics must be an engine_core.volta.Physics, got {physics!r}")
        masses = _pair("rider_masses", rider_masses)
        rims = _pair("rim_radii", rim_radii)
        self._ready = 0
        self._physics = physics
        cdef Params* p = &self.sim.p
        p.g = physics.gravity
        p.arena_radius = physics.arena_radius
        p.half_side = 0.5 * physics.steed_side
        p.mass = physics.steed_mass
        p.inertia = physics.steed_mass * physics.steed_side ** 2 / 6.0
        p.inv_inertia = 1.0 / p.inertia
        p.inv_mass = 1.0 / p.mass
        p.mu = physics.ground_friction
        p.restitution = physics.restitution
        p.mu_contact = physics.contact_friction
        p.rolling_resistance = physics.rolling_resistance
        p.duration = physics.flick_duration
        p.dt = physics.time_step
        p.time_cap = physics.time_cap
        p.steps_per_frame = max(1, int(round(1.0 / (physics.frame_rate * physics.time_step))))
        self.start_offset = physics.start_offset
        self._ready = 1
        for i in range(2):
            self.configure_rider(i, masses[i], rims[i])
        self.reset()

    @property
    def physics(self):
        return self._physics

    def configure_rider(self, i, mass, rim_radius) -> None:
        """Gives steed i a marble of ``mass`` (kg; 0: no rider) in a dent of
        ``rim_radius`` (m), narrower than the ball. The marble is seated."""
        self._check()
        cdef int k = _index("steed", i, 2)
        cdef double m = _real("rider mass", mass, 0.0, RIDER_MASS_LIMIT)
        cdef double ball = self._physics.ball_radius
        cdef double rim = _real("rim radius", rim_radius, 0.0, ball)
        if m > 0.0 and not 0.0 < rim < ball:
            raise ValueError("a dent's rim must be narrower than the ball")
        self._configure_rider(k, m, rim)

    cdef void _configure_rider(self, int i, double mass, double rim_radius):
        cdef Rider* r = &self.sim.b[i].rider
        cdef double ball = self._physics.ball_radius
        r.mass = mass
        r.rim = rim_radius
        r.ball = ball
        cdef double sin_lip = rim_radius / ball
        # cos(2 phi) = 1 - 2 sin^2 phi
        r.switch_keep = (2.0 + 5.0 * (1.0 - 2.0 * sin_lip * sin_lip)) / 7.0
        r.state = SEATED if mass > 0.0 else FALLEN
        r.dx = r.dy = r.ux = r.uy = r.lean_x = r.lean_y = 0.0
        refresh_rider(r)
        r.hold = self.sim.p.g * lip_slope(r, 0.0) if mass > 0.0 else 0.0
        cdef double steed = self.sim.p.mass
        r.share = mass / (steed + mass)
        r.energy_factor = 0.5 * steed / (steed + mass) + 0.2
        r.inv_energy_factor = 1.0 / r.energy_factor
        r.inv_pair_mass = 1.0 / (steed + mass)
        r.inv_mass_rolling = 1.0 / (steed + (1.0 - ROLL) * mass)

    def reset(self) -> None:
        """Steeds back to their starting places, at rest, riders seated."""
        self._check()
        cdef int i
        for i in range(2):
            self._set_steed(i, (2 * i - 1) * self.start_offset, 0.0, 0.0, 0.0, 0.0, 0.0, 1)
            self._set_rider(i, SEATED if self.sim.b[i].rider.mass > 0.0 else FALLEN,
                            0.0, 0.0, 0.0, 0.0)
        self.sim.time = 0.0
        self.sim.steps = 0
        self.sim.push.body = -1
        self.sim.in_contact = 0

    def set_steed(self, i, x, y, angle, vx=0.0, vy=0.0, omega=0.0, on_arena=True) -> None:
        """Places steed i at (x, y) m turned by ``angle`` rad, moving at (vx, vy)
        m/s and spinning at ``omega`` rad/s; ``on_arena=False`` takes it out of
        play. Its rider keeps its state."""
        self._check()
        self._set_steed(
            _index("steed", i, 2),
            _real("x", x, -POSITION_LIMIT, POSITION_LIMIT),
            _real("y", y, -POSITION_LIMIT, POSITION_LIMIT),
            _real("angle", angle, -ANGLE_LIMIT, ANGLE_LIMIT),
            _real("vx", vx, -SPEED_LIMIT, SPEED_LIMIT),
            _real("vy", vy, -SPEED_LIMIT, SPEED_LIMIT),
            _real("omega", omega, -SPIN_LIMIT, SPIN_LIMIT),
            _flag("on_arena", on_arena),
        )

    cdef void _set_steed(self, int i, double x, double y, double angle, double vx, double vy,
                         double omega, bint on_arena):
        cdef Body* b = &self.sim.b[i]
        b.x, b.y, b.angle, b.vx, b.vy, b.omega = x, y, angle, vx, vy, omega
        self.sim.depth_known = 0
        b.cos_a = cos(angle)
        b.sin_a = sin(angle)
        b.active = on_arena

    def steed(self, i) -> tuple:
        """(x, y, angle, vx, vy, omega) of steed i."""
        self._check()
        cdef Body* b = &self.sim.b[_index("steed", i, 2)]
        return (b.x, b.y, b.angle, b.vx, b.vy, b.omega)

    def on_arena(self, i) -> bool:
        self._check()
        return bool(self.sim.b[_index("steed", i, 2)].active)

    def set_rider(self, i, state, dx=0.0, dy=0.0, ux=0.0, uy=0.0) -> None:
        """Puts steed i's marble in ``state`` (0 seated, 1 rolling, 2 fallen).
        A rolling marble is (dx, dy) m from its dent's centre, inside the rim,
        and rolls at (ux, uy) m/s relative to the steed; a seated or fallen one
        takes no offset or speed. A steed without a rider has only ``fallen``."""
        self._check()
        cdef int k = _index("steed", i, 2)
        cdef int mode = _index("rider state", state, 3)
        cdef Rider* r = &self.sim.b[k].rider
        cdef double ox = _real("dx", dx, -r.rim, r.rim), oy = _real("dy", dy, -r.rim, r.rim)
        cdef double vx = _real("ux", ux, -SPEED_LIMIT, SPEED_LIMIT)
        cdef double vy = _real("uy", uy, -SPEED_LIMIT, SPEED_LIMIT)
        if mode != FALLEN and r.mass <= 0.0:
            raise ValueError(f"steed {k} has no rider: its rider state can only be 2 (fallen)")
        if mode == ROLLING and not ox * ox + oy * oy < r.rim * r.rim:
            raise ValueError("a rolling marble is inside its dent's rim: dx^2 + dy^2 < rim^2")
        if mode != ROLLING and (ox or oy or vx or vy):
            raise ValueError("a seated or fallen marble takes no offset or speed (all 0)")
        self._set_rider(k, mode, ox, oy, vx, vy)

    cdef void _set_rider(self, int i, int state, double dx, double dy, double ux, double uy):
        cdef Rider* r = &self.sim.b[i].rider
        r.state = state
        r.dx, r.dy, r.ux, r.uy = dx, dy, ux, uy
        r.lean_x = r.lean_y = 0.0
        refresh_rider(r)
        if r.speed > 0.0 and r.rho == 0.0:
            r.lean_x, r.lean_y = ux / r.speed, uy / r.speed

    def rider(self, i) -> tuple:
        """(state, dx, dy, ux, uy): 0 seated, 1 rolling, 2 fallen; the ball's
        offset from the dent centre and its velocity relative to the steed."""
        self._check()
        cdef Rider* r = &self.sim.b[_index("steed", i, 2)].rider
        return (r.state, r.dx, r.dy, r.ux, r.uy)

    def rider_mass(self, i) -> float:
        self._check()
        return self.sim.b[_index("steed", i, 2)].rider.mass

    @property
    def time(self) -> float:
        return self.sim.time

    def start_flick(self, i, side, offset, angle, impulse) -> None:
        """A finger push on steed i: on ``side`` (0: +x, 1: +y, 2: -x, 3: -y of
        the steed's own frame) at ``offset`` half sides along it (-1 and 1 are
        the corners, counter-clockwise positive), pushing at ``angle`` from the
        side's inward normal (within the physics' max_push_angle), with total
        impulse ``impulse`` (N s, 0 to max_impulse; the match's minimum is a
        rule of the game, checked by ``flick.validate``). The steed must be on
        the arena. The world's clock restarts at 0."""
        self._check()
        cdef int k = _index("steed", i, 2)
        cdef int s = _index("side", side, 4)
        cdef double cone = self._physics.max_push_angle
        cdef double along = _real("offset", offset, -1.0, 1.0)
        cdef double turn = _real("angle", angle, -cone, cone)
        cdef double j = _real("impulse", impulse, 0.0, self._physics.max_impulse)
        if not self.sim.b[k].active:
            raise ValueError(f"steed {k} is off the arena: it cannot be flicked")
        self._start_flick(k, s, along, turn, j)

    cdef void _start_flick(self, int i, int side, double offset, double angle, double impulse):
        cdef Body* b = &self.sim.b[i]
        cdef double h = self.sim.p.half_side
        cdef double nx = SIDE_NORMALS[side][0], ny = SIDE_NORMALS[side][1]
        cdef double tx = -ny, ty = nx
        # inward normal turned by angle, in the body frame, then to the world
        cdef double dx = -nx * cos(angle) - tx * sin(angle)
        cdef double dy = -ny * cos(angle) - ty * sin(angle)
        cdef double c = b.cos_a, s = b.sin_a
        self.sim.push.body = i
        self.sim.push.cx = h * nx + offset * h * tx
        self.sim.push.cy = h * ny + offset * h * ty
        self.sim.push.jx = impulse * (c * dx - s * dy)
        self.sim.push.jy = impulse * (s * dx + c * dy)
        # Each flick has its own clock: frames and events count from it, and
        # whether the steeds already touch comes from their poses alone.
        self.sim.time = 0.0
        self.sim.steps = 0
        self.sim.in_contact = touching(&self.sim)
        self.sim.depth_known = 0
        self.sim.push.end = self.sim.p.duration
        self.sim.push.cos_now = 1.0

    def step(self) -> float | None:
        """One time step; the time of a new collision in it, or None."""
        self._check()
        cdef double hit
        with nogil:
            hit = step(&self.sim)
        return None if hit < 0.0 else hit

    def is_at_rest(self) -> bool:
        self._check()
        return bool(at_rest(&self.sim))

    def run(self, record=False) -> tuple:
        """Runs until everything is at rest or the time cap. Returns (events,
        frames, capped): events as (time, kind, steed) with kind one of
        EVENT_KINDS (steed -1 for collisions), frames (if ``record``) as
        tuples of FRAME_DOUBLES floats: time, then per steed x, y, angle, on
        arena (1/0), rider x, y, state."""
        self._check()
        cdef bint recording = _flag("record", record)
        cdef Sim* s = &self.sim
        cdef Log log
        cdef int needed
        log.event_count = 0
        log.frames = NULL
        log.frame_count = 0
        if recording:
            needed = <int>(s.p.time_cap / s.p.dt) // s.p.steps_per_frame + 3
            if needed > self._frame_capacity:
                free(self._frames)
                self._frames = <double*>malloc(needed * FRAME_DOUBLES * sizeof(double))
                if self._frames == NULL:
                    self._frame_capacity = 0
                    raise MemoryError()
                self._frame_capacity = needed
            log.frames = self._frames
        with nogil:
            run_to_rest(s, &log)
        events = [(log.events[k].time, EVENT_KINDS[log.events[k].kind], log.events[k].body)
                  for k in range(log.event_count)]
        frames = None
        if recording:
            frames = [tuple(log.frames[k * FRAME_DOUBLES + j] for j in range(FRAME_DOUBLES))
                      for k in range(log.frame_count)]
        return events, frames, not at_rest(s)

    def copy(self) -> World:
        self._check()
        cdef World other = World.__new__(World)
        memcpy(&other.sim, &self.sim, sizeof(Sim))
        other.start_offset = self.start_offset
        other._physics = self._physics
        other._ready = 1
        return other

    def snapshot(self) -> tuple:
        """Every number of the simulation state, for exact comparisons."""
        self._check()
        cdef Sim* s = &self.sim
        out = [s.time, s.steps, s.in_contact, s.push.body]
        for i in range(2):
            b = &s.b[i]
            r = &b.rider
            out += [b.x, b.y, b.angle, b.vx, b.vy, b.omega, b.active, r.state, r.dx, r.dy,
                    r.ux, r.uy, r.lean_x, r.lean_y]
        for i in range(2):
            b = &s.b[i]
            r = &b.rider
            out += [b.cos_a, b.sin_a, r.rho, r.z, r.speed]
        out += [s.depth, s.depth_known, s.push.jx, s.push.jy, s.push.cx, s.push.cy,
                s.push.end, s.push.cos_now]
        return tuple(out)

    # --- conserved quantities (steeds plus riders as point masses) -------

    def momentum(self) -> tuple:
        self._check()
        cdef double px = 0.0, py = 0.0
        for i in range(2):
            b = &self.sim.b[i]
            if not b.active:
                continue
            px += self.sim.p.mass * b.vx
            py += self.sim.p.mass * b.vy
            if b.rider.state != FALLEN:
                px += b.rider.mass * (b.vx + b.rider.ux)
                py += b.rider.mass * (b.vy + b.rider.uy)
        return (px, py)

    def angular_momentum(self, ox=0.0, oy=0.0) -> float:
        """About the fixed point (ox, oy)."""
        self._check()
        return self._angular_momentum(_real("ox", ox, -POSITION_LIMIT, POSITION_LIMIT),
                                      _real("oy", oy, -POSITION_LIMIT, POSITION_LIMIT))

    cdef double _angular_momentum(self, double ox, double oy):
        cdef double total = 0.0, m, rx, ry
        for i in range(2):
            b = &self.sim.b[i]
            if not b.active:
                continue
            m = self.sim.p.mass
            total += m * ((b.x - ox) * b.vy - (b.y - oy) * b.vx) + self.sim.p.inertia * b.omega
            if b.rider.state != FALLEN:
                m = b.rider.mass
                rx = b.x + b.rider.dx - ox
                ry = b.y + b.rider.dy - oy
                total += m * (rx * (b.vy + b.rider.uy) - ry * (b.vx + b.rider.ux))
        return total

    def kinetic_energy(self) -> float:
        """Of the steeds (translation and spin) and the riders: a marble moving
        at v + u while rolling at u on its steed has (1/2) m |v + u|^2 +
        (1/5) m |u|^2 (its spin about its centre)."""
        self._check()
        cdef double total = 0.0
        for i in range(2):
            b = &self.sim.b[i]
            if not b.active:
                continue
            total += 0.5 * self.sim.p.mass * (b.vx * b.vx + b.vy * b.vy)
            total += 0.5 * self.sim.p.inertia * b.omega * b.omega
            if b.rider.state != FALLEN:
                total += 0.5 * b.rider.mass * ((b.vx + b.rider.ux) ** 2 + (b.vy + b.rider.uy) ** 2)
                total += 0.2 * b.rider.mass * (b.rider.ux ** 2 + b.rider.uy ** 2)
        return total

    def energy(self) -> float:
        """Kinetic energy plus the riders' height above the bottom of their dents."""
        self._check()
        cdef double total = self.kinetic_energy(), rho, z0, a
        for i in range(2):
            r = &self.sim.b[i].rider
            if not self.sim.b[i].active or r.state == FALLEN:
                continue
            rho = sqrt(r.dx * r.dx + r.dy * r.dy)
            a = r.rim - rho if rho < r.rim else 0.0
            z0 = sqrt(r.ball * r.ball - r.rim * r.rim)
            total += r.mass * self.sim.p.g * (sqrt(r.ball * r.ball - a * a) - z0)
        return total
