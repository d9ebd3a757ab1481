"""Contact between the two square steeds: the separating-axis test with the
contact point from clipping, and the contact impulse (restitution, Coulomb
friction) that keeps momentum and angular momentum and never adds energy
(RULES.md, "Steed on steed")."""

from libc.math cimport cos, fabs, sin, sqrt

from engine_core.volta._types cimport Body, Contact


# --- exposed for the differential tests -----------------------------------

def contact(double half_side, double ax, double ay, double aa, double bx, double by,
            double ba) -> tuple | None:
    """(nx, ny, px, py, depth) if the squares overlap, else None."""
    cdef Contact c
    if not box_contact(half_side, ax, ay, cos(aa), sin(aa), bx, by, cos(ba), sin(ba), &c):
        return None
    return (c.nx, c.ny, c.px, c.py, c.depth)


def resolve(tuple a, tuple b, double ma, double mb, double inertia, double restitution,
            double mu, tuple contact) -> tuple:
    """Applies the contact impulse to bodies given as (x, y, vx, vy, omega);
    returns their new (vx, vy, omega) and whether they were approaching."""
    cdef Body ba, bb
    cdef Contact c
    ba.x, ba.y, ba.vx, ba.vy, ba.omega = a
    bb.x, bb.y, bb.vx, bb.vy, bb.omega = b
    c.nx, c.ny, c.px, c.py = contact
    c.depth = 0.0
    hit = resolve_contact(&ba, &bb, ma, mb, inertia, restitution, mu, &c)
    return (ba.vx, ba.vy, ba.omega), (bb.vx, bb.vy, bb.omega), bool(hit)
