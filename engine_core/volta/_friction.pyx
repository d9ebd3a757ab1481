"""Coulomb friction of a uniformly loaded square sliding and spinning on the
arena: every point of the footprint carries an equal share of the load and
is rubbed against its own velocity. The force and torque are integrated over
the square once, at import, on a grid of directions of motion (body frame)
and shares of spin, and interpolated (RULES.md, "Friction of a uniformly
loaded square"); pure sliding and pure spinning are exact.
"""

from libc.math cimport M_PI, cos, fabs, log, sin, sqrt

cdef enum:
    TABLE_GRID = 64          # midpoint rule per side when integrating the table

cdef FrictionTable TABLE
# Mean distance of a unit square's points from its centre, in half sides:
# (sqrt(2) + ln(1 + sqrt(2))) / 3; the torque of pure spin is mu*m*g*L*this.
cdef double SPIN_ARM = (sqrt(2.0) + log(1.0 + sqrt(2.0))) / 3.0


cdef void integrate_friction(double theta, double t, double* par, double* perp,
                             double* torque) noexcept nogil:
    """Mean of -unit(point velocity) over the unit-half-side square for a body
    moving at (1-|t|)(cos theta, sin theta) and spinning at t (half sides)."""
    cdef double vx = (1.0 - fabs(t)) * cos(theta), vy = (1.0 - fabs(t)) * sin(theta)
    cdef double fx = 0.0, fy = 0.0, tz = 0.0, x, y, wx, wy, speed
    cdef int i, j
    for i in range(TABLE_GRID):
        x = -1.0 + (i + 0.5) * 2.0 / TABLE_GRID
        for j in range(TABLE_GRID):
            y = -1.0 + (j + 0.5) * 2.0 / TABLE_GRID
            wx = vx - t * y
            wy = vy + t * x
            speed = sqrt(wx * wx + wy * wy)
            if speed > 0.0:
                fx += wx / speed
                fy += wy / speed
                tz += (x * wy - y * wx) / speed
    cdef double n = TABLE_GRID * TABLE_GRID
    fx /= n
    fy /= n
    # along the motion and along its left normal: friction opposes both
    par[0] = fx * cos(theta) + fy * sin(theta)
    perp[0] = -fx * sin(theta) + fy * cos(theta)
    torque[0] = tz / n


cdef void build_friction_table() noexcept nogil:
    cdef int i, j
    cdef double t, theta
    for i in range(TABLE_SHARES + 1):
        t = -1.0 + 2.0 * i / TABLE_SHARES
        for j in range(TABLE_ANGLES + 1):
            theta = 0.5 * M_PI * j / TABLE_ANGLES
            if 2 * i == TABLE_SHARES:      # pure translation: exactly -v
                TABLE.par[i][j], TABLE.perp[i][j], TABLE.torque[i][j] = 1.0, 0.0, 0.0
            elif i == 0 or i == TABLE_SHARES:  # pure spin: no net force
                TABLE.par[i][j], TABLE.perp[i][j] = 0.0, 0.0
                TABLE.torque[i][j] = SPIN_ARM if i else -SPIN_ARM
            else:
                integrate_friction(theta, t, &TABLE.par[i][j], &TABLE.perp[i][j], &TABLE.torque[i][j])


build_friction_table()


cdef const FrictionTable* friction_table() noexcept nogil:
    return &TABLE


# --- exposed for the differential tests -----------------------------------

def friction(double angle, double vx, double vy, double omega, double half_side) -> tuple:
    """Friction per unit mu*load*g on a square (force) and per unit
    mu*load*g*half_side (torque), as the core uses it."""
    cdef double fx, fy, tz
    friction_force(&TABLE, cos(angle), sin(angle), vx, vy, omega, half_side, &fx, &fy, &tz)
    return (fx, fy, tz)
