"""Watchers of one match share their reads of its event stream: every
watcher waiting from the same cursor (they all are, once caught up) awaits
one read of the store instead of each making its own (on Redis: one XREAD
BLOCK per match and process, not one per watcher)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from services.coordination import Coordination, EventBatch


@dataclass
class Read:
    """A read of the store in flight, and how many wait on it."""

    task: asyncio.Task[EventBatch]
    waiting: int = 0


class SharedWaits:
    """``wait_events`` of a store, one read in flight per match and cursor."""

    def __init__(self, coordination: Coordination) -> None:
        self.coordination = coordination
        self._reads: dict[tuple[str, str], Read] = {}

    async def wait_events(self, match_id: str, cursor: str, timeout: float) -> EventBatch:
        """The store's ``wait_events``, joining a read from the same cursor
        already in flight (its timeout is the first caller's). A caller
        cancelled meanwhile leaves the read to the others; the last one
        cancels it."""
        key = (match_id, cursor)
        read = self._reads.get(key)
        if read is None or read.task.cancelled():  # (cancelled: its callback is yet to run)
            task = asyncio.ensure_future(self.coordination.wait_events(match_id, cursor, timeout))
            read = self._reads[key] = Read(task)
            task.add_done_callback(lambda done: self._forget(key, done))
        read.waiting += 1
        try:
            return await asyncio.shield(read.task)
        except asyncio.CancelledError:
            if read.waiting == 1:
                read.task.cancel()
            raise
        finally:
            read.waiting -= 1

    def _forget(self, key: tuple[str, str], task: asyncio.Task[EventBatch]) -> None:
        read = self._reads.get(key)
        if read is not None and read.task is task:
            del self._reads[key]
        if not task.cancelled():
            task.exception()  # retrieved: a failure nobody awaits any more is not logged as lost

    def __len__(self) -> int:
        """The reads in flight."""
        return len(self._reads)
