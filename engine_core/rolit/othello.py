"""Standard Othello on the same flip core as Rolit."""

from __future__ import annotations

from typing import Any, ClassVar

from engine_core.api import ActionKind, GameType, register_game
from engine_core.rolit.board import FlipGame
from engine_core.rolit.rules import D4, D5, E4, E5

BLACK, WHITE = 0, 1


class OthelloGame(FlipGame):
    """``load_game("othello")``: black (seat 0) moves first from the standard
    start; a player with no capture passes; the game ends when neither can
    move or the board is full."""

    name = "othello"
    game_type = GameType(
        name="othello",
        min_players=2,
        max_players=2,
        chance=False,
        actions=ActionKind.DISCRETE,
        position_hash=True,
        turn_override=True,
        batch_playouts=True,
        rules_version=1,
    )
    colour_names = ("black", "white")
    colour_symbols = "XO"
    othello = True
    start: ClassVar[dict[int, tuple[int, ...]]] = {BLACK: (E4, D5), WHITE: (D4, E5)}

    def __init__(self) -> None:
        self.seat_colours = (BLACK, WHITE)
        self.first_seat = 0

    def options(self) -> dict[str, Any]:
        return {}

    def max_game_length(self) -> int:
        """60 placements and at most as many passes."""
        return 120


register_game("othello", OthelloGame)
