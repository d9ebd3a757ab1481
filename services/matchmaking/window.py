"""The rating window: how far apart two tickets' ratings may be and still
share a table. It starts narrow and widens with waiting, along one
documented curve (also in the proto): ``window(t) = min(25, 2 + t / 2)``
for ``t`` seconds of waiting, in openskill mu units (a new player is 25 with
sigma 8.3). Two tickets may share a table when their ratings differ by no
more than the narrower of their windows."""

from __future__ import annotations

START = 2.0
PER_SECOND = 0.5
WIDEST = 25.0
STEP = 1.0  # WatchTicket reports each whole step the window grows


def window(waited_seconds: float) -> float:
    return min(WIDEST, START + PER_SECOND * max(0.0, waited_seconds))


def step_of(value: float) -> int:
    """The whole step a window value stands at (for the widened events)."""
    return int((value - START) // STEP)
