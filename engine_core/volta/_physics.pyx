"""The Volta rigid-body core: two square steeds with riders on a disk arena.

Everything that runs per time step lives in C structs and ``nogil`` functions:
a ``Sim`` holds the constants, both bodies and the finger push, so that a
trial step is a plain struct copy (used to search for the time of impact).
The C types are in _types.pxd, the friction of a square in _friction
(.pyx/.pxd), the contact between squares in _contact (.pyx/.pxd; both
inline, so this module compiles them in), and ``World``, the Python face
that sets bodies up, starts flicks, runs to rest and hands back frames and
events, in _world.pyx. RULES.md explains every model and constant;
``engine_core.volta.reference`` re-implements the key pieces in plain Python
for the differential tests.

One step of ``dt``, for each body on the arena:
1. the finger's impulse over the step (a half-sine push, integrated exactly);
2. the rider's pull on the steed (zero while seated, when it is carried along);
3. Coulomb friction of a uniformly loaded square, linear and rotational
   together, from a table integrated over the square at import; it may stop
   the body but never reverse it;
4. the rider: seated while the steed's acceleration stays under g*tan(lip
   angle), else it rolls in the dent and falls when it passes the rim;
5. position update (trapezoid; the exact partial step when friction stops it).
Then, if the steeds overlap, the step is searched for the time of impact, a
single contact impulse (restitution, Coulomb friction) is applied there, and
the rest of the step is integrated. A steed whose centre leaves the disk falls.
"""

from libc.math cimport M_PI, cos, fabs, sin, sqrt
from libc.string cimport memcpy

from engine_core.volta._contact cimport box_contact, resolve_contact
from engine_core.volta._friction cimport FrictionTable, friction_force, friction_table
from engine_core.volta._types cimport (
    EV_COLLISION,
    EV_RIDER_FALL,
    EV_STEED_FALL,
    FALLEN,
    FRAME_DOUBLES,
    MAX_EVENTS,
    ROLLING,
    SEATED,
    Body,
    Contact,
    Log,
    Params,
    Rider,
    Sim,
)

cdef enum:
    MAX_TOI_ITERATIONS = 24

cdef const FrictionTable* FRICTION = friction_table()

SEATED_STATE = SEATED
ROLLING_STATE = ROLLING
FALLEN_STATE = FALLEN
EVENT_KINDS = ("collision", "rider_fall", "steed_fall")

# A spinning marble's energy is (7/10) m v^2 and it takes 5/7 of any push.
cdef double ROLL = 5.0 / 7.0
# Contacts closer than this are one contact (no new collision event).
cdef double CONTACT_GAP = 1e-4
# Overlap left after an impulse is removed above this depth (metres).
cdef double SLOP = 1e-6
# Overlap that counts as a new contact: far below any motion in one step.
cdef double TOUCH = 1e-9
# Speed (m/s) a steed's points can gain within one step on top of their
# speed at its start: a maximal push gives ~0.1 m/s per step, a marble less.
cdef double STEP_SLACK = 1.0
# A contact is resolved once found within this much overlap (metres).
cdef double TOI_TOLERANCE = 1e-7
# A rider rocking slower than this when it crosses the dent's centre settles.
cdef double SETTLE_SPEED = 0.002


# --- riders -------------------------------------------------------------

cdef double lip_slope(Rider* r, double rho) noexcept nogil:
    """Slope of the surface the ball's centre moves on when it is rho from the
    dent's centre, pivoting on the rim: tan of the contact normal's tilt."""
    cdef double a = r.rim - rho
    if a <= 0.0:
        return 0.0
    return a / sqrt(r.ball * r.ball - a * a)


cdef inline double ball_height(Rider* r, double rho) noexcept nogil:
    """Height of the ball's centre over the rim when it is rho off centre."""
    cdef double a = r.rim - rho
    if a <= 0.0:
        return r.ball
    return sqrt(r.ball * r.ball - a * a)


cdef void refresh_rider(Rider* r) noexcept nogil:
    """Recomputes the cached rho, z, speed and lean after d or u changed."""
    r.rho = sqrt(r.dx * r.dx + r.dy * r.dy)
    r.z = ball_height(r, r.rho)
    r.speed = sqrt(r.ux * r.ux + r.uy * r.uy)
    if r.rho > 0.0:
        r.lean_x = r.dx / r.rho
        r.lean_y = r.dy / r.rho


cdef inline void rider_pull(Rider* r, double g, double c_rr, double* wx, double* wy) noexcept nogil:
    """(wall slope + rolling resistance) * g as a vector for a rolling rider:
    the ball's relative acceleration is -(5/7)(steed acceleration + this).
    The wall's slope is (a - rho) / z, the tan of the rim contact's tilt."""
    cdef double slope = 0.0, k
    if r.rho < r.rim:
        slope = g * (r.rim - r.rho) / r.z
    wx[0] = slope * r.lean_x
    wy[0] = slope * r.lean_y
    if r.speed > 0.0:
        k = g * c_rr / r.speed
        wx[0] += k * r.ux
        wy[0] += k * r.uy




# --- one body over one (sub)step -----------------------------------------

cdef void move_body(Sim* s, int i, double dt, bint roll_from_rest, double lean_x,
                    double lean_y) noexcept nogil:
    """Advances body i by dt from s.time with its rider in its current mode
    (or, if roll_from_rest, with a seated rider made to roll leaning along
    lean)."""
    cdef Params* p = &s.p
    cdef Body* b = &s.b[i]
    cdef Rider* r = &b.rider
    cdef double vx0 = b.vx, vy0 = b.vy, w0 = b.omega
    cdef double px = 0.0, py = 0.0, lz = 0.0, t1, cos_end, share, c, sn, rx, ry
    cdef bint pushed = 0
    if s.push.body == i and s.time < s.push.end:
        # The push is F = (pi J / 2T) sin(pi t / T) over 0 <= t <= T (t from
        # the push's start); its impulse from t0 to t1 is
        # J/2 (cos(pi t0/T) - cos(pi t1/T)), and cos(pi t0/T) is kept.
        t1 = s.time + dt
        if t1 > s.push.end:
            t1 = s.push.end
        cos_end = cos(M_PI * (1.0 - (s.push.end - t1) / p.duration))
        share = 0.5 * (s.push.cos_now - cos_end)
        s.push.cos_now = cos_end
        px = share * s.push.jx
        py = share * s.push.jy
        c = b.cos_a
        sn = b.sin_a
        rx = c * s.push.cx - sn * s.push.cy
        ry = sn * s.push.cx + c * s.push.cy
        lz = rx * py - ry * px
        pushed = 1
    if roll_from_rest:
        r.state = ROLLING
        r.dx = r.dy = r.ux = r.uy = 0.0
        refresh_rider(r)
        r.lean_x = lean_x
        r.lean_y = lean_y
    cdef double load = p.mass, m_lin = p.mass, wx = 0.0, wy = 0.0
    cdef double inv_m = p.inv_mass
    if r.state != FALLEN:
        load += r.mass
    if r.state == SEATED:
        m_lin += r.mass
        inv_m = r.inv_pair_mass
    elif r.state == ROLLING:
        m_lin += (1.0 - ROLL) * r.mass
        inv_m = r.inv_mass_rolling
        rider_pull(r, p.g, p.rolling_resistance, &wx, &wy)
        px += ROLL * r.mass * wx * dt
        py += ROLL * r.mass * wy * dt
    # velocities before friction
    cdef double vx = vx0 + px * inv_m, vy = vy0 + py * inv_m, w = w0 + lz * p.inv_inertia
    cdef double fx, fy, tz
    friction_force(FRICTION, b.cos_a, b.sin_a, vx, vy, w, p.half_side, &fx, &fy, &tz)
    cdef double lin = p.mu * load * p.g * dt * inv_m
    cdef double dvx = lin * fx, dvy = lin * fy
    cdef double dw = p.mu * load * p.g * p.half_side * dt * p.inv_inertia * tz
    cdef double speed2 = vx * vx + vy * vy, dv2 = dvx * dvx + dvy * dvy
    cdef double vx1, vy1, w1, tstop, external
    cdef bint coasting = not pushed and r.state != ROLLING
    if dv2 >= speed2:
        vx1 = vy1 = 0.0
        if coasting and dv2 > 0.0:
            tstop = dt * sqrt(speed2 / dv2)
            b.x += 0.5 * vx * tstop
            b.y += 0.5 * vy * tstop
        else:
            b.x += 0.5 * vx0 * dt
            b.y += 0.5 * vy0 * dt
    else:
        vx1 = vx + dvx
        vy1 = vy + dvy
        b.x += 0.5 * (vx0 + vx1) * dt
        b.y += 0.5 * (vy0 + vy1) * dt
    if dw * dw >= w * w:
        w1 = 0.0
        if coasting and dw != 0.0:
            b.angle += 0.5 * w * dt * fabs(w / dw)
        else:
            b.angle += 0.5 * w0 * dt
    else:
        w1 = w + dw
        b.angle += 0.5 * (w0 + w1) * dt
    if w0 != 0.0 or w1 != 0.0 or w != 0.0:
        b.cos_a = cos(b.angle)
        b.sin_a = sin(b.angle)
    b.vx = vx1
    b.vy = vy1
    b.omega = w1
    if r.state == ROLLING:
        # the external forces (push, friction) over the pair's whole mass:
        # the pseudo force they put on the ball's motion relative to its steed
        tstop = 1.0 / dt  # (dt may be part of a step)
        external = r.inv_pair_mass * tstop
        move_rider(b, p, (vx1 - vx0) * tstop, (vy1 - vy0) * tstop, wx, wy,
                   (m_lin * (vx1 - vx0) - ROLL * r.mass * wx * dt) * external,
                   (m_lin * (vy1 - vy0) - ROLL * r.mass * wy * dt) * external, dt)


cdef inline void settle_rider(Body* b, double steed_mass, double keep) noexcept nogil:
    """Scales the ball's relative velocity by ``keep`` through a force between
    ball and steed: the steed takes up the difference in momentum. (A knock
    on the rim, or the energy balance of a rolling step.)"""
    cdef Rider* r = &b.rider
    cdef double dux = (keep - 1.0) * r.ux, duy = (keep - 1.0) * r.uy
    cdef double share = r.share
    r.ux += dux
    r.uy += duy
    r.speed *= keep
    b.vx -= share * dux
    b.vy -= share * duy


cdef inline void move_rider(Body* b, Params* p, double ax, double ay, double wx, double wy,
                            double ex, double ey, double dt) noexcept nogil:
    """The ball rolling in the dent while the steed accelerates at (ax, ay);
    (ex, ey) is the external force on the pair over its total mass."""
    cdef Rider* r = &b.rider
    cdef double ox = r.dx, oy = r.dy, z0 = r.z, speed0 = r.speed
    r.ux -= ROLL * (ax + wx) * dt
    r.uy -= ROLL * (ay + wy) * dt
    cdef double sx = r.ux * dt, sy = r.uy * dt
    r.dx += sx
    r.dy += sy
    cdef double rho2 = r.dx * r.dx + r.dy * r.dy, speed, kinetic, k
    if rho2 >= r.rim * r.rim:
        r.state = FALLEN
        return
    speed = sqrt(r.ux * r.ux + r.uy * r.uy)
    r.rho = sqrt(rho2)
    r.z = ball_height(r, r.rho)
    if r.rho > 0.0:
        k = 1.0 / r.rho
        r.lean_x = r.dx * k
        r.lean_y = r.dy * k
    # The step takes its direction from the update above and its speed from
    # the energy balance of the relative motion (a force held fixed over the
    # step would gain energy near the bottom of the dent, where the wall's
    # push turns around within the step). Per unit ball mass that energy is
    # c u^2 + g z, c = (1/2) m_steed / (m_steed + m_ball) + 1/5 (the reduced
    # mass and the ball's spin), and it changes by the work of the external
    # forces' pseudo force and of rolling resistance. The speed is set by an
    # impulse between ball and steed, which keeps momentum.
    cdef double c = r.energy_factor
    cdef double start = c * speed0 * speed0
    kinetic = (start + p.g * (z0 - r.z) - (ex * sx + ey * sy)
               - p.g * p.rolling_resistance * speed * dt)
    r.speed = speed
    if kinetic <= 0.0:
        settle_rider(b, p.mass, 0.0)
    elif kinetic < 4.0 * c * speed * speed:
        settle_rider(b, p.mass, sqrt(kinetic * r.inv_energy_factor) / speed)
    # else the ball turned round within the step (the update's speed is far
    # below the energy's): the update is trusted, and energy only drops.
    if (ox != 0.0 or oy != 0.0) and ox * r.dx + oy * r.dy <= 0.0:
        # It rocked over the centre onto the far side of the rim: an
        # inelastic pivot change that keeps (2 + 5 cos 2phi) / 7 of the speed.
        settle_rider(b, p.mass, r.switch_keep)
        if r.speed < SETTLE_SPEED:
            settle_rider(b, p.mass, 0.0)
            r.state = SEATED
            r.dx = r.dy = 0.0
            refresh_rider(r)


cdef void move_all(Sim* s, double dt) noexcept nogil:
    cdef int i
    cdef double saved[8]
    cdef double ax, ay, a, pulse
    for i in range(2):
        b = &s.b[i]
        if not b.active:
            continue
        if (b.vx == 0.0 and b.vy == 0.0 and b.omega == 0.0 and b.rider.state != ROLLING
                and not (s.push.body == i and s.time < s.push.end)):
            continue  # at rest with nothing pushing: static friction holds it
        if b.rider.state != SEATED:
            move_body(s, i, dt, 0, 0.0, 0.0)
            continue
        # (a seated rider is not changed by the step: the body's motion is
        # all there is to restore)
        saved[0], saved[1], saved[2], saved[3] = b.x, b.y, b.angle, b.vx
        saved[4], saved[5], saved[6], saved[7] = b.vy, b.omega, b.cos_a, b.sin_a
        pulse = s.push.cos_now
        move_body(s, i, dt, 0, 0.0, 0.0)
        ax = b.vx - saved[3]
        ay = b.vy - saved[4]
        a = ax * ax + ay * ay
        if a > b.rider.hold * b.rider.hold * dt * dt:
            # The wall cannot hold the ball: redo the step with it rolling,
            # leaning against the acceleration.
            b.x, b.y, b.angle, b.vx = saved[0], saved[1], saved[2], saved[3]
            b.vy, b.omega, b.cos_a, b.sin_a = saved[4], saved[5], saved[6], saved[7]
            s.push.cos_now = pulse
            a = sqrt(a)
            move_body(s, i, dt, 1, -ax / a, -ay / a)
    s.time += dt


cdef inline double effective_mass(Sim* s, int i) noexcept nogil:
    """A steed's mass for an instantaneous hit: a rolling marble follows a
    sudden jerk of its support with 2/7 of it (the tablecloth trick)."""
    if s.b[i].rider.state == FALLEN:
        return s.p.mass
    return s.p.mass + (1.0 - ROLL) * s.b[i].rider.mass


cdef void jolt_rider(Rider* r, double dvx, double dvy) noexcept nogil:
    """A hit changes the steed's velocity at once: the ball keeps 5/7 of the
    change as motion relative to the steed (it rolls)."""
    if r.state == FALLEN or (dvx == 0.0 and dvy == 0.0):
        return
    if r.state == SEATED:
        r.state = ROLLING
        r.dx = r.dy = r.ux = r.uy = 0.0
    r.ux -= ROLL * dvx
    r.uy -= ROLL * dvy
    refresh_rider(r)
    if r.speed > 0.0 and r.rho == 0.0:
        r.lean_x = r.ux / r.speed
        r.lean_y = r.uy / r.speed


cdef bint collide(Sim* s, Contact* c) noexcept nogil:
    """Resolves a touching pair; returns whether an impulse was applied."""
    cdef Body* a = &s.b[0]
    cdef Body* b = &s.b[1]
    cdef double ma = effective_mass(s, 0), mb = effective_mass(s, 1)
    cdef double avx = a.vx, avy = a.vy, bvx = b.vx, bvy = b.vy, shift
    cdef bint hit = resolve_contact(a, b, ma, mb, s.p.inertia, s.p.restitution,
                                    s.p.mu_contact, c)
    if hit:
        jolt_rider(&a.rider, a.vx - avx, a.vy - avy)
        jolt_rider(&b.rider, b.vx - bvx, b.vy - bvy)
    if c.depth > SLOP:
        # Leftover overlap (a sustained push): separate along the normal,
        # keeping the centre of mass where it is.
        shift = c.depth - SLOP
        a.x -= c.nx * shift * mb / (ma + mb)
        a.y -= c.ny * shift * mb / (ma + mb)
        b.x += c.nx * shift * ma / (ma + mb)
        b.y += c.ny * shift * ma / (ma + mb)
    return hit


cdef inline bint overlapping(Sim* s, Contact* c) noexcept nogil:
    """Whether the steeds overlap; c.depth is always set: the overlap, or
    minus a lower bound on the distance between them."""
    if not (s.b[0].active and s.b[1].active):
        c.depth = -1e300
        return 0
    cdef double dx = s.b[1].x - s.b[0].x, dy = s.b[1].y - s.b[0].y
    cdef double reach = 2.0 * sqrt(2.0) * s.p.half_side
    if dx * dx + dy * dy > reach * reach:
        # the gap between the squares' circumscribed circles
        c.depth = reach - sqrt(dx * dx + dy * dy)
        return 0
    return box_contact(s.p.half_side, s.b[0].x, s.b[0].y, s.b[0].cos_a, s.b[0].sin_a,
                       s.b[1].x, s.b[1].y, s.b[1].cos_a, s.b[1].sin_a, c)


cdef bint touching(Sim* s) noexcept nogil:
    """Whether the steeds touch (within CONTACT_GAP): a flick that starts with
    them touching has no new collision until they part. Worked out from the
    poses alone, so a flick's events depend on nothing else."""
    cdef Contact c
    overlapping(s, &c)
    return c.depth >= -CONTACT_GAP


# --- the step -------------------------------------------------------------

cdef inline double depth_at(Sim* s, Sim* start, double t, Contact* c) noexcept nogil:
    """The overlap depth (negative: apart) after moving ``start`` on by t."""
    memcpy(s, start, sizeof(Sim))
    move_all(s, t)
    overlapping(s, c)
    return c.depth


cdef double step(Sim* s) noexcept nogil:
    """One time step; returns the time of a new collision, or -1.

    A contact is resolved where it begins: the step is searched for the
    moment the overlap first exceeds what it was at the start (zero, or the
    hair left by the previous contact), the impulse is applied there and the
    rest of the step is integrated, up to a few contacts per step."""
    cdef double dt = s.p.dt, left = dt, lo, hi, mid, floor, hit_time = -1.0
    cdef double f_lo, f_hi, f_mid, reach
    cdef bint fresh = 0
    cdef int side
    cdef Sim start
    cdef Contact c
    cdef int rounds
    if not near(s):
        # Too far apart to touch within the step: no contact work at all.
        move_all(s, dt)
        s.in_contact = 0
        s.depth_known = 0
        finish_step(s)
        return hit_time
    reach = reach_in_step(s)
    if s.depth_known and s.depth < -reach:
        # Apart by more than any point can move in this step: the overlap
        # stays below the known bound plus that reach.
        move_all(s, dt)
        s.depth += reach
        if s.depth < -CONTACT_GAP:
            s.in_contact = 0
        finish_step(s)
        return hit_time
    for rounds in range(4):
        if s.depth_known:
            c.depth = s.depth
        else:
            overlapping(s, &c)
        s.depth_known = 0
        memcpy(&start, s, sizeof(Sim))
        floor = TOUCH
        if c.depth > 0.0:
            floor = c.depth + TOUCH
        f_lo = c.depth - floor
        move_all(s, left)
        if not (overlapping(s, &c) and c.depth > floor):
            fresh = 1  # c describes where the step ended
            break
        if rounds < 3:
            # Time of impact: the first t with depth(t) > floor, by the
            # Illinois variant of regula falsi (depth is nearly linear in t
            # over a step), keeping the bracket [lo: apart, hi: overlapping].
            lo = 0.0
            hi = left
            f_hi = c.depth - floor
            side = 0
            for _ in range(MAX_TOI_ITERATIONS):
                if f_hi <= TOI_TOLERANCE or hi - lo <= 1e-12:
                    break
                mid = lo + (hi - lo) * (-f_lo) / (f_hi - f_lo)
                if not lo < mid < hi:
                    mid = 0.5 * (lo + hi)
                f_mid = depth_at(s, &start, mid, &c) - floor
                if f_mid > 0.0:
                    hi, f_hi = mid, f_mid
                    if side == 1:
                        f_lo *= 0.5
                    side = 1
                else:
                    lo, f_lo = mid, f_mid
                    if side == -1:
                        f_hi *= 0.5
                    side = -1
            depth_at(s, &start, hi, &c)
            left -= hi
        if collide(s, &c) and not s.in_contact:
            hit_time = s.time
        s.in_contact = 1
        if rounds == 3 or left <= 0.0:
            break
    if not fresh:
        overlapping(s, &c)
    if s.in_contact and c.depth < -CONTACT_GAP:
        s.in_contact = 0
    s.depth = c.depth
    s.depth_known = 1
    finish_step(s)
    return hit_time


cdef inline bint near(Sim* s) noexcept nogil:
    """Whether the steeds' bounding circles could meet within this step (the
    margin covers their speeds plus what a flick can add in one step)."""
    cdef Body* a = &s.b[0]
    cdef Body* b = &s.b[1]
    if not (a.active and b.active):
        return 0
    cdef double dx = b.x - a.x, dy = b.y - a.y
    cdef double reach = 2.0 * sqrt(2.0) * s.p.half_side + 1e-3 + s.p.dt * (
        fabs(a.vx) + fabs(a.vy) + fabs(b.vx) + fabs(b.vy))
    return dx * dx + dy * dy <= reach * reach


cdef inline double reach_in_step(Sim* s) noexcept nogil:
    """How far any point of either steed can move in one step (with room for
    what a push or the marbles can add within it)."""
    cdef double arm = sqrt(2.0) * s.p.half_side, total = 0.0
    cdef int i
    for i in range(2):
        total += (fabs(s.b[i].vx) + fabs(s.b[i].vy) + fabs(s.b[i].omega) * arm
                  + STEP_SLACK)
    return total * s.p.dt


cdef inline void finish_step(Sim* s) noexcept nogil:
    """Counts the step; a steed whose centre left the disk falls."""
    cdef int i
    s.steps += 1
    for i in range(2):
        if s.b[i].active and (s.b[i].x * s.b[i].x + s.b[i].y * s.b[i].y
                              > s.p.arena_radius * s.p.arena_radius):
            s.b[i].active = 0
            s.depth_known = 0


cdef bint at_rest(Sim* s) noexcept nogil:
    cdef int i
    if s.push.body >= 0 and s.time < s.push.end:
        return 0
    for i in range(2):
        if s.b[i].active and (s.b[i].vx != 0.0 or s.b[i].vy != 0.0 or s.b[i].omega != 0.0
                              or s.b[i].rider.state == ROLLING):
            return 0
    return 1


# --- running a flick to rest --------------------------------------------

cdef inline void log_event(Log* log, double time, int kind, int body) noexcept nogil:
    # Falls are never dropped; a pathological run of contacts may be.
    if log.event_count < MAX_EVENTS - 4 or (kind != EV_COLLISION and log.event_count < MAX_EVENTS):
        log.events[log.event_count].time = time
        log.events[log.event_count].kind = kind
        log.events[log.event_count].body = body
        log.event_count += 1


cdef void log_frame(Sim* s, Log* log) noexcept nogil:
    cdef double* f = log.frames + log.frame_count * FRAME_DOUBLES
    cdef int i
    f[0] = s.time
    for i in range(2):
        f[1 + 7 * i] = s.b[i].x
        f[2 + 7 * i] = s.b[i].y
        f[3 + 7 * i] = s.b[i].angle
        f[4 + 7 * i] = 1.0 if s.b[i].active else 0.0
        f[5 + 7 * i] = s.b[i].x + s.b[i].rider.dx
        f[6 + 7 * i] = s.b[i].y + s.b[i].rider.dy
        f[7 + 7 * i] = s.b[i].rider.state
    log.frame_count += 1


cdef void run_to_rest(Sim* s, Log* log) noexcept nogil:
    """Steps until all is at rest or the time cap; ends the push."""
    cdef double cap = s.time + s.p.time_cap, hit
    cdef int i, active[2]
    cdef int rider[2]
    if log.frames != NULL:
        log_frame(s, log)
    while not at_rest(s) and s.time < cap:
        for i in range(2):
            active[i] = s.b[i].active
            rider[i] = s.b[i].rider.state
        hit = step(s)
        if hit >= 0.0:
            log_event(log, hit, EV_COLLISION, -1)
        for i in range(2):
            if rider[i] != FALLEN and s.b[i].rider.state == FALLEN:
                log_event(log, s.time, EV_RIDER_FALL, i)
            if active[i] and not s.b[i].active:
                log_event(log, s.time, EV_STEED_FALL, i)
        if log.frames != NULL and s.steps % s.p.steps_per_frame == 0:
            log_frame(s, log)
    if log.frames != NULL and log.frames[(log.frame_count - 1) * FRAME_DOUBLES] != s.time:
        log_frame(s, log)
    s.push.body = -1

