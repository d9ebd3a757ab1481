"""Rolit on the flip core, as DESIGN.md reads the rulebook (see RULES.md here)."""

from __future__ import annotations

from typing import Any, ClassVar

from engine_core.api import ActionKind, GameType, register_game
from engine_core.rolit.board import FlipGame, square_at

RED, YELLOW, GREEN, BLUE = range(4)
COLOUR_NAMES = ("red", "yellow", "green", "blue")

# Seats map to colours in turn order; unused colours stay as neutral balls.
SEAT_COLOURS = {
    2: (RED, GREEN),
    3: (RED, YELLOW, GREEN),
    4: (RED, YELLOW, GREEN, BLUE),
}

D4, E4, E5, D5 = square_at(3, 3), square_at(4, 3), square_at(4, 4), square_at(3, 4)


def _int_option(name: str, value: Any, allowed: range | tuple[int, ...]) -> int:
    if type(value) is not int or value not in allowed:
        choices = ", ".join(str(v) for v in allowed)
        raise ValueError(f"rolit: {name} must be one of {choices}, got {value!r}")
    return value


class RolitGame(FlipGame):
    """``load_game("rolit", players=2|3|4, first_seat=0)``."""

    name = "rolit"
    game_type = GameType(
        name="rolit",
        min_players=2,
        max_players=4,
        chance=False,
        actions=ActionKind.DISCRETE,
        position_hash=True,
        turn_override=True,
        batch_playouts=True,
        rules_version=1,
    )
    colour_names = COLOUR_NAMES
    colour_symbols = "RYGB"
    othello = False
    # The four balls start in the centre whatever the number of players.
    start: ClassVar[dict[int, tuple[int, ...]]] = {
        RED: (D4,),
        YELLOW: (E4,),
        GREEN: (E5,),
        BLUE: (D5,),
    }

    def __init__(self, players: int = 4, first_seat: int = 0) -> None:
        self.players = _int_option("players", players, (2, 3, 4))
        self.first_seat = _int_option("first_seat", first_seat, range(players))
        self.seat_colours = SEAT_COLOURS[players]

    def options(self) -> dict[str, Any]:
        return {"players": self.players, "first_seat": self.first_seat}

    def max_game_length(self) -> int:
        """Every Rolit game is exactly 60 placements."""
        return 60


register_game("rolit", RolitGame)
