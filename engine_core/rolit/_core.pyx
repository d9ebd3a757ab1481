"""The flip core shared by Rolit and Othello: one bitboard per colour.

Squares are bits 0..63 with a1 = 0, b1 = 1, ..., h8 = 63 (index = rank*8 + file).
Move generation is the Othello technique of directional shifts: the mover's
opponents are the union of every other colour (neutral balls included), a
capture is a run of opponents closed by one of the mover's balls, and when
nothing captures (Rolit only) any empty square touching a ball is legal.

The position and the rules live in C structs so that the inner loops and the
batch random playouts run without touching a Python object. ``FlipCore`` is
the fast half of the State; ``engine_core.rolit.rules`` adds the readable half.
"""

from libc.stdint cimport uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from engine_core.api import TERMINAL, IllegalAction, MalformedAction, check_playout_arguments

ctypedef uint64_t Bitboard

from engine_core._bits cimport lsb, popcount, splitmix64

cdef enum:
    NUM_SQUARES = 64
    MAX_COLOURS = 4
    # Othello's pass; Rolit has no passing, so there it is out of range.
    PASS_ACTION = 64
    # Rolit has exactly 60 placements; Othello at most 60 placements and as
    # many passes (a pass is always followed by a placement or the end).
    MAX_HISTORY = 128

cdef Bitboard BB_ALL = 0xFFFFFFFFFFFFFFFFULL
cdef Bitboard BB_NOT_FILE_A = 0xFEFEFEFEFEFEFEFEULL
cdef Bitboard BB_NOT_FILE_H = 0x7F7F7F7F7F7F7F7FULL

PASS = PASS_ACTION
SQUARE_NAMES = tuple(f"{'abcdefgh'[sq % 8]}{sq // 8 + 1}" for sq in range(NUM_SQUARES))


cdef struct Rules:
    int num_seats
    int seat_colour[MAX_COLOURS]
    # Othello: a player with no capture passes and the game ends when neither
    # side can capture. Rolit: no passing, any touching square when no capture.
    bint othello


cdef struct Position:
    Bitboard balls[MAX_COLOURS]
    int seat
    bint over


# --- bit helpers ---------------------------------------------------------

cdef inline Bitboard shift(Bitboard x, int direction) noexcept nogil:
    """Moves every bit one square in ``direction`` (0..7), dropping bits that
    would wrap around the board's edge."""
    if direction == 0:
        return (x << 1) & BB_NOT_FILE_A   # east
    elif direction == 1:
        return (x >> 1) & BB_NOT_FILE_H   # west
    elif direction == 2:
        return x << 8                     # north
    elif direction == 3:
        return x >> 8                     # south
    elif direction == 4:
        return (x << 9) & BB_NOT_FILE_A   # north-east
    elif direction == 5:
        return (x << 7) & BB_NOT_FILE_H   # north-west
    elif direction == 6:
        return (x >> 7) & BB_NOT_FILE_A   # south-east
    else:
        return (x >> 9) & BB_NOT_FILE_H   # south-west


cdef inline Bitboard neighbours(Bitboard x) noexcept nogil:
    """The 8-neighbour dilation of ``x`` (``x`` itself included)."""
    cdef Bitboard row = x | ((x << 1) & BB_NOT_FILE_A) | ((x >> 1) & BB_NOT_FILE_H)
    return row | (row << 8) | (row >> 8)


cdef inline Bitboard capture_mask(Bitboard own, Bitboard opp, Bitboard empty) noexcept nogil:
    """Empty squares from which some direction holds a run of ``opp`` closed
    by ``own``. A run is at most 6 long on an 8x8 board."""
    cdef Bitboard moves = 0
    cdef Bitboard run
    cdef int direction
    for direction in range(8):
        run = shift(own, direction) & opp
        run |= shift(run, direction) & opp
        run |= shift(run, direction) & opp
        run |= shift(run, direction) & opp
        run |= shift(run, direction) & opp
        run |= shift(run, direction) & opp
        moves |= shift(run, direction) & empty
    return moves


cdef inline Bitboard flip_mask(Bitboard own, Bitboard opp, int square) noexcept nogil:
    """The balls a placement on ``square`` turns: in each direction, the run
    of opponents up to the first own ball (none if the run meets an empty
    square or the edge first)."""
    cdef Bitboard flips = 0
    cdef Bitboard origin = (<Bitboard>1) << square
    cdef Bitboard run, x
    cdef int direction
    for direction in range(8):
        run = 0
        x = shift(origin, direction)
        while x & opp:
            run |= x
            x = shift(x, direction)
        if x & own:
            flips |= run
    return flips


cdef inline Bitboard occupied(const Position* p) noexcept nogil:
    return p.balls[0] | p.balls[1] | p.balls[2] | p.balls[3]


cdef inline Bitboard captures_for(const Rules* r, const Position* p, int seat) noexcept nogil:
    cdef Bitboard own = p.balls[r.seat_colour[seat]]
    cdef Bitboard occ = occupied(p)
    return capture_mask(own, occ & ~own, ~occ)


cdef inline Bitboard legal_mask(const Rules* r, const Position* p) noexcept nogil:
    """The placements open to the seat to move; 0 when the game is over or
    (Othello) when the only move is to pass."""
    if p.over:
        return 0
    cdef Bitboard caps = captures_for(r, p, p.seat)
    if caps or r.othello:
        return caps
    cdef Bitboard occ = occupied(p)
    return neighbours(occ) & ~occ


cdef inline void play(const Rules* r, Position* p, int action) noexcept nogil:
    """Applies a legal action (a square, or PASS_ACTION in Othello)."""
    cdef int colour, c
    cdef Bitboard own, occ, flips
    if action != PASS_ACTION:
        colour = r.seat_colour[p.seat]
        own = p.balls[colour]
        occ = occupied(p)
        flips = flip_mask(own, occ & ~own, action)
        for c in range(MAX_COLOURS):
            p.balls[c] &= ~flips
        p.balls[colour] |= flips | ((<Bitboard>1) << action)
    p.seat += 1
    if p.seat == r.num_seats:
        p.seat = 0
    if occupied(p) == BB_ALL:
        p.over = True
    elif r.othello and not captures_for(r, p, p.seat):
        # The seat to move must pass; if the other cannot capture either, the
        # game is over.
        p.over = not captures_for(r, p, 1 - p.seat)


cdef void fill_returns(const Rules* r, const Position* p, double* out) noexcept nogil:
    """Zero-sum returns, winners sharing one win (engine_core.api.returns_for_winners)."""
    cdef int counts[MAX_COLOURS]
    cdef int n = r.num_seats
    cdef int seat, best = -1, winners = 0
    for seat in range(n):
        counts[seat] = popcount(p.balls[r.seat_colour[seat]])
        if counts[seat] > best:
            best = counts[seat]
            winners = 1
        elif counts[seat] == best:
            winners += 1
    for seat in range(n):
        if counts[seat] == best:
            out[seat] = (<double>n / winners - 1.0) / (n - 1)
        else:
            out[seat] = -1.0 / (n - 1)


# --- random playouts -----------------------------------------------------

cdef inline int random_square(Bitboard moves, uint64_t* rng) noexcept nogil:
    """A uniformly random set bit of ``moves`` (which is not empty)."""
    cdef int count = popcount(moves)
    # Lemire's multiply-shift maps 32 random bits onto 0..count-1.
    cdef int k = <int>(((splitmix64(rng) >> 32) * <uint64_t>count) >> 32)
    while k:
        moves &= moves - 1
        k -= 1
    return lsb(moves)


cdef void run_playouts(const Rules* r, const Position* start, int n, uint64_t seed,
                       double* out) noexcept nogil:
    cdef Position p
    cdef Bitboard moves
    cdef uint64_t rng = seed
    cdef int i
    for i in range(n):
        p = start[0]
        while not p.over:
            moves = legal_mask(r, &p)
            play(r, &p, random_square(moves, &rng) if moves else PASS_ACTION)
        fill_returns(r, &p, out + i * r.num_seats)


# --- Zobrist keys --------------------------------------------------------

cdef uint64_t ZOBRIST_BALL[MAX_COLOURS][NUM_SQUARES]
cdef uint64_t ZOBRIST_SEAT[MAX_COLOURS]


cdef void init_zobrist() noexcept:
    # A fixed seed: keys are the same in every process, so hashes can be
    # shared (e.g. by a transposition table in another worker).
    cdef uint64_t rng = 0x6D656570_6C65ULL
    cdef int colour, square
    for colour in range(MAX_COLOURS):
        ZOBRIST_SEAT[colour] = splitmix64(&rng)
        for square in range(NUM_SQUARES):
            ZOBRIST_BALL[colour][square] = splitmix64(&rng)


init_zobrist()


# --- the State's fast half -----------------------------------------------

cdef class FlipCore:
    """Position, rules and history in C; the Game API's hot methods.

    Subclasses (in rules.py) add presentation. A subclass must not add
    instance state that ``clone`` would not copy.
    """

    cdef Rules _rules
    cdef Position _pos
    cdef uint8_t _history[MAX_HISTORY]
    cdef int _num_actions
    cdef object _game

    def _setup(self, game, seat_colours, bint othello, int first_seat, balls):
        """Initialises the position; called once by the Game."""
        cdef int seat, colour
        self._game = game
        self._rules.num_seats = len(seat_colours)
        self._rules.othello = othello
        for seat, colour in enumerate(seat_colours):
            self._rules.seat_colour[seat] = colour
        for colour in range(MAX_COLOURS):
            self._pos.balls[colour] = balls[colour]
        self._pos.seat = first_seat
        self._num_actions = 0
        # A position set up mid-game may already be over.
        self._pos.over = occupied(&self._pos) == BB_ALL or (
            othello
            and not captures_for(&self._rules, &self._pos, 0)
            and not captures_for(&self._rules, &self._pos, 1)
        )

    @property
    def game(self):
        """The Game this state belongs to."""
        return self._game

    cpdef int current_player(self):
        """The seat to move, or TERMINAL."""
        return TERMINAL if self._pos.over else self._pos.seat

    cpdef bint is_terminal(self):
        return self._pos.over

    def is_chance_node(self):
        """Neither Rolit nor Othello has chance."""
        return False

    def chance_outcomes(self):
        return []

    def legal_mask(self):
        """The legal placements as a bitboard (an int); 0 when the game is over
        or when the only legal action is Othello's pass."""
        return legal_mask(&self._rules, &self._pos)

    def legal_actions(self):
        """The legal actions in increasing order: squares, or ``[PASS]`` for an
        Othello player with no capture; ``[]`` once the game is over."""
        cdef Bitboard moves = legal_mask(&self._rules, &self._pos)
        cdef list actions = []
        if not moves:
            if self._rules.othello and not self._pos.over:
                actions.append(PASS_ACTION)
            return actions
        while moves:
            actions.append(lsb(moves))
            moves &= moves - 1
        return actions

    cdef int _checked_action(self, object action) except -1:
        """The action as a C int, or MalformedAction if it is not one."""
        cdef int limit = PASS_ACTION if self._rules.othello else NUM_SQUARES - 1
        if type(action) is not int:
            if isinstance(action, bool) or not hasattr(action, "__index__"):
                raise MalformedAction(
                    f"an action is a square index 0..{limit} (an int), got {action!r}"
                )
            action = action.__index__()
        if not 0 <= action <= limit:
            raise MalformedAction(f"an action is a square index 0..{limit}, got {action}")
        return action

    def apply_action(self, action):
        """Plays ``action``; an illegal one raises IllegalAction (MalformedAction
        if it is not a square at all) and leaves the state unchanged."""
        cdef int square = self._checked_action(action)
        if self._pos.over:
            raise IllegalAction("the game is over: no more actions")
        cdef Bitboard moves = legal_mask(&self._rules, &self._pos)
        if square == PASS_ACTION:
            if moves:
                raise IllegalAction(
                    f"cannot pass: {SQUARE_NAMES[lsb(moves)]} (and maybe more) captures"
                )
        elif not (moves >> square) & 1:
            raise IllegalAction(self._why_illegal(square, moves))
        play(&self._rules, &self._pos, square)
        self._history[self._num_actions] = square
        self._num_actions += 1

    cdef str _why_illegal(self, int square, Bitboard moves):
        cdef str name = SQUARE_NAMES[square]
        cdef Bitboard bit = (<Bitboard>1) << square
        cdef Bitboard occ = occupied(&self._pos)
        if occ & bit:
            return f"{name} is occupied"
        if self._rules.othello:
            if not moves:
                return f"{name} captures nothing; the only legal action is to pass"
            return f"{name} captures nothing"
        if not neighbours(occ) & bit:
            return f"{name} does not touch any ball"
        return (
            f"{name} captures nothing, and a capture is compulsory while one exists "
            f"(e.g. {SQUARE_NAMES[lsb(moves)]})"
        )

    cpdef FlipCore clone(self):
        cdef FlipCore copy = <FlipCore>type(self).__new__(type(self))
        copy._game = self._game
        copy._rules = self._rules
        copy._pos = self._pos
        copy._num_actions = self._num_actions
        memcpy(copy._history, self._history, self._num_actions)
        return copy

    def __reduce__(self):
        """Pickles as the game, the rules, the position and the history, so a
        state can cross to another process (e.g. an AI worker)."""
        cdef int seat
        seat_colours = tuple(self._rules.seat_colour[seat] for seat in range(self._rules.num_seats))
        history = bytes(self._history[:self._num_actions])
        return (
            _restore,
            (type(self), self._game, seat_colours, self._rules.othello, self.colour_masks(),
             self._pos.seat, self._pos.over, history),
        )

    def child(self, action):
        """A copy of this state with ``action`` applied."""
        cdef FlipCore copy = self.clone()
        copy.apply_action(action)
        return copy

    def returns(self):
        """Per seat: all zeros until the end, then zero-sum with the winners
        sharing one win (see engine_core.api.returns_for_winners)."""
        cdef double out[MAX_COLOURS]
        cdef int seat
        if not self._pos.over:
            return [0.0] * self._rules.num_seats
        fill_returns(&self._rules, &self._pos, out)
        return [out[seat] for seat in range(self._rules.num_seats)]

    def history(self):
        """The actions played so far, in order."""
        cdef int i
        return [self._history[i] for i in range(self._num_actions)]

    def move_number(self):
        """How many actions have been played (placements and passes)."""
        return self._num_actions

    def captures_mask(self, int seat):
        """The squares where ``seat`` would capture if it were to move (an int
        bitboard): mobility for evaluation functions."""
        if not 0 <= seat < self._rules.num_seats:
            raise ValueError(f"no seat {seat} in a {self._rules.num_seats}-seat game")
        return captures_for(&self._rules, &self._pos, seat)

    def with_turn(self, int seat):
        """A copy with ``seat`` to move and the same balls and history. Not a
        move of the game: it serves search variants such as Best-Reply
        Search, where one opponent replies while the others wait."""
        if not 0 <= seat < self._rules.num_seats:
            raise ValueError(f"no seat {seat} in a {self._rules.num_seats}-seat game")
        if self._pos.over:
            raise IllegalAction("the game is over: no one is to move")
        cdef FlipCore copy = self.clone()
        copy._pos.seat = seat
        return copy

    def zobrist_hash(self):
        """A 64-bit Zobrist key of the balls and the seat to move: equal
        positions (however reached) get equal keys."""
        cdef uint64_t key = 0 if self._pos.over else ZOBRIST_SEAT[self._pos.seat]
        cdef Bitboard balls
        cdef int colour
        for colour in range(MAX_COLOURS):
            balls = self._pos.balls[colour]
            while balls:
                key ^= ZOBRIST_BALL[colour][lsb(balls)]
                balls &= balls - 1
        return key

    def colour_masks(self):
        """The balls of each of the four colours as bitboards (ints)."""
        return tuple(self._pos.balls[c] for c in range(MAX_COLOURS))

    def random_playouts(self, n, seed):
        """Plays ``n`` uniformly random games from here to the end in C and
        returns each one's returns (a tuple per playout, one float per seat),
        the shape of ``engine_core.api.BatchPlayoutState``. The same ``seed``
        (any int, taken mod 2**64) gives the same playouts."""
        check_playout_arguments(n, seed)
        cdef int count = n
        cdef uint64_t rng_seed = seed & 0xFFFFFFFFFFFFFFFF
        cdef int seats = self._rules.num_seats
        cdef double* out = <double*>malloc(<size_t>max(count, 1) * seats * sizeof(double))
        cdef int i, seat
        if out == NULL:
            raise MemoryError()
        try:
            with nogil:
                run_playouts(&self._rules, &self._pos, count, rng_seed, out)
            return [tuple([out[i * seats + seat] for seat in range(seats)]) for i in range(count)]
        finally:
            free(out)


def _restore(cls, game, seat_colours, othello, balls, seat, over, bytes history):
    """Rebuilds a pickled state (see FlipCore.__reduce__)."""
    cdef FlipCore state = cls.__new__(cls)
    state._setup(game, seat_colours, othello, seat, balls)
    state._pos.over = over
    state._num_actions = len(history)
    memcpy(state._history, <const char*>history, state._num_actions)
    return state
