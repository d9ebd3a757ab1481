"""The Volleyball Returns core: the position and rules in C structs.

Each side is a bitboard of its own pieces, ``(row - 1) * 8 + (column - 1)``
with column 1 at the net and column 7 the serving column (bit 7 of each row is
padding that absorbs shifts off either end of a row). The action encoding is
the one documented in ``engine_core.volleyball.actions``; the constants below
repeat it for C and a test checks that the two agree.

``VolleyCore`` is the fast half of the State (``rules.py`` adds the readable
half). The analysis helpers answer "can this formation intercept a ball on
that square, and with which fewest steps?" by an IDA* search over real steps
whose lower bound is a min-cost assignment of pieces to the three squares of
a line; for a fresh one-step receive (the standard game) a Hall's-condition
test on king neighbourhoods decides the same question without search.
"""

from libc.stdint cimport uint64_t
from libc.stdlib cimport free, malloc

from engine_core.api import CHANCE, TERMINAL, IllegalAction
from engine_core.volleyball.actions import check_action

ctypedef uint64_t Bitboard

cdef extern from *:
    """
    static inline int meeple_vb_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    static inline int meeple_vb_lsb(unsigned long long x) { return __builtin_ctzll(x); }
    """
    int popcount "meeple_vb_popcount"(Bitboard x) noexcept nogil
    int lsb "meeple_vb_lsb"(Bitboard x) noexcept nogil

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

# What the State is waiting for.
cdef enum:
    PHASE_PLACE = 0        # the placer puts one piece on its court
    PHASE_SERVE = 1        # the server picks which rearmost piece goes to column 7
    PHASE_HIT = 2          # Underdog Boost: the hitter chooses a landing or rolls
    PHASE_ROLL = 3         # chance: the dice
    PHASE_HITTER_STEP = 4  # Big Leagues: the hitter's one step (or end)
    PHASE_RECEIVE = 5      # the receiver's steps, then end
    PHASE_OVER = 6

PHASE_NAMES = ("place", "serve", "hit", "roll", "hitter step", "receive", "over")
ENCODING = {
    "NUM_SQUARES": NUM_SQUARES, "PLACE_BASE": PLACE_BASE, "SERVE_BASE": SERVE_BASE,
    "STEP_BASE": STEP_BASE, "END": END_ACTION, "LAND_BASE": LAND_BASE, "ROLL": ROLL_ACTION,
    "DICE_BASE": DICE_BASE, "NUM_DISTINCT_ACTIONS": NUM_ACTIONS,
}

# Bit offsets of the eight king steps, in the order of actions.DIRECTIONS.
cdef int[8] DELTA = [1, -1, 8, -8, 9, 7, -7, -9]


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


cdef struct Position:
    Bitboard pieces[2]     # each seat's pieces, on its own side
    int scores[2]
    int phase
    int to_move            # the seat to act (the hitter while rolling)
    int server
    int hitter             # the seat whose hit is in the air, or about to be
    int placed             # pieces the placer has put down this point
    int landing            # the ball's square on the receiver's side, or NO_SQUARE
    int dice               # the last dice outcome (0..35), or -1
    int hits               # hits in this rally (the serve is the first)
    Bitboard once
    Bitboard done
    int movers
    uint64_t rng


# --- bit helpers ---------------------------------------------------------

cdef inline Bitboard bit(int sq) noexcept nogil:
    return (<Bitboard>1) << sq


cdef inline Bitboard shift(Bitboard x, int direction) noexcept nogil:
    """Moves every bit one king step; bits leaving a row land in its padding
    column (or off the board) and are removed by masking with the court."""
    cdef int d = DELTA[direction]
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


cdef void init_rules(Rules* r, int height, bint big_leagues, bint underdog) noexcept nogil:
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


# --- intercepts ------------------------------------------------------------

cdef inline bint intercepts(const Rules* r, Bitboard pieces, int landing) noexcept nogil:
    """Three pieces in a line on the court with one end on the landing square.
    Lines lie in columns 1..6, so a piece in column 7 never counts."""
    cdef int i
    for i in range(r.num_lines[landing]):
        if pieces & r.lines[landing][i] == r.lines[landing][i]:
            return True
    return False


cdef inline bint line_fillable_in_one_step(const Rules* r, Bitboard pieces,
                                           Bitboard line) noexcept nogil:
    """Whether distinct pieces, each at most one king step away, can cover the
    line's three squares: Hall's condition on their king neighbourhoods."""
    cdef int s0 = lsb(line)
    line &= line - 1
    cdef int s1 = lsb(line)
    line &= line - 1
    cdef int s2 = lsb(line)
    cdef Bitboard n0 = pieces & r.zone[s0]
    cdef Bitboard n1 = pieces & r.zone[s1]
    cdef Bitboard n2 = pieces & r.zone[s2]
    return (n0 != 0 and n1 != 0 and n2 != 0
            and popcount(n0 | n1) >= 2 and popcount(n0 | n2) >= 2
            and popcount(n1 | n2) >= 2 and popcount(n0 | n1 | n2) >= 3)


cdef int lower_bound(const Rules* r, const Turn* t, int landing) noexcept nogil:
    """A lower bound on the steps still needed to intercept: the cheapest
    assignment of distinct pieces to the three squares of some line, where a
    piece costs its king distance and may go no further than its remaining
    steps, and no more than MAX_MOVERS pieces move in all. INFINITE if no
    assignment exists."""
    cdef int squares[PIECES_PER_SIDE + 1]
    cdef int remaining[PIECES_PER_SIDE + 1]
    cdef bint fresh[PIECES_PER_SIDE + 1]
    cdef int cost[3][PIECES_PER_SIDE + 1]
    cdef int targets[3]
    cdef int n = 0, best = INFINITE, i, j, k, m, li, total, movers
    cdef Bitboard rest = t.pieces, line
    while rest and n <= PIECES_PER_SIDE:
        squares[n] = lsb(rest)
        rest &= rest - 1
        if t.done & bit(squares[n]):
            remaining[n] = 0
            fresh[n] = False
        elif t.once & bit(squares[n]):
            remaining[n] = r.max_steps - 1
            fresh[n] = False
        else:
            remaining[n] = r.max_steps if t.movers < MAX_MOVERS else 0
            fresh[n] = True
        n += 1
    for li in range(r.num_lines[landing]):
        line = r.lines[landing][li]
        for m in range(3):
            targets[m] = lsb(line)
            line &= line - 1
            for i in range(n):
                cost[m][i] = king_distance(squares[i], targets[m])
                if cost[m][i] > remaining[i]:
                    cost[m][i] = INFINITE
        for i in range(n):
            if cost[0][i] >= INFINITE:
                continue
            for j in range(n):
                if j == i or cost[1][j] >= INFINITE:
                    continue
                for k in range(n):
                    if k == i or k == j or cost[2][k] >= INFINITE:
                        continue
                    total = cost[0][i] + cost[1][j] + cost[2][k]
                    if total >= best:
                        continue
                    movers = t.movers
                    movers += fresh[i] and cost[0][i] > 0
                    movers += fresh[j] and cost[1][j] > 0
                    movers += fresh[k] and cost[2][k] > 0
                    if movers <= MAX_MOVERS:
                        best = total
    return best


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


cdef bint plan_dfs(const Rules* r, Turn* t, int landing, int steps, int bound,
                   int* plan) noexcept nogil:
    """Depth-first search for an intercept within ``bound`` steps, pruned by
    ``lower_bound``; writes the step actions into ``plan``."""
    if intercepts(r, t.pieces, landing):
        return True
    if steps + lower_bound(r, t, landing) > bound:
        return False
    cdef Turn saved = t[0]
    cdef Bitboard movers = movable_pieces(r, t), targets
    cdef int start, direction, end
    while movers:
        start = lsb(movers)
        movers &= movers - 1
        for direction in range(8):
            targets = shift(bit(start), direction) & r.court & ~t.pieces
            if not targets:
                continue
            end = lsb(targets)
            move_piece(r, t, start, end)
            plan[steps] = STEP_BASE + start * 8 + direction
            if plan_dfs(r, t, landing, steps + 1, bound, plan):
                t[0] = saved
                return True
            t[0] = saved
    return False


cdef int intercept_plan(const Rules* r, Turn* t, int landing, int* plan) noexcept nogil:
    """The fewest steps that intercept a ball on ``landing`` (plan filled), or -1."""
    cdef int bound = lower_bound(r, t, landing)
    cdef int limit = MAX_MOVERS * r.max_steps
    if intercepts(r, t.pieces, landing):
        return 0
    while bound <= limit:
        if plan_dfs(r, t, landing, 0, bound, plan):
            return bound
        bound += 1
    return -1


cdef inline bint can_intercept_fresh(const Rules* r, Bitboard pieces, int landing) noexcept nogil:
    """Whether a receiver that has not moved yet can intercept on ``landing``."""
    cdef Turn t
    cdef int plan[MAX_PLAN]
    cdef int i
    if r.max_steps == 1:
        for i in range(r.num_lines[landing]):
            if line_fillable_in_one_step(r, pieces, r.lines[landing][i]):
                return True
        return False
    t.pieces = pieces
    t.once = 0
    t.done = 0
    t.movers = 0
    return intercept_plan(r, &t, landing, plan) >= 0


cdef int covered_landings(const Rules* r, Bitboard pieces) noexcept nogil:
    """How many court squares a fresh receiver with ``pieces`` can intercept on."""
    cdef Bitboard court = r.court
    cdef int count = 0, sq
    while court:
        sq = lsb(court)
        court &= court - 1
        count += can_intercept_fresh(r, pieces, sq)
    return count


# --- the state machine -----------------------------------------------------

cdef inline uint64_t splitmix64(uint64_t* state) noexcept nogil:
    state[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline int random_below(uint64_t* rng, int n) noexcept nogil:
    return <int>(((splitmix64(rng) >> 32) * <uint64_t>n) >> 32)


cdef inline int dice_landing(const Rules* r, int outcome) noexcept nogil:
    cdef int die1 = outcome // 6 + 1
    cdef int die2 = outcome % 6 + 1
    cdef int row = die2 if r.height == 6 else (die2 + 1) // 2
    return (row - 1) * ROW_STRIDE + (die1 - 1)


cdef inline Bitboard rearmost_pieces(Bitboard pieces) noexcept nogil:
    """The pieces in the highest occupied column (nearest column 6)."""
    cdef Bitboard column = (<Bitboard>0x0101010101010101ULL) << 6
    while column and not pieces & column:
        column >>= 1
    return pieces & column


cdef inline void start_hit(const Rules* r, Position* p) noexcept nogil:
    cdef int h = p.hitter
    p.hits += 1
    p.landing = NO_SQUARE
    if r.underdog and p.scores[h] < p.scores[1 - h]:
        p.phase = PHASE_HIT
    else:
        p.phase = PHASE_ROLL
    p.to_move = h


cdef inline void ball_landed(const Rules* r, Position* p, int landing) noexcept nogil:
    p.landing = landing
    if r.big_leagues:
        p.phase = PHASE_HITTER_STEP
        p.to_move = p.hitter
    else:
        p.phase = PHASE_RECEIVE
        p.to_move = 1 - p.hitter
    p.once = 0
    p.done = 0
    p.movers = 0


cdef inline void new_point(Position* p, int server) noexcept nogil:
    p.pieces[0] = 0
    p.pieces[1] = 0
    p.server = server
    p.hitter = server
    p.to_move = server
    p.placed = 0
    p.landing = NO_SQUARE
    p.hits = 0
    p.phase = PHASE_PLACE


cdef inline void end_receive(const Rules* r, Position* p) noexcept nogil:
    cdef int receiver = 1 - p.hitter
    if intercepts(r, p.pieces[receiver], p.landing):
        p.hitter = receiver
        start_hit(r, p)
        return
    p.scores[p.hitter] += 1
    if p.scores[p.hitter] >= WINNING_SCORE:
        p.phase = PHASE_OVER
        p.landing = NO_SQUARE
    else:
        new_point(p, p.hitter)


cdef inline Bitboard step_targets(const Rules* r, Bitboard own, int start,
                                  int direction) noexcept nogil:
    """The square one king step from ``start`` if a piece may step there:
    on the court (never into column 7, never over the net) and empty."""
    return shift(bit(start), direction) & r.court & ~own


cdef int legal_list(const Rules* r, const Position* p, int* out) noexcept nogil:
    """Writes the legal actions, in increasing order, and returns how many."""
    cdef int n = 0, sq, direction, i
    cdef Bitboard mask, own = p.pieces[p.to_move]
    cdef Turn t
    if p.phase == PHASE_PLACE:
        mask = r.court & ~own
        while mask:
            out[n] = PLACE_BASE + lsb(mask)
            n += 1
            mask &= mask - 1
    elif p.phase == PHASE_SERVE:
        mask = rearmost_pieces(own)
        while mask:
            out[n] = SERVE_BASE + lsb(mask)
            n += 1
            mask &= mask - 1
    elif p.phase == PHASE_HITTER_STEP or p.phase == PHASE_RECEIVE:
        if p.phase == PHASE_RECEIVE:
            t.pieces = own
            t.once = p.once
            t.done = p.done
            t.movers = p.movers
            mask = movable_pieces(r, &t)
        else:
            mask = own
        while mask:
            sq = lsb(mask)
            mask &= mask - 1
            for direction in range(8):
                if step_targets(r, own, sq, direction):
                    out[n] = STEP_BASE + sq * 8 + direction
                    n += 1
        out[n] = END_ACTION
        n += 1
    elif p.phase == PHASE_HIT:
        mask = r.court
        while mask:
            out[n] = LAND_BASE + lsb(mask)
            n += 1
            mask &= mask - 1
        out[n] = ROLL_ACTION
        n += 1
    elif p.phase == PHASE_ROLL:
        for i in range(36):
            out[n] = DICE_BASE + i
            n += 1
    return n


cdef void play(const Rules* r, Position* p, int action) noexcept nogil:
    """Applies a legal action."""
    cdef int seat = p.to_move, start, end
    cdef Turn t
    if p.phase == PHASE_PLACE:
        p.pieces[seat] |= bit(action - PLACE_BASE)
        p.placed += 1
        if p.placed == PIECES_PER_SIDE:
            p.placed = 0
            if seat == p.server:
                p.to_move = 1 - seat
            else:
                p.phase = PHASE_SERVE
                p.to_move = p.server
    elif p.phase == PHASE_SERVE:
        start = action - SERVE_BASE
        # The same row, column 7.
        p.pieces[seat] ^= bit(start) | bit(start - column_of(start) + 7)
        p.hitter = seat
        start_hit(r, p)
    elif p.phase == PHASE_HIT:
        if action == ROLL_ACTION:
            p.phase = PHASE_ROLL
        else:
            ball_landed(r, p, action - LAND_BASE)
    elif p.phase == PHASE_ROLL:
        p.dice = action - DICE_BASE
        ball_landed(r, p, dice_landing(r, p.dice))
    elif p.phase == PHASE_HITTER_STEP:
        if action != END_ACTION:
            start = (action - STEP_BASE) // 8
            end = start + DELTA[(action - STEP_BASE) % 8]
            p.pieces[seat] ^= bit(start) | bit(end)
        p.phase = PHASE_RECEIVE
        p.to_move = 1 - seat
    elif p.phase == PHASE_RECEIVE:
        if action == END_ACTION:
            end_receive(r, p)
        else:
            t.pieces = p.pieces[seat]
            t.once = p.once
            t.done = p.done
            t.movers = p.movers
            start = (action - STEP_BASE) // 8
            move_piece(r, &t, start, start + DELTA[(action - STEP_BASE) % 8])
            p.pieces[seat] = t.pieces
            p.once = t.once
            p.done = t.done
            p.movers = t.movers


cdef int random_game(const Rules* r, Position* p) noexcept nogil:
    """Plays uniformly random actions (dice by their odds) to the end; returns
    the number of actions played."""
    cdef int legal[MAX_LEGAL]
    cdef int n, count = 0
    while p.phase != PHASE_OVER:
        n = legal_list(r, p, legal)
        play(r, p, legal[random_below(&p.rng, n)])
        count += 1
    return count


# --- the State's fast half -------------------------------------------------

cdef class VolleyCore:
    """Position, rules and history; the Game API's hot methods.

    Subclasses (in rules.py) add presentation. A subclass must not add
    instance state that ``clone`` would not copy.
    """

    cdef Rules _rules
    cdef Position _pos
    cdef list _history
    cdef object _game

    def _setup(self, game, int height, bint big_leagues, bint underdog, int first_seat,
               seed):
        """Initialises the first point; called once by the Game."""
        self._game = game
        self._history = []
        init_rules(&self._rules, height, big_leagues, underdog)
        self._pos.scores[0] = 0
        self._pos.scores[1] = 0
        self._pos.dice = -1
        self._pos.once = 0
        self._pos.done = 0
        self._pos.movers = 0
        self._pos.rng = seed & 0xFFFFFFFFFFFFFFFF
        new_point(&self._pos, first_seat)

    @property
    def game(self):
        """The Game this state belongs to."""
        return self._game

    cpdef int current_player(self):
        """The seat to act, CHANCE while the dice roll, or TERMINAL."""
        if self._pos.phase == PHASE_OVER:
            return TERMINAL
        if self._pos.phase == PHASE_ROLL:
            return CHANCE
        return self._pos.to_move

    cpdef bint is_terminal(self):
        return self._pos.phase == PHASE_OVER

    cpdef bint is_chance_node(self):
        return self._pos.phase == PHASE_ROLL

    def chance_outcomes(self):
        """The 36 dice outcomes with probability 1/36 each while rolling, else []."""
        if self._pos.phase != PHASE_ROLL:
            return []
        return [(DICE_BASE + i, 1.0 / 36.0) for i in range(36)]

    def legal_actions(self):
        """The legal actions in increasing order (the dice at a chance node)."""
        cdef int legal[MAX_LEGAL]
        cdef int n = legal_list(&self._rules, &self._pos, legal)
        cdef int i
        return [legal[i] for i in range(n)]

    cdef int _legal_index(self, int action):
        cdef int legal[MAX_LEGAL]
        cdef int n = legal_list(&self._rules, &self._pos, legal)
        cdef int i
        for i in range(n):
            if legal[i] == action:
                return i
        return -1

    def apply_action(self, action):
        """Plays ``action``; an illegal one raises IllegalAction (MalformedAction
        if it is no action of this game) and leaves the state unchanged."""
        cdef int a = self._checked_action(action)
        if self._legal_index(a) < 0:
            raise IllegalAction(self._why_illegal(a))
        play(&self._rules, &self._pos, a)
        self._history.append(a)

    cdef int _checked_action(self, object action) except -1:
        return check_action(action, self._rules.height)

    def _why_illegal(self, int action):
        """Says why a well-formed ``action`` is not legal now (overridden in rules.py)."""
        return f"action {action} is not legal now"

    cpdef VolleyCore clone(self):
        cdef VolleyCore copy = <VolleyCore>type(self).__new__(type(self))
        copy._game = self._game
        copy._rules = self._rules
        copy._pos = self._pos
        copy._history = list(self._history)
        return copy

    def _assign(self, VolleyCore other):
        """Makes this state a copy of ``other`` (same game): for atomic turns."""
        self._pos = other._pos
        self._history = list(other._history)

    def child(self, action):
        """A copy of this state with ``action`` applied."""
        cdef VolleyCore copy = self.clone()
        copy.apply_action(action)
        return copy

    def history(self):
        """Every action so far, dice included, in order."""
        return list(self._history)

    def winner(self):
        """The seat that reached 4 points, or None while the game goes on."""
        if self._pos.phase != PHASE_OVER:
            return None
        return 0 if self._pos.scores[0] > self._pos.scores[1] else 1

    # --- views --------------------------------------------------------------

    def pieces(self, int seat):
        """``seat``'s pieces on its own side as a bitboard (an int)."""
        return self._pos.pieces[seat]

    def scores(self):
        return [self._pos.scores[0], self._pos.scores[1]]

    def phase(self):
        """What the state waits for: 'place', 'serve', 'hit', 'roll',
        'hitter step', 'receive' or 'over'."""
        return PHASE_NAMES[self._pos.phase]

    def server(self):
        """The seat that serves this point."""
        return self._pos.server

    def hitter(self):
        """The seat whose hit is in the air (or about to be hit)."""
        return self._pos.hitter

    def landing(self):
        """The ball's square on the receiver's side once it has landed, else None."""
        return None if self._pos.landing == NO_SQUARE else self._pos.landing

    def last_dice(self):
        """The last dice rolled in the game as (die 1, die 2), or None."""
        if self._pos.dice < 0:
            return None
        return (self._pos.dice // 6 + 1, self._pos.dice % 6 + 1)

    def hits(self):
        """How many hits this rally has had (the serve counts as the first)."""
        return self._pos.hits

    def receive_progress(self):
        """(pieces moved, pieces that may still take a second Big League step,
        pieces that may not move again) for the receive turn under way."""
        return self._pos.movers, self._pos.once, self._pos.done

    def height(self):
        return self._rules.height

    # --- sampling ---------------------------------------------------------------

    def _sample_dice(self):
        """A dice outcome drawn from the state's own seeded stream (which clones copy)."""
        return DICE_BASE + random_below(&self._pos.rng, 36)

    def random_playouts(self, int n, seed):
        """Plays ``n`` uniformly random games from here to the end in C; returns
        each game's (winner, number of actions). Same seed, same games."""
        if n < 0:
            raise ValueError(f"the number of playouts must be >= 0, got {n}")
        cdef Position p
        cdef uint64_t rng = seed & 0xFFFFFFFFFFFFFFFF
        cdef int i, length
        out = []
        for i in range(n):
            p = self._pos
            p.rng = splitmix64(&rng)
            with nogil:
                length = random_game(&self._rules, &p)
            out.append((0 if p.scores[0] > p.scores[1] else 1, length))
        return out


# --- analysis ----------------------------------------------------------------

cdef class Analysis:
    """The intercept helpers for one board: height 3 or 6, one or two steps."""

    cdef Rules _rules

    def __init__(self, bint big_leagues=False):
        init_rules(&self._rules, 6 if big_leagues else 3, big_leagues, False)

    def _check(self, Bitboard pieces, int landing):
        if not 0 <= landing < NUM_SQUARES or not self._rules.court & bit(landing):
            raise ValueError(f"the landing square {landing} is not on the court")
        if pieces & ~(self._rules.court | self._rules.serving):
            raise ValueError(f"formation {pieces:#x} has pieces off the side")
        if popcount(pieces) > PIECES_PER_SIDE:
            raise ValueError(f"formation {pieces:#x} has more than {PIECES_PER_SIDE} pieces")

    def intercept_plan(self, Bitboard pieces, int landing, Bitboard once=0, Bitboard done=0,
                       int movers=0):
        """The fewest step actions after which ``pieces`` intercept a ball on
        ``landing``, or None if no legal receive does; ``once``/``done``/
        ``movers`` describe a receive turn already under way."""
        self._check(pieces, landing)
        if not 0 <= movers <= MAX_MOVERS:
            raise ValueError(f"at most {MAX_MOVERS} pieces move in a turn, got {movers}")
        cdef Turn t
        cdef int plan[MAX_PLAN]
        cdef int i, n
        t.pieces = pieces
        t.once = once & pieces
        t.done = done & pieces
        t.movers = movers
        n = intercept_plan(&self._rules, &t, landing, plan)
        if n < 0:
            return None
        return [plan[i] for i in range(n)]

    def can_intercept(self, Bitboard pieces, int landing):
        """Whether a receiver that has not moved yet can intercept on ``landing``."""
        self._check(pieces, landing)
        return can_intercept_fresh(&self._rules, pieces, landing)

    def covered_landings(self, Bitboard pieces):
        """How many court squares a fresh receiver can intercept on."""
        self._check(pieces, lsb(self._rules.court))
        return covered_landings(&self._rules, pieces)

    def coverage_counts(self, formations):
        """``covered_landings`` for each formation of a sequence, in one C loop."""
        cdef Py_ssize_t n = len(formations), i
        cdef Bitboard side = self._rules.court | self._rules.serving
        cdef Bitboard* masks = <Bitboard*>malloc(max(n, 1) * sizeof(Bitboard))
        cdef int* counts = <int*>malloc(max(n, 1) * sizeof(int))
        if masks == NULL or counts == NULL:
            free(masks)
            free(counts)
            raise MemoryError()
        try:
            for i in range(n):
                masks[i] = formations[i]
                if masks[i] & ~side:
                    raise ValueError(f"formation {masks[i]:#x} has pieces off the side")
                if popcount(masks[i]) > PIECES_PER_SIDE:
                    raise ValueError(f"formation {masks[i]:#x} has more than 6 pieces")
            with nogil:
                for i in range(n):
                    counts[i] = covered_landings(&self._rules, masks[i])
            return [counts[i] for i in range(n)]
        finally:
            free(masks)
            free(counts)
