"""Squares and the readable half of the flip State, shared by Rolit and Othello."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from engine_core.api import GameType, MalformedAction
from engine_core.rolit._core import PASS, SQUARE_NAMES, FlipCore

Square = int
Bitboard = int

_SQUARE_INDEX = {name: square for square, name in enumerate(SQUARE_NAMES)}
PASS_NAME = "pass"


def square_at(file: int, rank: int) -> Square:
    """The index of the square on ``file`` and ``rank`` (both 0..7)."""
    return rank * 8 + file


def parse_square(text: str) -> Square:
    """``"d3"`` -> 19; a MalformedAction for anything that is not a square name."""
    try:
        return _SQUARE_INDEX[text.strip().lower()]
    except (KeyError, AttributeError):
        raise MalformedAction(f"not a square name (a1..h8): {text!r}") from None


class FlipGame:
    """What the flip State needs from its Game; RolitGame and OthelloGame fill it."""

    name: ClassVar[str]
    game_type: ClassVar[GameType]
    colour_names: ClassVar[tuple[str, ...]]
    colour_symbols: ClassVar[str]
    othello: ClassVar[bool]
    start: ClassVar[dict[int, tuple[Square, ...]]]

    seat_colours: tuple[int, ...]
    first_seat: int

    def num_players(self) -> int:
        return len(self.seat_colours)

    def new_initial_state(self) -> FlipState:
        board = [-1] * 64
        for colour, squares in self.start.items():
            for square in squares:
                board[square] = colour
        return self._state(board, self.first_seat)

    def state_from_board(self, board: Sequence[int], to_move: int) -> FlipState:
        """A state with ``board`` (64 colour indices or -1, a1 first) and seat
        ``to_move`` to move, with an empty history: for puzzles, tests and
        analysis. It need not be reachable from the start, but must hold at
        least one ball and only this game's colours."""
        if len(board) != 64:
            raise ValueError(f"{self.name}: a board has 64 squares, got {len(board)}")
        colours = range(len(self.colour_names))
        if any(type(cell) is not int or (cell != -1 and cell not in colours) for cell in board):
            raise ValueError(
                f"{self.name}: squares hold a colour 0..{len(colours) - 1} or -1, got {board!r}"
            )
        if all(cell == -1 for cell in board):
            raise ValueError(f"{self.name}: a board needs at least one ball")
        if type(to_move) is not int or not 0 <= to_move < self.num_players():
            raise ValueError(f"{self.name}: to_move must be a seat 0..{self.num_players() - 1}")
        return self._state(board, to_move)

    def state_from_diagram(self, diagram: str, to_move: int) -> FlipState:
        """Like ``state_from_board``, from a diagram as ``str(state)`` draws it:
        eight rows of eight cells, rank 8 first, a colour symbol (e.g. ``R``)
        or ``.`` per cell; spaces, rank digits and file letters are ignored."""
        symbols = {symbol: colour for colour, symbol in enumerate(self.colour_symbols)}
        rows = []
        for line in diagram.strip().splitlines():
            cells = [c for c in line if c in symbols or c in ".*"]
            if cells:
                rows.append([symbols.get(c, -1) for c in cells])
        if len(rows) != 8 or any(len(row) != 8 for row in rows):
            raise ValueError(f"{self.name}: a diagram has 8 rows of 8 cells:\n{diagram}")
        return self.state_from_board([cell for row in reversed(rows) for cell in row], to_move)

    def _state(self, board: Sequence[int], to_move: int) -> FlipState:
        balls = [0, 0, 0, 0]
        for square, colour in enumerate(board):
            if colour >= 0:
                balls[colour] |= 1 << square
        state = FlipState()
        state._setup(self, self.seat_colours, self.othello, to_move, balls)
        return state

    def __repr__(self) -> str:
        options = ", ".join(f"{key}={value!r}" for key, value in self.options().items())
        return f"load_game({self.name!r}{', ' if options else ''}{options})"

    def options(self) -> dict[str, Any]:
        raise NotImplementedError


class FlipState(FlipCore):
    """A Rolit or Othello position: the Game API (hot methods in FlipCore)
    plus board views and readable strings."""

    __slots__ = ()

    game: FlipGame

    def board(self) -> list[int]:
        """The 64 squares (a1 first) as colour indices, -1 for empty."""
        board = [-1] * 64
        for colour, mask in enumerate(self.colour_masks()):
            while mask:
                low = mask & -mask
                board[low.bit_length() - 1] = colour
                mask ^= low
        return board

    def colour_of(self, seat: int) -> int:
        """The colour index that ``seat`` plays."""
        return self.game.seat_colours[seat]

    def scores(self) -> list[int]:
        """Each seat's ball count (neutral balls count for no one)."""
        masks = self.colour_masks()
        return [masks[colour].bit_count() for colour in self.game.seat_colours]

    def action_to_string(self, action: int) -> str:
        if self.game.othello and action == PASS:
            return PASS_NAME
        if type(action) is not int or not 0 <= action < 64:
            raise MalformedAction(f"not a square index 0..63: {action!r}")
        return SQUARE_NAMES[action]

    def string_to_action(self, text: str) -> int:
        if self.game.othello and isinstance(text, str) and text.strip().lower() == PASS_NAME:
            return PASS
        return parse_square(text)

    def __str__(self) -> str:
        game = self.game
        # One character a square, a1 first: a ball's symbol, "*" for a legal
        # placement, "." for an empty square.
        cells = ["."] * 64
        for square in self.legal_actions():
            if square != PASS:
                cells[square] = "*"
        for colour, mask in enumerate(self.colour_masks()):
            while mask:
                low = mask & -mask
                cells[low.bit_length() - 1] = game.colour_symbols[colour]
                mask ^= low
        files = "  " + " ".join("abcdefgh")
        lines = [files]
        for rank in range(7, -1, -1):
            row = " ".join(cells[rank * 8 : rank * 8 + 8])
            lines.append(f"{rank + 1} {row} {rank + 1}")
        lines.append(files)
        scores = "  ".join(
            f"{game.colour_names[self.colour_of(seat)]} {score}"
            for seat, score in enumerate(self.scores())
        )
        player = self.current_player()
        if self.is_terminal():
            status = "game over"
        else:
            status = f"to move: seat {player} ({game.colour_names[self.colour_of(player)]})"
        lines.append(f"{scores} | {status}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        moves = " ".join(self.action_to_string(a) for a in self.history())
        return f"<{self.game!r} after [{moves}]>"
