"""Declarations and inline helpers shared by the Volleyball Returns C code:
the bitboard layout, the rules of one board, the receiver's turn, and the
checks both the state machine (``_core``) and the search (``_analysis``) use.

A side is a bitboard of one player's pieces, ``(row - 1) * 8 + (column - 1)``
with column 1 at the net and column 7 the serving column; bit 7 of each row
is padding that absorbs shifts off either end of a row. The action encoding
is the one documented in ``engine_core.volleyball.actions``; the constants
here repeat it for C and a test checks that the two agree.
"""

from libc.stdint cimport uint64_t

ctypedef uint64_t Bitboard

from engine_core._bits cimport lsb, popcount, splitmix64

cdef enum:
    ROW_STRIDE = 8
    NUM_SQUARES = 48
    PIECES_PER_SIDE = 6
    MAX_MOVERS = 3
    WINNING_SCORE = 4
    MAX_PLAN = 6
    MAX_LINES = 8
    MAX_LEGAL = 64
    NO_SQUARE = -1
    INFINITE = 1000

    PLACE_BASE = 0
    SERVE_BASE = 48
    STEP_BASE = 96
    END_ACTION = 480
    LAND_BASE = 481
    ROLL_ACTION = 529
    DICE_BASE = 530
    NUM_ACTIONS = 566


cdef struct Rules:
    int height
    int max_steps          # king steps a receiving piece may take: 1, or 2 in Big Leagues
    bint big_leagues
    bint underdog
    Bitboard court         # columns 1..6 of every row
    Bitboard serving       # column 7 of every row
    Bitboard zone[NUM_SQUARES]            # a square and its king neighbours on the side
    Bitboard lines[NUM_SQUARES][MAX_LINES]  # the 3-square lines with one end on a square
    int num_lines[NUM_SQUARES]


cdef struct Turn:
    # The receiver's pieces and what it has moved this turn. A piece is named
    # by the square it stands on; ``once`` pieces took one of two Big League
    # steps, ``done`` pieces may not move again.
    Bitboard pieces
    Bitboard once
    Bitboard done
    int movers


# --- bit helpers ---------------------------------------------------------

cdef inline Bitboard bit(int sq) noexcept nogil:
    return (<Bitboard>1) << sq


cdef inline int delta(int direction) noexcept nogil:
    """The bit offset of a king step, in the order of ``actions.DIRECTIONS``:
    east (away from the net), west, north, south, NE, NW, SE, SW."""
    if direction == 0:
        return 1
    elif direction == 1:
        return -1
    elif direction == 2:
        return 8
    elif direction == 3:
        return -8
    elif direction == 4:
        return 9
    elif direction == 5:
        return 7
    elif direction == 6:
        return -7
    return -9


cdef inline Bitboard shift(Bitboard x, int direction) noexcept nogil:
    """Moves every bit one king step; bits leaving a row land in its padding
    column (or off the board) and are removed by masking with the court."""
    cdef int d = delta(direction)
    return x << d if d > 0 else x >> (-d)


cdef inline int column_of(int sq) noexcept nogil:
    return sq % ROW_STRIDE + 1


cdef inline int row_of(int sq) noexcept nogil:
    return sq // ROW_STRIDE + 1


cdef inline int king_distance(int a, int b) noexcept nogil:
    cdef int dc = column_of(a) - column_of(b)
    cdef int dr = row_of(a) - row_of(b)
    if dc < 0:
        dc = -dc
    if dr < 0:
        dr = -dr
    return dc if dc > dr else dr


cdef inline void init_rules(Rules* r, int height, bint big_leagues, bint underdog) noexcept nogil:
    cdef int row, sq, direction, n
    cdef Bitboard side, a, b, c
    r.height = height
    r.big_leagues = big_leagues
    r.underdog = underdog
    r.max_steps = 2 if big_leagues else 1
    r.court = 0
    r.serving = 0
    for row in range(height):
        r.court |= (<Bitboard>0x3F) << (row * ROW_STRIDE)
        r.serving |= (<Bitboard>0x40) << (row * ROW_STRIDE)
    side = r.court | r.serving
    for sq in range(NUM_SQUARES):
        r.zone[sq] = 0
        r.num_lines[sq] = 0
        if not side & bit(sq):
            continue
        r.zone[sq] = bit(sq)
        for direction in range(8):
            r.zone[sq] |= shift(bit(sq), direction) & side
        if not r.court & bit(sq):
            continue
        n = 0
        for direction in range(8):
            a = bit(sq)
            b = shift(a, direction) & r.court
            c = shift(b, direction) & r.court
            if c:
                r.lines[sq][n] = a | b | c
                n += 1
        r.num_lines[sq] = n


cdef inline bint intercepts(const Rules* r, Bitboard pieces, int landing) noexcept nogil:
    """Three pieces in a line on the court with one end on the landing square.
    Lines lie in columns 1..6, so a piece in column 7 never counts."""
    cdef int i
    for i in range(r.num_lines[landing]):
        if pieces & r.lines[landing][i] == r.lines[landing][i]:
            return True
    return False


cdef inline Bitboard movable_pieces(const Rules* r, const Turn* t) noexcept nogil:
    if t.movers >= MAX_MOVERS:
        return t.once
    return t.pieces & ~t.done


cdef inline void move_piece(const Rules* r, Turn* t, int start, int end) noexcept nogil:
    """One receiving step; the caller has checked that it is legal."""
    t.pieces ^= bit(start) | bit(end)
    if t.once & bit(start):
        t.once ^= bit(start)
        t.done |= bit(end)
    else:
        t.movers += 1
        if r.max_steps > 1:
            t.once |= bit(end)
        else:
            t.done |= bit(end)


cdef inline Bitboard step_targets(const Rules* r, Bitboard own, int start,
                                  int direction) noexcept nogil:
    """The square one king step from ``start`` if a piece may step there:
    on the court (never into column 7, never over the net) and empty."""
    return shift(bit(start), direction) & r.court & ~own
