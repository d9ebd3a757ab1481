"""The stepping core of Volta (defined in _physics.pyx), for _world.pyx."""

from engine_core.volta._types cimport Log, Rider, Sim


cdef double step(Sim* s) noexcept nogil
cdef bint at_rest(Sim* s) noexcept nogil
cdef bint touching(Sim* s) noexcept nogil
cdef void run_to_rest(Sim* s, Log* log) noexcept nogil
cdef void refresh_rider(Rider* r) noexcept nogil
cdef double lip_slope(Rider* r, double rho) noexcept nogil
