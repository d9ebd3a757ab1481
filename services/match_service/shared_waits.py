"""Watchers of one match share their reads of its event stream: every
watcher waiting from the same cursor (they all are, once caught up) awaits
one read of the store instead of each making its own (on Redis: one XREAD
BLOCK per match and process, not one per watcher)."""

from __future__ import annotations

import asyncio

from services.coordination import Coordination, EventBatch


class SharedWaits:
    """``wait_events`` of a store, one read in flight per match and cursor."""

    def __init__(self, coordination: Coordination) -> None:
        self.coordination = coordination
        self._reads: dict[tuple[str, str], asyncio.Future[EventBatch]] = {}

    async def wait_events(self, match_id: str, cursor: str, timeout: float) -> EventBatch:
        """The store's ``wait_events``, joining a read from the same cursor
        already in flight (its timeout is the first caller's). A caller
        cancelled meanwhile leaves the read to the others."""
        key = (match_id, cursor)
        read = self._reads.get(key)
        if read is None:
            read = asyncio.ensure_future(self.coordination.wait_events(match_id, cursor, timeout))
            self._reads[key] = read
            read.add_done_callback(lambda done: self._forget(key, done))
        return await asyncio.shield(read)

    def _forget(self, key: tuple[str, str], read: asyncio.Future[EventBatch]) -> None:
        if self._reads.get(key) is read:
            del self._reads[key]
        if not read.cancelled():
            read.exception()  # retrieved: a failure nobody awaits any more is not logged as lost

    def __len__(self) -> int:
        """The reads in flight."""
        return len(self._reads)
