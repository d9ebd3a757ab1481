"""meeple's game engines behind one Game API (see DESIGN.md).

>>> import engine_core
>>> state = engine_core.load_game("rolit", players=4).new_initial_state()
>>> state.current_player()
0
"""

from engine_core.api import (
    CHANCE,
    TERMINAL,
    Game,
    IllegalAction,
    MalformedAction,
    State,
    load_game,
    register_game,
    registered_games,
)

# Importing a game package registers its games.
from engine_core import rolit  # noqa: E402  isort: skip
from engine_core import volta  # isort: skip

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Game",
    "IllegalAction",
    "MalformedAction",
    "State",
    "load_game",
    "register_game",
    "registered_games",
    "rolit",
    "volta",
]
