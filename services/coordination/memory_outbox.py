"""The archive's outbox in one process (see ``coordination.outbox``): the
entries in the order they were written, each held by its taker until it
is acknowledged or the visibility timeout passes."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

from services.coordination.base import MatchData
from services.coordination.outbox import OutboxEntry, RatingUpdate


class MemoryOutbox:
    """Mixed into MemoryCoordination, which sets the clock and the
    visibility timeout."""

    visibility_timeout: float
    _now_ms: Callable[[], int]

    def _init_outbox(self) -> None:
        # Receipt -> (the entry, when its taker's hold ends; 0: not taken).
        self._outbox: dict[str, tuple[OutboxEntry, float]] = {}
        self._outbox_ids = itertools.count(1)
        self._outbox_until = 0.0  # monotonic; entries are written until then

    async def enable_outbox(self, seconds: float) -> None:
        self._outbox_until = time.monotonic() + seconds

    def _queue_outbox(
        self, match: MatchData | None = None, ratings: RatingUpdate | None = None
    ) -> None:
        if time.monotonic() < self._outbox_until:
            receipt = str(next(self._outbox_ids))
            entry = OutboxEntry(receipt, self._now_ms(), match.copy() if match else None, ratings)
            self._outbox[receipt] = (entry, 0.0)

    async def pull_outbox(self, limit: int) -> list[OutboxEntry]:
        now = time.monotonic()
        taken: list[OutboxEntry] = []
        for entry, held_until in self._outbox.values():
            if len(taken) == limit:
                break
            if held_until <= now:
                taken.append(entry)
        for entry in taken:
            self._outbox[entry.receipt] = (entry, now + self.visibility_timeout)
        return [
            OutboxEntry(e.receipt, e.queued_ms, e.match.copy() if e.match else None, e.ratings)
            for e in taken
        ]

    async def ack_outbox(self, receipts: list[str]) -> None:
        for receipt in receipts:
            self._outbox.pop(receipt, None)

    async def outbox_size(self) -> int:
        return len(self._outbox)
