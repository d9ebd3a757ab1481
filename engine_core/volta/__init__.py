"""Volta: a dexterity game on a Cython rigid-body core (see RULES.md).

>>> import engine_core
>>> state = engine_core.load_game("volta").new_initial_state()
>>> state.current_player()
0
"""

from engine_core.volta._world import World
from engine_core.volta.flick import ActionSpace, Flick, action_space
from engine_core.volta.params import DEFAULT_PHYSICS, LARGE, SMALL, Dent, Physics
from engine_core.volta.rules import VoltaGame, VoltaState
from engine_core.volta.trajectory import Event, FlickResult, Frame, Pose

__all__ = [
    "DEFAULT_PHYSICS",
    "LARGE",
    "SMALL",
    "ActionSpace",
    "Dent",
    "Event",
    "Flick",
    "FlickResult",
    "Frame",
    "Physics",
    "Pose",
    "VoltaGame",
    "VoltaState",
    "World",
    "action_space",
]
