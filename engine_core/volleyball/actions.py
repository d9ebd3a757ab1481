"""Squares and actions of Volleyball Returns as plain ints, and their strings.

A square is a bit index on one side of the net: ``(row - 1) * 8 + (column - 1)``
with column 1 at the net, columns 1..6 the court and column 7 the serving
column; bit 7 of each row is padding, so shifting a bitboard never wraps a
piece from one row into the next. Rows run 1..3 (1..6 in Big Leagues). A
square always belongs to the side of whoever it concerns: the mover's own side
for ``place``, ``serve`` and ``step``, the receiver's side for ``land`` and the
dice.

Actions are ints, OpenSpiel style (fast to enumerate and to hash for search):

=========  ======================  =========================================
 range      string                  meaning
=========  ======================  =========================================
 0..47      ``place 3,2``           put a piece on an empty court square
 48..95     ``serve 6,2``           move that piece to column 7 (same row)
 96..479    ``step 3,2->2,2``       one king step of one piece
 480        ``end``                 end the receive turn (or skip the step)
 481..528   ``land 4,3``            Underdog Boost: choose the landing square
 529        ``roll``                Underdog Boost: roll instead of choosing
 530..565   ``dice 4,5``            chance: die 1 (column) and die 2 (row)
=========  ======================  =========================================

Squares parse as ``column,row`` (``3,2``) or, chess-like, as a column letter
and a row digit (``c2`` is column 3, row 2); strings are always written in
the ``column,row`` form.
"""

from __future__ import annotations

import re

from engine_core.api import MalformedAction

Square = int
Bitboard = int
Action = int

ROW_STRIDE = 8
COURT_COLUMNS = 6
SERVING_COLUMN = 7
PIECES_PER_SIDE = 6
MAX_MOVERS = 3
WINNING_SCORE = 4
HEIGHT = 3
BIG_LEAGUES_HEIGHT = 6

NUM_SQUARES = BIG_LEAGUES_HEIGHT * ROW_STRIDE
PLACE_BASE = 0
SERVE_BASE = PLACE_BASE + NUM_SQUARES
STEP_BASE = SERVE_BASE + NUM_SQUARES
END = STEP_BASE + NUM_SQUARES * 8
LAND_BASE = END + 1
ROLL = LAND_BASE + NUM_SQUARES
DICE_BASE = ROLL + 1
NUM_DISTINCT_ACTIONS = DICE_BASE + 36

# King steps as (columns, rows); columns grow away from the net.
DIRECTIONS: tuple[tuple[int, int], ...] = (
    (1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1),
)  # fmt: skip


def square(column: int, row: int) -> Square:
    """The bit index of ``column`` (1..7) and ``row`` (1..6)."""
    return (row - 1) * ROW_STRIDE + (column - 1)


def column_of(sq: Square) -> int:
    return sq % ROW_STRIDE + 1


def row_of(sq: Square) -> int:
    return sq // ROW_STRIDE + 1


def is_square(sq: int, height: int) -> bool:
    """Whether ``sq`` names a square (court or serving column) of a side."""
    return 0 <= sq < height * ROW_STRIDE and column_of(sq) <= SERVING_COLUMN


def square_name(sq: Square) -> str:
    return f"{column_of(sq)},{row_of(sq)}"


def squares_of(mask: Bitboard) -> list[Square]:
    """The set bits of ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(squares: list[Square] | tuple[Square, ...]) -> Bitboard:
    mask = 0
    for sq in squares:
        mask |= 1 << sq
    return mask


def landing_row(die: int, height: int) -> int:
    """The row die 2 selects: 1-2, 3-4, 5-6 -> rows 1, 2, 3; in Big Leagues the die is the row."""
    return die if height == BIG_LEAGUES_HEIGHT else (die + 1) // 2


def step_target(sq: Square, direction: int) -> tuple[int, int]:
    """The (column, row) one king step from ``sq`` in ``direction`` (maybe off the board)."""
    dc, dr = DIRECTIONS[direction]
    return column_of(sq) + dc, row_of(sq) + dr


# --- action constructors ----------------------------------------------------


def place_action(column: int, row: int) -> Action:
    return PLACE_BASE + square(column, row)


def serve_action(column: int, row: int) -> Action:
    return SERVE_BASE + square(column, row)


def step_action(start: tuple[int, int], end: tuple[int, int]) -> Action:
    """One king step from ``(column, row)`` to the neighbouring ``(column, row)``."""
    delta = (end[0] - start[0], end[1] - start[1])
    if delta not in DIRECTIONS:
        raise MalformedAction(f"a step goes to a neighbouring square, not {start} -> {end}")
    return STEP_BASE + square(*start) * 8 + DIRECTIONS.index(delta)


def land_action(column: int, row: int) -> Action:
    return LAND_BASE + square(column, row)


def dice_action(die1: int, die2: int) -> Action:
    if not (1 <= die1 <= 6 and 1 <= die2 <= 6):
        raise MalformedAction(f"dice show 1..6, got {die1},{die2}")
    return DICE_BASE + (die1 - 1) * 6 + (die2 - 1)


def dice_of(action: Action) -> tuple[int, int]:
    k = action - DICE_BASE
    return k // 6 + 1, k % 6 + 1


# --- strings -----------------------------------------------------------------


def check_action(action: object, height: int) -> Action:
    """``action`` as an int if it encodes an action of a game ``height`` rows
    high, else MalformedAction (wrong type, out of range, off the board)."""
    if type(action) is not int:
        if isinstance(action, bool) or not hasattr(action, "__index__"):
            raise MalformedAction(f"an action is an int, got {action!r}")
        action = action.__index__()
    assert isinstance(action, int)
    if not 0 <= action < NUM_DISTINCT_ACTIONS:
        raise MalformedAction(f"an action is an int 0..{NUM_DISTINCT_ACTIONS - 1}, got {action}")
    if action in (END, ROLL) or action >= DICE_BASE:
        return action
    if action < STEP_BASE:
        sq = (action - PLACE_BASE) % NUM_SQUARES
    elif action < END:
        sq, direction = divmod(action - STEP_BASE, 8)
        column, row = step_target(sq, direction)
        if is_square(sq, height) and column == 0:
            raise MalformedAction(f"action {action} steps across the net: pieces never do")
        if is_square(sq, height) and not (1 <= column <= SERVING_COLUMN and 1 <= row <= height):
            raise MalformedAction(f"action {action} steps off a 7x{height} side")
    else:
        sq = action - LAND_BASE
    if not is_square(sq, height):
        raise MalformedAction(f"action {action} names no square of a {height}-row side")
    return action


def action_to_string(action: object, height: int) -> str:
    a = check_action(action, height)
    if a == END:
        return "end"
    if a == ROLL:
        return "roll"
    if a >= DICE_BASE:
        die1, die2 = dice_of(a)
        return f"dice {die1},{die2}"
    if a >= LAND_BASE:
        return f"land {square_name(a - LAND_BASE)}"
    if a >= STEP_BASE:
        sq, direction = divmod(a - STEP_BASE, 8)
        column, row = step_target(sq, direction)
        return f"step {square_name(sq)}->{column},{row}"
    if a >= SERVE_BASE:
        return f"serve {square_name(a - SERVE_BASE)}"
    return f"place {square_name(a - PLACE_BASE)}"


_SQUARE = r"\s*(?:(\d+)\s*,\s*(\d+)|([a-z])(\d+))\s*"
_PATTERNS = {
    "place": re.compile(_SQUARE),
    "serve": re.compile(_SQUARE),
    "land": re.compile(_SQUARE),
    "step": re.compile(_SQUARE + r"(?:->|-|\s)" + _SQUARE),
    "dice": re.compile(r"\s*([1-6])\s*,\s*([1-6])\s*"),
}


def _square_from(groups: tuple[str | None, ...], height: int, text: str) -> tuple[int, int]:
    number_column, number_row, letter, letter_row = groups
    if letter is not None and letter_row is not None:
        column, row = ord(letter) - ord("a") + 1, int(letter_row)
    else:
        column, row = int(number_column or 0), int(number_row or 0)
    if not (1 <= column <= SERVING_COLUMN and 1 <= row <= height):
        raise MalformedAction(f"no square {column},{row} on a 7x{height} side in {text!r}")
    return column, row


def string_to_action(text: object, height: int) -> Action:
    """The action a string names (see the module docstring); MalformedAction if none."""
    if not isinstance(text, str):
        raise MalformedAction(f"an action string is a str, got {text!r}")
    words = text.strip().lower().split(None, 1)
    if len(words) == 1 and words[0] in ("end", "roll"):
        return END if words[0] == "end" else ROLL
    if len(words) == 2 and words[0] in _PATTERNS:
        kind, rest = words
        match = _PATTERNS[kind].fullmatch(rest)
        if match:
            groups = match.groups()
            if kind == "dice":
                return dice_action(int(groups[0]), int(groups[1]))
            start = _square_from(groups[:4], height, text)
            if kind == "step":
                return step_action(start, _square_from(groups[4:], height, text))
            base = {"place": PLACE_BASE, "serve": SERVE_BASE, "land": LAND_BASE}[kind]
            return base + square(*start)
    raise MalformedAction(
        f"not an action: {text!r} (expected e.g. 'place 3,2', 'serve 6,2', "
        "'step 3,2->2,2', 'end', 'land 4,3', 'roll' or 'dice 4,5')"
    )
