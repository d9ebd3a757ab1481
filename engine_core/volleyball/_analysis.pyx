"""Intercept analysis in C: can a formation catch a ball, and with which fewest steps?

An IDA* search over real receiving steps, pruned by a lower bound that is the
cheapest assignment of distinct pieces to the three squares of some line
(king distance, within each piece's steps left and the 3-mover limit). For a
receiver that has not moved yet in the one-step game a Hall's-condition test
on king neighbourhoods decides the same question without search; a test
checks the two against each other on every placement.
"""

from libc.stdlib cimport free, malloc

from engine_core.volleyball._board cimport *


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
