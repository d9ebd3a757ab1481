"""WatchTicket's waits on Redis, many to one read: the watchers of one
process on one queue share blocking reads of their tickets' change streams.

Every ticket of a queue shares the queue's hash tag, so one ``XREAD BLOCK``
can wait on all of a queue's watched tickets at once (on a Cluster too).
A wait joins the queue's next read, which starts ``BATCH_SECONDS`` after
the first wait that has none (so the watches that open meanwhile share
it); each stream is read from the oldest version its waiters know. When a
read returns, the waits whose ticket changed are answered, and the others
join the next read: a wait never waits on a read that started before it
(which could not see its ticket), and a change made before its read starts
is returned by that read at once.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

# A change is (its version, the stream entry's fields).
Change = tuple[int, dict[bytes, bytes]]

BATCH_SECONDS = 0.01  # how long a read waits for more waits to join it
MIN_BLOCK_MS = 1


@dataclass
class _Wait:
    version: int
    deadline: float  # loop time
    answer: asyncio.Future[Change]


@dataclass
class _Queue:
    """A queue's waits not yet in a read, its next read, the reads in flight."""

    pending: dict[str, list[_Wait]] = field(default_factory=dict)  # stream key -> waits
    next_read: asyncio.TimerHandle | None = None
    reads: dict[asyncio.Task[None], list[_Wait]] = field(default_factory=dict)


class TicketWaits:
    """Waits on change streams (``wait``), batched per queue (see the module)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self._queues: dict[str, _Queue] = {}

    async def wait(self, queue: str, stream: str, version: int, timeout: float) -> Change | None:
        """The last change of ``stream`` past ``version`` (``<version>-1``
        is the id of the change that made it), or None after ``timeout``
        seconds without one. Errors of the read are raised to its waits."""
        loop = asyncio.get_running_loop()
        wait = _Wait(version, loop.time() + timeout, loop.create_future())
        state = self._queues.setdefault(queue, _Queue())
        state.pending.setdefault(stream, []).append(wait)
        self._schedule(queue, state)
        try:
            return await asyncio.wait_for(wait.answer, timeout)  # cancels it on a timeout
        except TimeoutError:
            return None
        except asyncio.CancelledError:
            self._drop_unwaited_reads(state)
            raise

    def _schedule(self, queue: str, state: _Queue) -> None:
        if state.next_read is None and state.pending:
            loop = asyncio.get_running_loop()
            state.next_read = loop.call_later(BATCH_SECONDS, self._start_read, queue, state)

    def _start_read(self, queue: str, state: _Queue) -> None:
        state.next_read = None
        batch = {
            stream: live
            for stream, waits in state.pending.items()
            if (live := [w for w in waits if not w.answer.done()])
        }
        state.pending = {}
        if batch:
            task = asyncio.get_running_loop().create_task(self._read(queue, state, batch))
            state.reads[task] = [w for waits in batch.values() for w in waits]
            task.add_done_callback(lambda done: self._read_done(queue, state, done))
        self._forget_if_idle(queue, state)

    def _read_done(self, queue: str, state: _Queue, task: asyncio.Task[None]) -> None:
        state.reads.pop(task, None)
        self._forget_if_idle(queue, state)

    def _forget_if_idle(self, queue: str, state: _Queue) -> None:
        idle = not state.pending and not state.reads and state.next_read is None
        if idle and self._queues.get(queue) is state:
            del self._queues[queue]

    async def _read(self, queue: str, state: _Queue, batch: dict[str, list[_Wait]]) -> None:
        loop = asyncio.get_running_loop()
        streams = {s: f"{min(w.version for w in waits)}-1" for s, waits in batch.items()}
        last = max(w.deadline for waits in batch.values() for w in waits)
        block = max(MIN_BLOCK_MS, round((last - loop.time()) * 1000))
        try:
            answer = await self.client.xread(streams, block=block)
        except Exception as error:
            for waits in batch.values():
                for wait in waits:
                    if not wait.answer.done():
                        wait.answer.set_exception(error)
            return
        changed: dict[str, Change] = {}
        for raw_stream, entries in answer or ():
            entry_id, fields = entries[-1]
            stream = raw_stream.decode() if isinstance(raw_stream, bytes) else raw_stream
            changed[stream] = (int(entry_id.split(b"-")[0]), fields)
        for stream, waits in batch.items():
            change = changed.get(stream)
            for wait in waits:
                if wait.answer.done():
                    continue
                if change is not None and change[0] > wait.version:
                    wait.answer.set_result(change)
                elif wait.deadline > loop.time():
                    state.pending.setdefault(stream, []).append(wait)
        self._schedule(queue, state)

    def _drop_unwaited_reads(self, state: _Queue) -> None:
        """Cancels the reads in flight that no wait waits on any more (their
        watchers went away: a shutdown), so none outlives its watchers."""
        for task, waits in list(state.reads.items()):
            if all(w.answer.done() for w in waits):
                task.cancel()
