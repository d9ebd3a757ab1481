"""Bit helpers shared by the bitboard cores (Rolit/Othello, Volleyball):
popcount, lowest set bit, and the splitmix64 generator for C-side playouts.
Inline, so each core compiles its own copy into its hot loops."""

from libc.stdint cimport uint64_t

cdef extern from *:
    """
    static inline int meeple_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    static inline int meeple_lsb(unsigned long long x) { return __builtin_ctzll(x); }
    """
    int popcount "meeple_popcount"(uint64_t x) noexcept nogil
    int lsb "meeple_lsb"(uint64_t x) noexcept nogil


cdef inline uint64_t splitmix64(uint64_t* state) noexcept nogil:
    """The next 64 random bits of a splitmix64 stream (Steele et al. 2014)."""
    state[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)
