"""Coulomb friction of a uniformly loaded square (RULES.md): the table is
integrated once by _friction.pyx; the lookups are inline, so the stepping
core compiles them in."""

from libc.math cimport M_PI, atan2, fabs, fmod, sqrt

cdef enum:
    # the table: direction of motion in the body frame x share of spin
    TABLE_ANGLES = 16        # intervals over [0, pi/2] (the square's C4 symmetry)
    TABLE_SHARES = 64        # intervals over t in [-1, 1]


cdef struct FrictionTable:
    # per unit mu * load * g: the force against the motion, the force to its
    # left, and the torque (per unit half side) with the spin
    double par[TABLE_SHARES + 1][TABLE_ANGLES + 1]
    double perp[TABLE_SHARES + 1][TABLE_ANGLES + 1]
    double torque[TABLE_SHARES + 1][TABLE_ANGLES + 1]


cdef const FrictionTable* friction_table() noexcept nogil


cdef inline void friction_lookup(const FrictionTable* table, double theta, double t, double* par,
                                 double* perp, double* torque) noexcept nogil:
    """Bilinear interpolation in the table; theta is the direction of motion in
    the body frame (any value), t the rotation share in [-1, 1]."""
    cdef double q = 0.5 * M_PI
    theta = fmod(theta, q)
    if theta < 0.0:
        theta += q
    cdef double fa = theta * (TABLE_ANGLES / (0.5 * M_PI))
    cdef double ft = (t + 1.0) * (0.5 * TABLE_SHARES)
    # Clamped as doubles before the cast, NaN included: the table is never
    # read out of bounds whatever reaches it.
    if not fa >= 0.0:
        fa = 0.0
    if not ft >= 0.0:
        ft = 0.0
    if fa > TABLE_ANGLES:
        fa = TABLE_ANGLES
    if ft > TABLE_SHARES:
        ft = TABLE_SHARES
    cdef int ia = <int>fa, it = <int>ft
    if ia >= TABLE_ANGLES:
        ia = TABLE_ANGLES - 1
    if it >= TABLE_SHARES:
        it = TABLE_SHARES - 1
    cdef double sa = fa - ia, st = ft - it
    cdef double w00 = (1 - st) * (1 - sa), w01 = (1 - st) * sa
    cdef double w10 = st * (1 - sa), w11 = st * sa
    par[0] = (w00 * table.par[it][ia] + w01 * table.par[it][ia + 1]
              + w10 * table.par[it + 1][ia] + w11 * table.par[it + 1][ia + 1])
    perp[0] = (w00 * table.perp[it][ia] + w01 * table.perp[it][ia + 1]
               + w10 * table.perp[it + 1][ia] + w11 * table.perp[it + 1][ia + 1])
    torque[0] = (w00 * table.torque[it][ia] + w01 * table.torque[it][ia + 1]
                 + w10 * table.torque[it + 1][ia] + w11 * table.torque[it + 1][ia + 1])


cdef inline void friction_force(const FrictionTable* table, double c, double s, double vx,
                                double vy, double omega, double half_side, double* fx,
                                double* fy, double* tz) noexcept nogil:
    """Friction per unit (mu * load * g): force (fx, fy) in the world frame and
    torque tz per unit (mu * load * g * half side), for a body turned by the
    angle whose cosine and sine are c and s."""
    cdef double speed = sqrt(vx * vx + vy * vy)
    cdef double spin = omega * half_side
    cdef double total = speed + fabs(spin)
    fx[0] = 0.0
    fy[0] = 0.0
    tz[0] = 0.0
    if total == 0.0:
        return
    if spin == 0.0:             # pure translation: exactly against the motion
        speed = -1.0 / speed
        fx[0] = vx * speed
        fy[0] = vy * speed
        return
    cdef double par, perp, torque
    cdef double bx = c * vx + s * vy, by = -s * vx + c * vy
    friction_lookup(table, atan2(by, bx), spin / total, &par, &perp, &torque)
    tz[0] = -torque
    if speed > 0.0:
        speed = 1.0 / speed
        fx[0] = -(par * vx - perp * vy) * speed
        fy[0] = -(par * vy + perp * vx) * speed
