"""The arena as text: ``.`` is the disk, ``A``/``B`` the steeds of seats 0/1,
``@`` a rider in its dent (``*`` one that is rocking). North is up."""

from __future__ import annotations

import math

from engine_core.volta._physics import FALLEN_STATE, ROLLING_STATE
from engine_core.volta._world import World

COLUMNS = 49  # two characters per row of height: terminal cells are tall
ROWS = 25
STEED_SYMBOLS = "AB"


def _inside_steed(world: World, steed: int, x: float, y: float) -> bool:
    sx, sy, angle = world.steed(steed)[:3]
    half = 0.5 * float(world.physics.steed_side)
    c, s = math.cos(angle), math.sin(angle)
    dx, dy = x - sx, y - sy
    return abs(c * dx + s * dy) <= half and abs(-s * dx + c * dy) <= half


def draw_arena(world: World) -> list[str]:
    radius = float(world.physics.arena_radius)
    cell_w = 2 * radius / COLUMNS
    cell_h = 2 * radius / ROWS
    rider_cells = {}
    for steed in range(2):
        state = world.rider(steed)[0]
        if world.on_arena(steed) and state != FALLEN_STATE:
            x, y = world.steed(steed)[:2]
            dx, dy = world.rider(steed)[1:3]
            col = int((x + dx + radius) / cell_w)
            row = int((radius - (y + dy)) / cell_h)
            rider_cells[(col, row)] = "*" if state == ROLLING_STATE else "@"
    lines = []
    for row in range(ROWS):
        y = radius - (row + 0.5) * cell_h
        cells = []
        for col in range(COLUMNS):
            x = -radius + (col + 0.5) * cell_w
            symbol = " "
            if x * x + y * y <= radius * radius:
                symbol = "."
            for steed in range(2):
                if world.on_arena(steed) and _inside_steed(world, steed, x, y):
                    symbol = rider_cells.get((col, row), STEED_SYMBOLS[steed])
            cells.append(symbol)
        lines.append("".join(cells).rstrip())
    return lines
