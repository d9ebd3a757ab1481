"""Coordination in one process: for ``meeple up`` and tests, no Redis needed."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import time
from collections import deque

from services.coordination.base import BotJob, MatchData


class MemoryCoordination:
    """The coordination interface on dicts, lists and asyncio primitives."""

    def __init__(self, visibility_timeout: float = 60.0) -> None:
        self._matches: dict[str, MatchData] = {}
        self._events: dict[str, list[bytes]] = {}
        self._changed = asyncio.Condition()
        self._jobs: deque[BotJob] = deque()
        self._in_flight: dict[str, tuple[BotJob, float]] = {}
        self._job_ready = asyncio.Condition()
        self._receipts = itertools.count()
        self.visibility_timeout = visibility_timeout

    async def create(self, data: MatchData, events: list[bytes]) -> None:
        async with self._changed:
            if data.match_id in self._matches:
                raise ValueError(f"match {data.match_id} exists already")
            self._matches[data.match_id] = copy.deepcopy(data)
            self._events[data.match_id] = list(events)
            self._changed.notify_all()

    async def load(self, match_id: str) -> MatchData | None:
        data = self._matches.get(match_id)
        return copy.deepcopy(data) if data is not None else None

    async def compare_and_set(
        self, data: MatchData, expected_version: int, events: list[bytes]
    ) -> bool:
        async with self._changed:
            stored = self._matches.get(data.match_id)
            if stored is None or stored.version != expected_version:
                return False
            self._matches[data.match_id] = copy.deepcopy(data)
            self._events[data.match_id].extend(events)
            self._changed.notify_all()
            return True

    async def read_events(self, match_id: str, start: int) -> list[bytes]:
        return self._events.get(match_id, [])[start:]

    async def wait_events(self, match_id: str, start: int, timeout: float) -> list[bytes]:
        async with self._changed:
            try:
                await asyncio.wait_for(
                    self._changed.wait_for(lambda: len(self._events.get(match_id, [])) > start),
                    timeout,
                )
            except TimeoutError:
                return []
        return await self.read_events(match_id, start)

    async def push_job(self, job: BotJob) -> None:
        async with self._job_ready:
            self._jobs.append(job)
            self._job_ready.notify()

    async def pull_job(self, timeout: float) -> tuple[str, BotJob] | None:
        deadline = time.monotonic() + timeout
        async with self._job_ready:
            while True:
                self._reclaim_expired()
                if self._jobs:
                    job = self._jobs.popleft()
                    receipt = str(next(self._receipts))
                    self._in_flight[receipt] = (job, time.monotonic() + self.visibility_timeout)
                    return receipt, job
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._job_ready.wait(), min(remaining, 1.0))

    def _reclaim_expired(self) -> None:
        now = time.monotonic()
        for receipt, (job, expires) in list(self._in_flight.items()):
            if expires <= now:
                del self._in_flight[receipt]
                self._jobs.append(job)

    async def ack_job(self, receipt: str) -> None:
        self._in_flight.pop(receipt, None)

    async def queue_depth(self) -> int:
        return len(self._jobs) + len(self._in_flight)
