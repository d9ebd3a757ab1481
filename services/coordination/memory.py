"""Coordination in one process: for ``meeple up`` and tests, no Redis needed.

It keeps Redis's semantics where the services rely on them: records are
copied in and out (no shared objects), a match expires at its
``expires_ms`` like a key with a TTL, and a job that a worker neither
acknowledges nor releases comes back once its lease lapses (or, however
often it is extended, the visibility timeout after its delivery).
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import dataclasses
import heapq
import itertools
import time
from collections import deque
from collections.abc import Callable

from meeple.v1 import match_service_pb2 as ms

from services.coordination.base import (
    JOB_LEASE_SECONDS,
    BotJob,
    DeadLetter,
    Delivery,
    Event,
    EventBatch,
    MatchData,
)
from services.coordination.memory_matchmaking import MemoryMatchmaking
from services.coordination.memory_outbox import MemoryOutbox

KEEP_DEAD_LETTERS = 100


def wall_ms() -> int:
    return int(time.time() * 1000)


def is_stored(stored: MatchData | None, data: MatchData) -> bool:
    """Whether ``data`` is what is stored: the same write again (a retry)."""
    return stored is not None and dataclasses.replace(stored, rated=data.rated) == data


class MemoryCoordination(MemoryMatchmaking, MemoryOutbox):
    """The coordination interface on dicts, heaps and asyncio primitives,
    the matchmaking store (``MemoryMatchmaking``) and the archive's outbox
    (``MemoryOutbox``)."""

    def __init__(
        self,
        visibility_timeout: float = 60.0,
        clock_ms: Callable[[], int] = wall_ms,
        lease: float = JOB_LEASE_SECONDS,
    ) -> None:
        super().__init__()
        self._init_outbox()
        self.result_visibility_timeout = visibility_timeout
        self.visibility_timeout = visibility_timeout
        self.job_lease = min(lease, visibility_timeout)
        self._now_ms = clock_ms
        self._matches: dict[str, MatchData] = {}
        self._events: dict[str, list[Event]] = {}
        self._plies: dict[str, list[int]] = {}  # each event's ply, for bisecting
        self._changed: dict[str, asyncio.Condition] = {}
        # The playing matches, in the order they started (dicts keep it).
        self._playing: dict[str, None] = {}
        # Lazy heaps of (time, match id): an entry counts only while the
        # match still has that time.
        self._expiries: list[tuple[int, str]] = []
        self._deadlines: list[tuple[int, str]] = []
        # Jobs: ready to deliver (with the record of the change that queued
        # them, until their first delivery), delayed (retries) and delivered.
        self._ready: deque[tuple[BotJob, int, MatchData | None]] = deque()
        self._delayed: list[tuple[float, int, BotJob, int]] = []
        # Delivered: (job, deliveries, when its lease lapses, when it must
        # come back however often it is extended), by receipt.
        self._in_flight: dict[str, tuple[BotJob, int, float, float]] = {}
        self._dead: deque[DeadLetter] = deque(maxlen=KEEP_DEAD_LETTERS)
        self._job_ready = asyncio.Condition()
        self._sequence = itertools.count()

    async def start(self) -> None:
        pass

    async def close(self) -> None:
        pass

    # --- matches ---------------------------------------------------------------

    async def create(self, data: MatchData, events: list[Event], job: BotJob | None) -> None:
        self._purge()
        stored = self._matches.get(data.match_id)
        if is_stored(stored, data):
            return
        if stored is not None:
            raise ValueError(f"match {data.match_id} exists already")
        self._events[data.match_id] = []
        self._plies[data.match_id] = []
        await self._store(data, events, job, False)

    async def delete(self, match_id: str) -> None:
        self._drop(match_id)

    async def mark_rated(self, match_id: str) -> None:
        data = self._live(match_id)
        if data is not None:
            data.rated = True

    async def live_matches(self, start: int, count: int) -> tuple[list[MatchData], int]:
        newest_first = list(reversed(self._playing))[start : start + count]
        return [self._matches[match_id].copy() for match_id in newest_first], start + len(
            newest_first
        )

    async def load(self, match_id: str) -> MatchData | None:
        data = self._live(match_id)
        return data.copy() if data is not None else None

    async def compare_and_set(
        self,
        data: MatchData,
        expected_version: int,
        events: list[Event],
        job: BotJob | None,
        result: bool = False,
        settles: str | None = None,
    ) -> bool:
        stored = self._live(data.match_id)
        if is_stored(stored, data):
            return True
        if stored is None or stored.version != expected_version:
            return False
        rated = stored.rated  # a flag beside the record, as in Redis: a write keeps it
        finishing = data.status == ms.MATCH_STATUS_FINISHED != stored.status
        result = result or (rated and finishing)  # the caller's copy may predate the mark
        if settles is not None:
            self._in_flight.pop(settles, None)
        await self._store(data, events, job, result, rated, finishing)
        return True

    async def _store(
        self,
        data: MatchData,
        events: list[Event],
        job: BotJob | None,
        result: bool,
        rated: bool = False,
        finishing: bool = False,
    ) -> None:
        """Writes the record (keeping the ``rated`` flag), its events, its
        job and, for a ``finishing`` change, its outbox entry, with no await
        between them (one atomic step for every other task), then wakes the
        waiters."""
        match_id = data.match_id
        if data.status == ms.MATCH_STATUS_PLAYING:
            self._playing.setdefault(match_id, None)
        else:
            self._playing.pop(match_id, None)
        stored = data.copy()
        stored.rated |= rated
        self._matches[match_id] = stored
        if finishing:
            self._queue_outbox(match=stored)
        self._events[match_id].extend(events)
        self._plies[match_id].extend(event.ply for event in events)
        if data.expires_ms:
            heapq.heappush(self._expiries, (data.expires_ms, match_id))
        if data.deadline_ms:
            heapq.heappush(self._deadlines, (data.deadline_ms, match_id))
        if job is not None:
            self._ready.append((job, 0, data.copy()))
        if result:
            self._queue_result(match_id, data.version)
        if events:
            condition = self._changed.get(match_id)
            if condition is not None:
                async with condition:
                    condition.notify_all()
        if job is not None:
            async with self._job_ready:
                self._job_ready.notify()

    def _live(self, match_id: str) -> MatchData | None:
        data = self._matches.get(match_id)
        if data is not None and data.expires_ms and data.expires_ms <= self._now_ms():
            self._drop(match_id)
            return None
        return data

    def _drop(self, match_id: str) -> None:
        self._matches.pop(match_id, None)
        self._playing.pop(match_id, None)
        self._events.pop(match_id, None)
        self._plies.pop(match_id, None)
        self._changed.pop(match_id, None)

    def _purge(self) -> None:
        """Drops the matches whose expiry has passed."""
        now = self._now_ms()
        while self._expiries and self._expiries[0][0] <= now:
            expires, match_id = heapq.heappop(self._expiries)
            data = self._matches.get(match_id)
            if data is not None and data.expires_ms == expires:
                self._drop(match_id)

    async def match_count(self) -> int:
        self._purge()
        return len(self._matches)

    async def due_matches(self, now_ms: int, limit: int) -> list[str]:
        due: list[str] = []
        while self._deadlines and self._deadlines[0][0] <= now_ms and len(due) < limit:
            deadline, match_id = heapq.heappop(self._deadlines)
            data = self._live(match_id)
            if data is not None and data.deadline_ms == deadline and match_id not in due:
                due.append(match_id)
        return due

    # --- events ----------------------------------------------------------------

    async def read_events(self, match_id: str, from_ply: int) -> EventBatch:
        if self._live(match_id) is None:
            return EventBatch([], "0")
        start = bisect.bisect_left(self._plies[match_id], from_ply)
        return self._batch(match_id, start)

    def _batch(self, match_id: str, start: int) -> EventBatch:
        events = self._events.get(match_id, [])
        return EventBatch(events[start:], str(max(start, len(events))))

    async def wait_events(self, match_id: str, cursor: str, timeout: float) -> EventBatch:
        start = int(cursor)
        if self._live(match_id) is None:
            return EventBatch([], cursor)
        condition = self._changed.setdefault(match_id, asyncio.Condition())
        async with condition:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    condition.wait_for(lambda: len(self._events.get(match_id, ())) > start),
                    timeout,
                )
        return self._batch(match_id, start)

    # --- bot jobs ----------------------------------------------------------------

    async def pull_job(self, timeout: float) -> Delivery | None:
        deadline = time.monotonic() + timeout
        async with self._job_ready:
            while True:
                self._release_due()
                if self._ready:
                    job, deliveries, data = self._ready.popleft()
                    receipt = str(next(self._sequence))
                    now = time.monotonic()
                    lapses, held_until = now + self.job_lease, now + self.visibility_timeout
                    self._in_flight[receipt] = (job, deliveries + 1, lapses, held_until)
                    return Delivery(receipt, job, deliveries + 1, data)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._job_ready.wait(), min(remaining, 0.1))

    def _release_due(self) -> None:
        """Makes delayed jobs whose time has come, and delivered jobs whose
        lease lapsed, ready again."""
        now = time.monotonic()
        while self._delayed and self._delayed[0][0] <= now:
            _, _, job, deliveries = heapq.heappop(self._delayed)
            self._ready.append((job, deliveries, None))
        for receipt, (job, deliveries, lapses, _) in list(self._in_flight.items()):
            if lapses <= now:
                del self._in_flight[receipt]
                self._ready.append((job, deliveries, None))

    async def extend_job(self, receipt: str) -> bool:
        held = self._in_flight.get(receipt)
        now = time.monotonic()
        if held is None or now >= held[3]:
            return False
        job, deliveries, _, held_until = held
        self._in_flight[receipt] = (
            job,
            deliveries,
            min(now + self.job_lease, held_until),
            held_until,
        )
        return True

    async def ack_job(self, receipt: str) -> None:
        self._in_flight.pop(receipt, None)

    async def retry_job(self, receipt: str, delay: float) -> None:
        held = self._in_flight.pop(receipt, None)
        if held is not None:
            job, deliveries, _, _ = held
            entry = (time.monotonic() + delay, next(self._sequence), job, deliveries)
            heapq.heappush(self._delayed, entry)

    async def dead_letter(self, receipt: str, reason: str) -> None:
        held = self._in_flight.pop(receipt, None)
        if held is not None:
            self._dead.append(DeadLetter(held[0], reason))

    async def dead_letters(self) -> list[DeadLetter]:
        return list(self._dead)

    async def queue_depth(self) -> int:
        self._release_due()
        return len(self._ready) + len(self._delayed)
