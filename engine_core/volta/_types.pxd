"""The C types of the Volta core: states, the bodies, the simulation and its
log. Shared by _friction, _contact, _physics and _world (types only, so
cimporting them imports no module)."""

cdef enum:
    SEATED = 0
    ROLLING = 1
    FALLEN = 2
    EV_COLLISION = 0
    EV_RIDER_FALL = 1
    EV_STEED_FALL = 2
    FRAME_DOUBLES = 15       # time, then per steed: x, y, angle, on arena, rider x, y, state
    MAX_EVENTS = 1024


cdef struct Rider:
    int state
    double mass
    double rim          # dent rim radius (m)
    double ball         # ball radius (m)
    double switch_keep  # speed kept when the ball rocks over to the far rim
    double dx, dy       # ball centre relative to the dent centre
    double ux, uy       # its velocity relative to the steed
    double lean_x, lean_y  # direction it is leaning (from the centre, if off it)
    double rho, z, speed   # |d|, the ball centre's height at rho, |u|: kept current
    double hold            # g tan(lip angle): the most the seated ball can follow
    # constants of the pair, worked out once: the ball's share of the pair's
    # mass, the relative-motion energy factor and inverse masses
    double share, energy_factor, inv_energy_factor, inv_pair_mass, inv_mass_rolling


cdef struct Body:
    double x, y, angle, vx, vy, omega
    double cos_a, sin_a   # of angle, kept in step with it
    int active
    Rider rider


cdef struct Push:
    int body            # -1: no push
    double jx, jy       # total impulse (world frame, fixed for the push)
    double cx, cy       # contact point in the body frame
    double end          # time the finger leaves
    double cos_now      # cos(pi * (time - start) / duration): the pulse so far


cdef struct Params:
    double g, arena_radius, half_side, mass, inertia, inv_inertia, inv_mass
    double mu, restitution, mu_contact, rolling_resistance
    double duration, dt, time_cap
    int steps_per_frame


cdef struct Sim:
    Params p
    Body b[2]
    Push push
    double time
    long steps
    int in_contact
    double depth       # the steeds' overlap (negative: apart) at the end of
    int depth_known    # the last step, while nothing moved them since


cdef struct Contact:
    double nx, ny   # unit normal from body 0 to body 1
    double px, py   # contact point
    double depth    # penetration (>= 0) or, when negative, a separation bound


cdef struct Event:
    double time
    int kind
    int body


cdef struct Log:
    Event events[MAX_EVENTS]
    int event_count
    double* frames      # NULL: no recording
    int frame_count
