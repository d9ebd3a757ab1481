"""Contact between the steeds: inline, so the stepping core compiles it in
(the definitions live here; _contact.pyx exposes them to the tests)."""

from libc.math cimport fabs, sqrt

from engine_core.volta._types cimport Body, Contact


cdef inline void clip(double* p, double* q, double tx, double ty, double lo, double hi,
                      bint* empty) noexcept nogil:
    """Clips segment p-q (2 doubles each) to lo <= t.x <= hi."""
    cdef double dp = tx * p[0] + ty * p[1], dq = tx * q[0] + ty * q[1], f
    empty[0] = 0
    if (dp < lo and dq < lo) or (dp > hi and dq > hi):
        empty[0] = 1
        return
    if dp < lo:
        f = (lo - dp) / (dq - dp)
        p[0] += f * (q[0] - p[0]); p[1] += f * (q[1] - p[1]); dp = lo
    elif dp > hi:
        f = (hi - dp) / (dq - dp)
        p[0] += f * (q[0] - p[0]); p[1] += f * (q[1] - p[1]); dp = hi
    if dq < lo:
        f = (lo - dq) / (dp - dq)
        q[0] += f * (p[0] - q[0]); q[1] += f * (p[1] - q[1])
    elif dq > hi:
        f = (hi - dq) / (dp - dq)
        q[0] += f * (p[0] - q[0]); q[1] += f * (p[1] - q[1])


cdef inline bint box_contact(double h, double ax, double ay, double ca, double sa, double bx,
                      double by, double cb, double sb, Contact* out) noexcept nogil:
    """Separating-axis test of two squares of half side h; on overlap fills the
    normal (from a to b), the contact point (midpoint of the incident edge's
    part inside the reference face) and the depth. Returns overlap."""
    cdef double axes[4][2]
    axes[0][0], axes[0][1] = ca, sa
    axes[1][0], axes[1][1] = -sa, ca
    axes[2][0], axes[2][1] = cb, sb
    axes[3][0], axes[3][1] = -sb, cb
    cdef double dx = bx - ax, dy = by - ay
    cdef double best = 1e300, pen, reach, ux, uy
    cdef int k, other, besti = 0
    for k in range(4):
        ux = axes[k][0]
        uy = axes[k][1]
        other = 2 if k < 2 else 0
        reach = h * (1.0 + fabs(ux * axes[other][0] + uy * axes[other][1])
                     + fabs(ux * axes[other + 1][0] + uy * axes[other + 1][1]))
        pen = reach - fabs(ux * dx + uy * dy)
        if pen < best:
            best = pen
            besti = k
    out.depth = best
    if best < 0.0:
        return 0
    # reference box R owns the axis; incident box I; n from R to I
    cdef double rx, ry, ix, iy, sign
    cdef int ibase
    if besti < 2:
        rx, ry, ix, iy, ibase, sign = ax, ay, bx, by, 2, 1.0
    else:
        rx, ry, ix, iy, ibase, sign = bx, by, ax, ay, 0, -1.0
    cdef double nx = axes[besti][0], ny = axes[besti][1]
    if nx * (ix - rx) + ny * (iy - ry) < 0.0:
        nx, ny = -nx, -ny
    # incident face: outward normal most against n
    cdef double fnx = 0.0, fny = 0.0, d, low = 1e300
    cdef int f
    for f in range(4):
        ux = axes[ibase + (f & 1)][0] * (1.0 if f < 2 else -1.0)
        uy = axes[ibase + (f & 1)][1] * (1.0 if f < 2 else -1.0)
        d = ux * nx + uy * ny
        if d < low:
            low = d
            fnx, fny = ux, uy
    cdef double p[2]
    cdef double q[2]
    p[0] = ix + h * fnx - h * fny
    p[1] = iy + h * fny + h * fnx
    q[0] = ix + h * fnx + h * fny
    q[1] = iy + h * fny - h * fnx
    cdef double tx = -ny, ty = nx, mid = tx * rx + ty * ry
    cdef bint empty
    clip(p, q, tx, ty, mid - h, mid + h, &empty)
    cdef double front = nx * rx + ny * ry + h
    cdef double pp = front - (nx * p[0] + ny * p[1]), pq = front - (nx * q[0] + ny * q[1])
    if empty:
        out.px = 0.5 * (p[0] + q[0]); out.py = 0.5 * (p[1] + q[1])
    elif pp >= 0.0 and pq >= 0.0:
        out.px = 0.5 * (p[0] + q[0]); out.py = 0.5 * (p[1] + q[1])
    elif pp >= pq:
        out.px, out.py = p[0], p[1]
    else:
        out.px, out.py = q[0], q[1]
    out.nx = sign * nx
    out.ny = sign * ny
    return 1


cdef inline void apply_impulse(Body* a, Body* b, double ma, double mb, double inertia,
                               double rax, double ray, double rbx, double rby,
                               double jx, double jy) noexcept nogil:
    """Impulse (jx, jy) on b at rb and its opposite on a at ra."""
    a.vx -= jx / ma
    a.vy -= jy / ma
    a.omega -= (rax * jy - ray * jx) / inertia
    b.vx += jx / mb
    b.vy += jy / mb
    b.omega += (rbx * jy - rby * jx) / inertia


cdef inline void contact_velocity(Body* a, Body* b, double rax, double ray, double rbx,
                                  double rby, double* vx, double* vy) noexcept nogil:
    vx[0] = (b.vx - b.omega * rby) - (a.vx - a.omega * ray)
    vy[0] = (b.vy + b.omega * rbx) - (a.vy + a.omega * rax)


cdef inline bint resolve_contact(Body* a, Body* b, double ma, double mb, double inertia, double e,
                          double mu, Contact* c) noexcept nogil:
    """Newton restitution along the normal, then Coulomb friction capped at
    mu * normal impulse and at what stops the sliding, then a plastic normal
    correction if friction left the points approaching. Each part alone
    cannot add kinetic energy; the pair gets equal and opposite impulses at
    one point, so momentum and angular momentum are kept. Returns whether an
    impulse was applied (the points were approaching)."""
    cdef double rax = c.px - a.x, ray = c.py - a.y, rbx = c.px - b.x, rby = c.py - b.y
    cdef double nx = c.nx, ny = c.ny, vx, vy, vn, k, jn, jt, tx, ty, vt, cra, crb
    contact_velocity(a, b, rax, ray, rbx, rby, &vx, &vy)
    vn = vx * nx + vy * ny
    if vn >= 0.0:
        return 0
    cra = rax * ny - ray * nx
    crb = rbx * ny - rby * nx
    k = 1.0 / ma + 1.0 / mb + (cra * cra + crb * crb) / inertia
    jn = -(1.0 + e) * vn / k
    apply_impulse(a, b, ma, mb, inertia, rax, ray, rbx, rby, jn * nx, jn * ny)
    contact_velocity(a, b, rax, ray, rbx, rby, &vx, &vy)
    vn = vx * nx + vy * ny
    tx = vx - vn * nx
    ty = vy - vn * ny
    vt = sqrt(tx * tx + ty * ty)
    if vt > 0.0:
        tx /= vt
        ty /= vt
        cra = rax * ty - ray * tx
        crb = rbx * ty - rby * tx
        k = 1.0 / ma + 1.0 / mb + (cra * cra + crb * crb) / inertia
        jt = vt / k
        if jt > mu * jn:
            jt = mu * jn
        apply_impulse(a, b, ma, mb, inertia, rax, ray, rbx, rby, -jt * tx, -jt * ty)
        contact_velocity(a, b, rax, ray, rbx, rby, &vx, &vy)
        vn = vx * nx + vy * ny
        if vn < 0.0:
            cra = rax * ny - ray * nx
            crb = rbx * ny - rby * nx
            k = 1.0 / ma + 1.0 / mb + (cra * cra + crb * crb) / inertia
            jn = -vn / k
            apply_impulse(a, b, ma, mb, inertia, rax, ray, rbx, rby, jn * nx, jn * ny)
    return 1
