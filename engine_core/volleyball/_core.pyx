"""The Volleyball Returns state machine: the position in a C struct and the
Game API's hot methods (``rules.py`` adds the readable half of the State).

The bitboard layout and the shared helpers are in ``_board.pxd``; the
intercept search is in ``_analysis.pyx``.
"""

from libc.stdint cimport uint64_t

from engine_core.api import (
    CHANCE, TERMINAL, IllegalAction, check_playout_arguments, returns_for_winners,
)
from engine_core.volleyball.actions import check_action

from engine_core.volleyball._board cimport *


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
# A finished game's returns by its winner (tuples, shared by every playout).
WINNER_RETURNS = tuple(tuple(returns_for_winners([seat], 2)) for seat in range(2))
ENCODING = {
    "NUM_SQUARES": NUM_SQUARES, "PLACE_BASE": PLACE_BASE, "SERVE_BASE": SERVE_BASE,
    "STEP_BASE": STEP_BASE, "END": END_ACTION, "LAND_BASE": LAND_BASE, "ROLL": ROLL_ACTION,
    "DICE_BASE": DICE_BASE, "NUM_DISTINCT_ACTIONS": NUM_ACTIONS,
}


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


# --- the state machine -----------------------------------------------------

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
    """The hitter sends the ball: it rolls, or with Underdog Boost and fewer
    points it chooses between a landing square and rolling."""
    cdef int h = p.hitter
    p.hits += 1
    p.landing = NO_SQUARE
    if r.underdog and p.scores[h] < p.scores[1 - h]:
        p.phase = PHASE_HIT
    else:
        p.phase = PHASE_ROLL
    p.to_move = h


cdef inline void ball_landed(const Rules* r, Position* p, int landing) noexcept nogil:
    """The ball is down on the receiver's side: the Big League hitter's step
    comes first, then a fresh receive turn."""
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
    """Empties both sides; ``server`` places first."""
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
    """An intercept turns the receiver into the hitter with the pieces as they
    stand; a miss scores for the hitter, who serves the next point."""
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
            end = start + delta((action - STEP_BASE) % 8)
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
            move_piece(r, &t, start, start + delta((action - STEP_BASE) % 8))
            p.pieces[seat] = t.pieces
            p.once = t.once
            p.done = t.done
            p.movers = t.movers


cdef void random_game(const Rules* r, Position* p) noexcept nogil:
    """Plays uniformly random actions (dice by their odds) to the end."""
    cdef int legal[MAX_LEGAL]
    cdef int n
    while p.phase != PHASE_OVER:
        n = legal_list(r, p, legal)
        play(r, p, legal[random_below(&p.rng, n)])


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

    def __reduce__(self):
        """Pickles as the game, the position's fields and the history, so a
        state can cross to another process (e.g. an AI worker); the rules
        tables are rebuilt from the game's options."""
        cdef Position* p = &self._pos
        fields = (
            p.pieces[0], p.pieces[1], p.scores[0], p.scores[1], p.phase, p.to_move,
            p.server, p.hitter, p.placed, p.landing, p.dice, p.hits, p.once, p.done,
            p.movers, p.rng,
        )
        return (_restore, (type(self), self._game, fields, list(self._history)))

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

    def random_playouts(self, n, seed):
        """Plays ``n`` uniformly random games (dice by their odds) from here to
        the end in C and returns each game's returns, a tuple per playout, one
        float per seat (+1 for the winner, -1 for the other): the shape of
        ``engine_core.api.BatchPlayoutState``. The same ``seed`` (any int,
        taken mod 2**64) gives the same games."""
        check_playout_arguments(n, seed)
        cdef int count = n
        cdef Position p
        cdef uint64_t rng = seed & 0xFFFFFFFFFFFFFFFF
        cdef int i
        out = []
        for i in range(count):
            p = self._pos
            p.rng = splitmix64(&rng)
            with nogil:
                random_game(&self._rules, &p)
            out.append(WINNER_RETURNS[0 if p.scores[0] > p.scores[1] else 1])
        return out


def _restore(cls, game, tuple fields, list history):
    """Rebuilds a pickled state (see VolleyCore.__reduce__)."""
    cdef VolleyCore state = cls.__new__(cls)
    cdef Position* p = &state._pos
    state._game = game
    state._history = list(history)
    init_rules(&state._rules, game.height, game.big_leagues, game.underdog_boost)
    (
        p.pieces[0], p.pieces[1], p.scores[0], p.scores[1], p.phase, p.to_move,
        p.server, p.hitter, p.placed, p.landing, p.dice, p.hits, p.once, p.done,
        p.movers, p.rng,
    ) = fields
    return state
