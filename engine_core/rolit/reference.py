"""A plain-Python reference of the flip rules, for differential tests and debugging.

It shares nothing with the Cython core but the square numbering: a list of 64
cells, eight direction vectors, loops that walk the board one square at a
time. Slow and obvious on purpose; the compiled core must agree with it.
"""

from __future__ import annotations

from collections.abc import Sequence

EMPTY = -1
PASS = 64
DIRECTIONS = [(df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if (df, dr) != (0, 0)]


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < 8 and 0 <= rank < 8


class ReferenceFlipGame:
    """One Rolit or Othello game played on a list of 64 cells.

    ``seat_colours`` maps seats to colours in turn order; ``othello`` selects
    Othello's rules (a player with no capture passes; the game ends when
    neither side can capture) instead of Rolit's (no passing; with no capture,
    any empty square touching a ball).
    """

    def __init__(
        self,
        seat_colours: Sequence[int],
        start: dict[int, Sequence[int]],
        *,
        othello: bool = False,
        first_seat: int = 0,
    ) -> None:
        self.seat_colours = list(seat_colours)
        self.othello = othello
        self.cells = [EMPTY] * 64
        for colour, squares in start.items():
            for square in squares:
                self.cells[square] = colour
        self.seat = first_seat
        self.over = False

    @classmethod
    def from_board(
        cls, seat_colours: Sequence[int], cells: Sequence[int], seat: int, *, othello: bool
    ) -> ReferenceFlipGame:
        """A game in an arbitrary position (``seat`` to move)."""
        game = cls(seat_colours, {}, othello=othello, first_seat=seat)
        game.cells = list(cells)
        game.over = game.game_over()
        return game

    def copy(self) -> ReferenceFlipGame:
        twin = ReferenceFlipGame(self.seat_colours, {}, othello=self.othello, first_seat=self.seat)
        twin.cells = list(self.cells)
        twin.over = self.over
        return twin

    def flips(self, square: int, colour: int) -> list[int]:
        """The balls a ball of ``colour`` placed on ``square`` would turn."""
        file, rank = square % 8, square // 8
        turned: list[int] = []
        for df, dr in DIRECTIONS:
            run: list[int] = []
            f, r = file + df, rank + dr
            while _on_board(f, r) and self.cells[r * 8 + f] not in (EMPTY, colour):
                run.append(r * 8 + f)
                f, r = f + df, r + dr
            if _on_board(f, r) and self.cells[r * 8 + f] == colour:
                turned.extend(run)
        return turned

    def touches_a_ball(self, square: int) -> bool:
        file, rank = square % 8, square // 8
        return any(
            _on_board(file + df, rank + dr) and self.cells[(rank + dr) * 8 + file + df] != EMPTY
            for df, dr in DIRECTIONS
        )

    def captures(self, seat: int) -> list[int]:
        colour = self.seat_colours[seat]
        return [
            square
            for square in range(64)
            if self.cells[square] == EMPTY and self.flips(square, colour)
        ]

    def legal_actions(self) -> list[int]:
        if self.over:
            return []
        captures = self.captures(self.seat)
        if captures:
            return captures
        if self.othello:
            return [PASS]
        return [s for s in range(64) if self.cells[s] == EMPTY and self.touches_a_ball(s)]

    def apply(self, action: int) -> None:
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action}")
        if action != PASS:
            colour = self.seat_colours[self.seat]
            for square in self.flips(action, colour):
                self.cells[square] = colour
            self.cells[action] = colour
        self.seat = (self.seat + 1) % len(self.seat_colours)
        self.over = self.game_over()

    def game_over(self) -> bool:
        """Rolit ends when the board is full; Othello also when neither side
        can capture."""
        if EMPTY not in self.cells:
            return True
        return self.othello and not self.captures(0) and not self.captures(1)

    def scores(self) -> list[int]:
        return [self.cells.count(colour) for colour in self.seat_colours]

    def winners(self) -> list[int]:
        scores = self.scores()
        best = max(scores)
        return [seat for seat, score in enumerate(scores) if score == best]
