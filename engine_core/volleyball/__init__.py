"""Volleyball Returns (2 players) with the Big Leagues and Underdog Boost variants."""

from engine_core.volleyball.actions import (
    DICE_BASE,
    END,
    NUM_DISTINCT_ACTIONS,
    ROLL,
    dice_action,
    land_action,
    place_action,
    serve_action,
    square,
    step_action,
)
from engine_core.volleyball.analysis import (
    all_formations,
    can_intercept,
    coverage,
    coverage_counts,
    intercept_plan,
)
from engine_core.volleyball.rules import VolleyballGame, VolleyballState

__all__ = [
    "DICE_BASE",
    "END",
    "NUM_DISTINCT_ACTIONS",
    "ROLL",
    "VolleyballGame",
    "VolleyballState",
    "all_formations",
    "can_intercept",
    "coverage",
    "coverage_counts",
    "dice_action",
    "intercept_plan",
    "land_action",
    "place_action",
    "serve_action",
    "square",
    "step_action",
]
