"""Rolit (2-4 players) and Othello on one Cython bitboard flip core."""

from engine_core.rolit._core import PASS, SQUARE_NAMES
from engine_core.rolit.board import FlipState, parse_square, square_at
from engine_core.rolit.othello import BLACK, WHITE, OthelloGame
from engine_core.rolit.rules import BLUE, COLOUR_NAMES, GREEN, RED, YELLOW, RolitGame

__all__ = [
    "BLACK",
    "BLUE",
    "COLOUR_NAMES",
    "GREEN",
    "PASS",
    "RED",
    "SQUARE_NAMES",
    "WHITE",
    "YELLOW",
    "FlipState",
    "OthelloGame",
    "RolitGame",
    "parse_square",
    "square_at",
]
