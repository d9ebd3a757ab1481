"""meeple's game engines behind one Game API (see docs/architecture.md).

>>> import engine_core
>>> state = engine_core.load_game("rolit", players=4).new_initial_state()
>>> state.current_player()
0
"""

# Importing a game package registers its games.
from engine_core import rolit, volleyball, volta
from engine_core.api import (
    CHANCE,
    MAX_PLAYOUTS,
    TERMINAL,
    ActionKind,
    BatchPlayoutState,
    ContinuousState,
    Game,
    GameType,
    HashedState,
    IllegalAction,
    MalformedAction,
    State,
    TurnOverrideState,
    as_batch_playouts,
    as_continuous,
    as_hashed,
    as_turn_override,
    load_game,
    register_game,
    registered_games,
)

__all__ = [
    "CHANCE",
    "MAX_PLAYOUTS",
    "TERMINAL",
    "ActionKind",
    "BatchPlayoutState",
    "ContinuousState",
    "Game",
    "GameType",
    "HashedState",
    "IllegalAction",
    "MalformedAction",
    "State",
    "TurnOverrideState",
    "as_batch_playouts",
    "as_continuous",
    "as_hashed",
    "as_turn_override",
    "load_game",
    "register_game",
    "registered_games",
    "rolit",
    "volleyball",
    "volta",
]
