"""What a bot is: anything that chooses an action for the seat to move."""

from __future__ import annotations

from typing import Any, Protocol

from engine_core import State

Action = Any


class Bot(Protocol):
    def choose(self, state: State) -> Action:
        """The action for ``state``'s seat to move (the state is not changed);
        a ValueError at a terminal state."""
        ...
