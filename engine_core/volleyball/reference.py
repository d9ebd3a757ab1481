"""A plain-Python Volleyball Returns, written for clarity rather than speed.

It shares only the action encoding (``actions``) with the compiled core and
is the other side of the differential tests: squares are (column, row) pairs,
sides are sets, and the intercept search is a breadth-first search over real
steps. The installed package always plays with the compiled core; this stays
importable for tests, debugging and the benchmark's baseline.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from engine_core.api import CHANCE, TERMINAL, IllegalAction
from engine_core.volleyball import actions as act

Cell = tuple[int, int]  # (column, row)


def cell_of(sq: act.Square) -> Cell:
    return act.column_of(sq), act.row_of(sq)


def square_of(cell: Cell) -> act.Square:
    return act.square(*cell)


def on_court(cell: Cell, height: int) -> bool:
    """Columns 1..6 (column 7 is the serving zone, column 0 would be over the net)."""
    return 1 <= cell[0] <= act.COURT_COLUMNS and 1 <= cell[1] <= height


def court_cells(height: int) -> list[Cell]:
    return [(c, r) for r in range(1, height + 1) for c in range(1, act.COURT_COLUMNS + 1)]


def lines_ending_on(landing: Cell, height: int) -> list[tuple[Cell, Cell, Cell]]:
    """The straight lines of three court squares that start on ``landing``."""
    lines = []
    for dc, dr in act.DIRECTIONS:
        line = tuple((landing[0] + k * dc, landing[1] + k * dr) for k in range(3))
        if all(on_court(cell, height) for cell in line):
            lines.append((line[0], line[1], line[2]))
    return lines


def intercepts(pieces: set[Cell] | frozenset[Cell], landing: Cell, height: int) -> bool:
    return any(all(cell in pieces for cell in line) for line in lines_ending_on(landing, height))


def may_move(steps_taken: dict[Cell, int], cell: Cell, max_steps: int) -> bool:
    """Up to 3 distinct pieces move, each up to ``max_steps`` king steps."""
    taken = steps_taken.get(cell, 0)
    if taken:
        return taken < max_steps
    return len(steps_taken) < act.MAX_MOVERS


def receive_steps(
    pieces: set[Cell] | frozenset[Cell], steps_taken: dict[Cell, int], height: int, max_steps: int
) -> list[tuple[Cell, Cell, act.Action]]:
    """Every legal receiving step as (from, to, action)."""
    out = []
    for cell in sorted(pieces):
        if not may_move(steps_taken, cell, max_steps):
            continue
        for direction, (dc, dr) in enumerate(act.DIRECTIONS):
            target = (cell[0] + dc, cell[1] + dr)
            if on_court(target, height) and target not in pieces:
                out.append((cell, target, act.STEP_BASE + square_of(cell) * 8 + direction))
    return out


def king_distance(a: Cell, b: Cell) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _steps_needed_at_least(
    pieces: frozenset[Cell],
    steps_taken: dict[Cell, int],
    landing: Cell,
    height: int,
    max_steps: int,
) -> float:
    """Each empty square of a line needs its own piece to travel there, so a
    solution takes at least the sum of their distances to the nearest piece
    that may still move."""
    movable = [cell for cell in pieces if may_move(steps_taken, cell, max_steps)]
    best = float("inf")
    for line in lines_ending_on(landing, height):
        need = 0.0
        for target in line:
            if target not in pieces:
                need += min((king_distance(c, target) for c in movable), default=float("inf"))
        best = min(best, need)
    return best


def min_intercept_steps(
    pieces: set[Cell] | frozenset[Cell],
    landing: Cell,
    big_leagues: bool = False,
    steps_taken: dict[Cell, int] | None = None,
) -> list[act.Action] | None:
    """A shortest list of receiving steps that intercepts on ``landing``, or
    None if none does.

    Breadth-first search over positions for a solution of at most ``budget``
    steps, for budget 0, 1, 2, ...: the first budget that succeeds is the
    shortest. A smaller budget prunes more positions, which keeps the
    six-step Big League searches quick.
    """
    big = act.BIG_LEAGUES_HEIGHT
    height, max_steps = (big, 2) if big_leagues else (act.HEIGHT, 1)
    for budget in range(act.MAX_MOVERS * max_steps + 1):
        path = _search(frozenset(pieces), dict(steps_taken or {}), landing, height, max_steps,
                       budget)  # fmt: skip
        if path is not None:
            return path
    return None


def _search(
    pieces: frozenset[Cell],
    steps_taken: dict[Cell, int],
    landing: Cell,
    height: int,
    max_steps: int,
    budget: int,
) -> list[act.Action] | None:
    frontier: list[tuple[frozenset[Cell], dict[Cell, int], list[act.Action]]] = [
        (pieces, steps_taken, [])
    ]
    seen = {(pieces, frozenset(steps_taken.items()))}
    for depth in range(budget + 1):
        next_frontier = []
        for here, taken, path in frontier:
            if intercepts(here, landing, height):
                return path
            if depth + _steps_needed_at_least(here, taken, landing, height, max_steps) > budget:
                continue
            for cell, target, action in receive_steps(here, taken, height, max_steps):
                moved = (here - {cell}) | {target}
                now = dict(taken)
                now[target] = now.pop(cell, 0) + 1
                key = (moved, frozenset(now.items()))
                if key not in seen:
                    seen.add(key)
                    next_frontier.append((moved, now, [*path, action]))
        frontier = next_frontier
    return None


def covered_landings(pieces: set[Cell], big_leagues: bool = False) -> int:
    height = act.BIG_LEAGUES_HEIGHT if big_leagues else act.HEIGHT
    return sum(
        min_intercept_steps(pieces, landing, big_leagues) is not None
        for landing in court_cells(height)
    )


@dataclass
class ReferenceState:
    """The whole game as a plain object with the same actions as the core."""

    big_leagues: bool = False
    underdog_boost: bool = False
    first_seat: int = 0
    pieces: tuple[set[Cell], set[Cell]] = field(default_factory=lambda: (set(), set()))
    scores: list[int] = field(default_factory=lambda: [0, 0])
    phase: str = "place"
    to_move: int = 0
    server: int = 0
    hitter: int = 0
    landing: Cell | None = None
    steps_taken: dict[Cell, int] = field(default_factory=dict)
    history: list[act.Action] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.height = act.BIG_LEAGUES_HEIGHT if self.big_leagues else act.HEIGHT
        self.max_steps = 2 if self.big_leagues else 1
        self._new_point(self.first_seat)

    def _new_point(self, server: int) -> None:
        self.pieces = (set(), set())
        self.server = self.hitter = self.to_move = server
        self.landing = None
        self.phase = "place"

    def current_player(self) -> int:
        if self.phase == "over":
            return TERMINAL
        if self.phase == "roll":
            return CHANCE
        return self.to_move

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def is_chance_node(self) -> bool:
        return self.phase == "roll"

    def chance_outcomes(self) -> list[tuple[act.Action, float]]:
        if self.phase != "roll":
            return []
        return [(act.DICE_BASE + k, 1 / 36) for k in range(36)]

    def returns(self) -> list[float]:
        if self.phase != "over":
            return [0.0, 0.0]
        return [1.0, -1.0] if self.scores[0] > self.scores[1] else [-1.0, 1.0]

    def legal_actions(self) -> list[act.Action]:
        own = self.pieces[self.to_move]
        if self.phase == "place":
            return sorted(act.PLACE_BASE + square_of(c) for c in court_cells(self.height)
                          if c not in own)  # fmt: skip
        if self.phase == "serve":
            rearmost = max(column for column, _ in own)
            return sorted(act.SERVE_BASE + square_of(c) for c in own if c[0] == rearmost)
        if self.phase == "hit":
            return [*(act.LAND_BASE + square_of(c) for c in court_cells(self.height)), act.ROLL]
        if self.phase == "roll":
            return [outcome for outcome, _ in self.chance_outcomes()]
        if self.phase == "hitter step":
            steps = receive_steps(own, {}, self.height, 1)
        elif self.phase == "receive":
            steps = receive_steps(own, self.steps_taken, self.height, self.max_steps)
        else:
            return []
        return [*sorted(action for _, _, action in steps), act.END]

    def apply_action(self, action: act.Action) -> None:
        if action not in self.legal_actions():
            raise IllegalAction(f"{action} is not legal in phase {self.phase}")
        self.history.append(action)
        seat = self.to_move
        own = self.pieces[seat]
        if self.phase == "place":
            own.add(cell_of(action - act.PLACE_BASE))
            if len(own) == act.PIECES_PER_SIDE:
                if seat == self.server:
                    self.to_move = 1 - seat
                else:
                    self.phase, self.to_move = "serve", self.server
        elif self.phase == "serve":
            column, row = cell_of(action - act.SERVE_BASE)
            own.remove((column, row))
            own.add((act.SERVING_COLUMN, row))
            self._hit(seat)
        elif self.phase == "hit":
            if action == act.ROLL:
                self.phase = "roll"
            else:
                self._land(cell_of(action - act.LAND_BASE))
        elif self.phase == "roll":
            die1, die2 = act.dice_of(action)
            self._land((die1, act.landing_row(die2, self.height)))
        elif self.phase == "hitter step":
            if action != act.END:
                self._step(own, action)
            self.phase, self.to_move = "receive", 1 - seat
        elif action == act.END:
            self._end_receive()
        else:
            cell, target = self._step(own, action)
            self.steps_taken[target] = self.steps_taken.pop(cell, 0) + 1

    def _step(self, own: set[Cell], action: act.Action) -> tuple[Cell, Cell]:
        sq, direction = divmod(action - act.STEP_BASE, 8)
        cell = cell_of(sq)
        target = act.step_target(sq, direction)
        own.remove(cell)
        own.add(target)
        return cell, target

    def _hit(self, hitter: int) -> None:
        self.hitter = self.to_move = hitter
        self.landing = None
        behind = self.scores[hitter] < self.scores[1 - hitter]
        self.phase = "hit" if self.underdog_boost and behind else "roll"

    def _land(self, cell: Cell) -> None:
        self.landing = cell
        self.steps_taken = {}
        if self.big_leagues:
            self.phase, self.to_move = "hitter step", self.hitter
        else:
            self.phase, self.to_move = "receive", 1 - self.hitter

    def _end_receive(self) -> None:
        receiver = 1 - self.hitter
        assert self.landing is not None
        if intercepts(self.pieces[receiver], self.landing, self.height):
            self._hit(receiver)
            return
        self.scores[self.hitter] += 1
        if self.scores[self.hitter] == act.WINNING_SCORE:
            self.phase, self.landing = "over", None
        else:
            self._new_point(self.hitter)


def random_game(state: ReferenceState, rng: random.Random) -> int:
    """Plays uniformly random actions (dice by their odds) to the end; returns
    the number of actions played."""
    count = 0
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
        count += 1
    return count
