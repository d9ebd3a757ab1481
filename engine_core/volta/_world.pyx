"""``World``: the Python face of the Volta core (``_physics.pyx``).

It sets the two steeds and their riders up, starts a flick, runs the C core
to rest and hands back events and frames; the physics lives in _physics.pyx.
"""

from libc.math cimport cos, sin, sqrt
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from engine_core.volta._physics cimport at_rest, lip_slope, refresh_rider, run_to_rest, step
from engine_core.volta._types cimport FALLEN, FRAME_DOUBLES, SEATED, Body, Log, Params, Rider, Sim

from engine_core.volta._physics import EVENT_KINDS

# A rolling marble takes 5/7 of a push (see _physics.pyx).
cdef double ROLL = 5.0 / 7.0

cdef int SIDE_NORMALS[4][2]
SIDE_NORMALS[0][:] = [1, 0]
SIDE_NORMALS[1][:] = [0, 1]
SIDE_NORMALS[2][:] = [-1, 0]
SIDE_NORMALS[3][:] = [0, -1]


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

    def __cinit__(self) -> None:
        self._frames = NULL
        self._frame_capacity = 0

    def __dealloc__(self) -> None:
        free(self._frames)

    def __init__(self, physics, rider_masses=(0.0, 0.0), rim_radii=(0.0, 0.0)):
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
        for i in range(2):
            self.configure_rider(i, rider_masses[i], rim_radii[i])
        self.reset()

    @property
    def physics(self):
        return self._physics

    def configure_rider(self, int i, double mass, double rim_radius) -> None:
        """Gives steed i a marble of ``mass`` in a dent of ``rim_radius``."""
        cdef Rider* r = &self.sim.b[i].rider
        cdef double ball = self._physics.ball_radius
        if mass > 0.0 and not 0.0 < rim_radius < ball:
            raise ValueError("a dent's rim must be narrower than the ball")
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
        cdef int i
        for i in range(2):
            self.set_steed(i, (2 * i - 1) * self.start_offset, 0.0, 0.0)
            self.set_rider(i, SEATED if self.sim.b[i].rider.mass > 0.0 else FALLEN)
        self.sim.time = 0.0
        self.sim.steps = 0
        self.sim.push.body = -1
        self.sim.in_contact = 0

    def set_steed(self, int i, double x, double y, double angle, double vx=0.0, double vy=0.0,
                  double omega=0.0, bint on_arena=True) -> None:
        cdef Body* b = &self.sim.b[i]
        b.x, b.y, b.angle, b.vx, b.vy, b.omega = x, y, angle, vx, vy, omega
        self.sim.depth_known = 0
        b.cos_a = cos(angle)
        b.sin_a = sin(angle)
        b.active = on_arena

    def steed(self, int i) -> tuple:
        """(x, y, angle, vx, vy, omega) of steed i."""
        cdef Body* b = &self.sim.b[i]
        return (b.x, b.y, b.angle, b.vx, b.vy, b.omega)

    def on_arena(self, int i) -> bool:
        return bool(self.sim.b[i].active)

    def set_rider(self, int i, int state, double dx=0.0, double dy=0.0, double ux=0.0,
                  double uy=0.0) -> None:
        cdef Rider* r = &self.sim.b[i].rider
        r.state = state
        r.dx, r.dy, r.ux, r.uy = dx, dy, ux, uy
        r.lean_x = r.lean_y = 0.0
        refresh_rider(r)
        if r.speed > 0.0 and r.rho == 0.0:
            r.lean_x, r.lean_y = ux / r.speed, uy / r.speed

    def rider(self, int i) -> tuple:
        """(state, dx, dy, ux, uy): 0 seated, 1 rolling, 2 fallen; the ball's
        offset from the dent centre and its velocity relative to the steed."""
        cdef Rider* r = &self.sim.b[i].rider
        return (r.state, r.dx, r.dy, r.ux, r.uy)

    def rider_mass(self, int i) -> float:
        return self.sim.b[i].rider.mass

    @property
    def time(self) -> float:
        return self.sim.time

    def start_flick(self, int i, int side, double offset, double angle, double impulse) -> None:
        """A finger push on steed i: on ``side`` (0: +x, 1: +y, 2: -x, 3: -y of
        the steed's own frame) at ``offset`` half sides along it (-1 and 1 are
        the corners, counter-clockwise positive), pushing at ``angle`` from the
        side's inward normal, with total impulse ``impulse`` (N s). Values are
        the caller's to validate. The world's clock restarts at 0."""
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
        # Each flick has its own clock: frames and events count from it.
        self.sim.time = 0.0
        self.sim.steps = 0
        self.sim.push.end = self.sim.p.duration
        self.sim.push.cos_now = 1.0

    def step(self) -> float | None:
        """One time step; the time of a new collision in it, or None."""
        cdef double hit
        with nogil:
            hit = step(&self.sim)
        return None if hit < 0.0 else hit

    def is_at_rest(self) -> bool:
        return bool(at_rest(&self.sim))

    def run(self, bint record=False) -> tuple:
        """Runs until everything is at rest or the time cap. Returns (events,
        frames, capped): events as (time, kind, steed) with kind one of
        EVENT_KINDS (steed -1 for collisions), frames (if ``record``) as
        tuples of FRAME_DOUBLES floats: time, then per steed x, y, angle, on
        arena (1/0), rider x, y, state."""
        cdef Sim* s = &self.sim
        cdef Log log
        cdef int needed
        log.event_count = 0
        log.frames = NULL
        log.frame_count = 0
        if record:
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
        if record:
            frames = [tuple(log.frames[k * FRAME_DOUBLES + j] for j in range(FRAME_DOUBLES))
                      for k in range(log.frame_count)]
        return events, frames, not at_rest(s)

    def copy(self) -> World:
        cdef World other = World.__new__(World)
        memcpy(&other.sim, &self.sim, sizeof(Sim))
        other.start_offset = self.start_offset
        other._physics = self._physics
        return other

    def snapshot(self) -> tuple:
        """Every number of the simulation state, for exact comparisons."""
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

    def angular_momentum(self, double ox=0.0, double oy=0.0) -> float:
        """About the fixed point (ox, oy)."""
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
