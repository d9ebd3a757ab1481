"""A pool of AI worker processes shared by hints (AIService) and bot seats.

- Bot seats go first: two queues, and a worker takes a bot turn whenever
  one waits. A bot turn that finds every worker busy and some on hints
  preempts one hint (the one started last: the least work lost): its search
  stops as a cancelled call's does, and it goes back to the head of the
  hint queue, to start again within its own deadline. So a hint, however
  long its budget, delays a bot turn only by the time a search takes to
  stop (milliseconds), with any number of workers, one included.

  Why preemption and not a worker kept free for bot seats: a reserved
  worker idles whenever no bot plays (with two workers that is half the
  hint capacity), and with one worker there is none to reserve. The cost
  falls on hints, and only while bot turns arrive: a preempted hint loses
  its search so far, and under a steady stream of bot turns a hint may
  restart until its deadline passes (DEADLINE_EXCEEDED, as for a hint that
  waits in the queue behind bot turns). A search stuck in code that never
  returns to the interpreter cannot be stopped by a signal; it holds its
  worker until its time limit and the grace period pass, then is killed.
- Hints wait in a bounded queue; beyond it a call is RESOURCE_EXHAUSTED at
  once.
- Work stops when nobody waits for it: a cancelled call (the client went
  away, or its deadline passed) stops its search in the worker at once.
- Every decision has a time limit (the caller's deadline, and the server's
  ``max_think_seconds``); a worker that does not stop within a grace period
  after it is killed and replaced, and so is a worker that dies.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import itertools
import logging
import multiprocessing
import os
import signal
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection
from multiprocessing.context import SpawnContext, SpawnProcess
from typing import Any

from services.ai_service import worker as worker_main
from services.errors import DeadlineExceeded, ResourceExhausted, Unavailable, error_for
from services.metrics import AI_JOB_AGE_SECONDS

log = logging.getLogger("meeple.ai")

KILL_GRACE_SECONDS = 5.0  # after its time limit, a worker that has not answered is killed
YOUNG_SECONDS = 5.0  # a worker that dies younger than this is restarted after a pause
MAX_RESPAWN_DELAY = 10.0


class Priority(enum.IntEnum):
    """Which queue a decision waits in; lower goes first."""

    BOT_SEAT = 0
    HINT = 1


@dataclass(frozen=True)
class Thought:
    """A decision: the action (serialized ActionInfo) and the seconds spent."""

    action: bytes
    seconds: float


class QueueFull(ResourceExhausted):
    """Too many hints wait for a worker."""


class PoolStopped(Unavailable):
    """The pool was stopped: this process is shutting down."""


class WorkerDied(RuntimeError):
    """The worker process ended while it held the job (a crash or a kill)."""


@dataclass(eq=False)
class _Job:
    id: int
    args: tuple[str, bytes, str, int]  # position kind and payload, spec, seed
    priority: Priority
    deadline: float | None  # loop time, the caller's deadline
    queued_at: float
    future: asyncio.Future[Thought]
    limit: float = 0.0  # the seconds it was given, once dispatched
    watchdog: asyncio.TimerHandle | None = None
    dispatched_at: float = 0.0  # loop time it last went to a worker
    preempting: bool = False  # a hint being stopped for a bot turn
    preemptions: int = 0  # how often it went back to the queue for one


@dataclass(eq=False)
class _Worker:
    process: SpawnProcess
    connection: Connection
    cancel: Any  # a shared c_longlong: the job id to stop
    started: float  # loop time
    job: _Job | None = None
    retired: bool = False
    ready: bool = False  # it said READY: it has a handler for SIGUSR1


@contextlib.contextmanager
def _sigint_ignored_by_children() -> Iterator[None]:
    """A worker started inside ignores SIGINT from its first instruction on:
    Ctrl-C reaches the terminal's whole process group, and the parent, not
    the signal, stops its workers (one killed by it while it starts would
    be restarted during the shutdown, with a traceback). The worker's main
    ignores it too, but only once its imports are done; an ignored signal
    is inherited across the spawn's exec, a handler is not.

    The parent's handler is back as soon as the child exists; a SIGINT
    meanwhile is lost unless the parent blocks it in every thread, as the
    ``meeple`` server commands do (services.stop_signals.StopSignals): a blocked
    signal stays pending even while it is ignored. multiprocessing's
    resource tracker unblocks SIGINT and SIGTERM in the thread that starts
    it (the first spawn does): it is started first, and the thread's mask
    put back. Only the main thread may change handlers: elsewhere (a server
    in a test's thread) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, ())
    resource_tracker.ensure_running()
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_DFL if previous is None else previous)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


@dataclass
class AIPool:
    """``await pool.start()``, then ``await pool.think(...)``; ``await pool.stop()``."""

    workers: int
    queue_limit: int = 64
    max_think_seconds: float = 30.0
    _context: SpawnContext = field(default_factory=lambda: multiprocessing.get_context("spawn"))
    _queues: dict[Priority, deque[_Job]] = field(
        default_factory=lambda: {priority: deque() for priority in Priority}
    )
    _pool: list[_Worker] = field(default_factory=list)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _early_deaths: int = 0
    _stopped: bool = False

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"an AI pool needs at least one worker, got {self.workers}")

    async def start(self) -> None:
        self._pool = [self._spawn() for _ in range(self.workers)]

    async def stop(self) -> None:
        self._stopped = True  # a call that comes later fails at once, never waits
        for job in (job for queue in self._queues.values() for job in queue):
            job.future.cancel()
        for queue in self._queues.values():
            queue.clear()
        pool, self._pool = self._pool, []
        for worker in pool:
            self._retire(worker)
            if worker.job is not None:
                worker.job.future.cancel()
            with contextlib.suppress(OSError):
                worker.connection.send(None)
        for worker in pool:
            await asyncio.to_thread(worker.process.join, 2.0)
            if worker.process.is_alive():
                worker.process.kill()
                await asyncio.to_thread(worker.process.join, 2.0)
            worker.connection.close()

    def waiting(self, priority: Priority) -> int:
        """Decisions waiting for a worker in ``priority``'s queue."""
        return sum(not job.future.done() for job in self._queues[priority])

    async def think(
        self,
        position: tuple[str, bytes],
        spec: str,
        seed: int,
        *,
        priority: Priority,
        timeout: float | None = None,
        waited: float = 0.0,
    ) -> Thought:
        """The bot's decision on ``position`` (see ``worker.position``).
        Hints beyond the queue's limit are ResourceExhausted at once; a
        decision past ``timeout`` or the server's limit is DeadlineExceeded
        or ResourceExhausted; cancelling the call stops the search.
        ``waited`` is how long the decision waited before this call (a bot
        turn in the job queue), for the job-age metric."""
        loop = asyncio.get_running_loop()
        if self._stopped:
            raise PoolStopped("the AI pool is stopping")
        if priority is Priority.HINT and self.waiting(Priority.HINT) >= self.queue_limit:
            raise QueueFull(f"the AI queue is full ({self.queue_limit} calls wait): retry later")
        now = loop.time()
        job = _Job(
            id=next(self._ids),
            args=(*position, spec, seed),
            priority=priority,
            deadline=None if timeout is None else now + timeout,
            queued_at=now - waited,
            future=loop.create_future(),
        )
        self._queues[priority].append(job)
        self._dispatch()
        try:
            return await job.future
        except asyncio.CancelledError:
            self._stop_job(job)
            raise

    # --- dispatching -----------------------------------------------------------

    def _dispatch(self) -> None:
        loop = asyncio.get_running_loop()
        for worker in self._pool:
            while worker.job is None and not worker.retired:
                job = self._next_job()
                if job is None:
                    return
                now = loop.time()
                job.limit = self.max_think_seconds
                if job.deadline is not None:
                    job.limit = min(job.limit, job.deadline - now)
                if job.limit <= 0:
                    job.future.set_exception(DeadlineExceeded("the deadline passed in the queue"))
                    continue
                if not job.preemptions:  # a decision's wait, counted once
                    age = now - job.queued_at
                    AI_JOB_AGE_SECONDS.labels(job.priority.name.lower()).observe(age)
                worker.job = job
                job.dispatched_at = now
                job.watchdog = loop.call_later(
                    job.limit + KILL_GRACE_SECONDS, self._kill_if_stuck, worker, job
                )
                worker.connection.send((job.id, *job.args, job.limit))
        self._preempt_hints()

    def _preempt_hints(self) -> None:
        """Bot turns wait with every worker busy: stop one hint for each
        that no hint being stopped already serves, the last started first.
        A stopped hint goes back to the queue when its worker answers
        (``_on_answer``), and that worker then takes the bot turn."""
        running = [w.job for w in self._pool if w.job is not None and not w.retired]
        short = self.waiting(Priority.BOT_SEAT) - sum(job.preempting for job in running)
        hints = [
            job
            for job in running
            if job.priority is Priority.HINT and not job.preempting and not job.future.done()
        ]
        hints.sort(key=lambda job: job.dispatched_at, reverse=True)
        for job in hints[: max(0, short)]:
            job.preempting = True
            self._stop_job(job)

    def _requeue(self, job: _Job) -> None:
        """A preempted hint goes back to the head of its queue, under a new
        id: a stop signal that comes late for the old id never stops it."""
        job.id = next(self._ids)
        job.preempting = False
        job.preemptions += 1
        self._queues[Priority.HINT].appendleft(job)

    def _next_job(self) -> _Job | None:
        for priority in Priority:
            queue = self._queues[priority]
            while queue:
                job = queue.popleft()
                if not job.future.done():  # a cancelled call's job is dropped
                    return job
        return None

    def _stop_job(self, job: _Job) -> None:
        """Stops ``job``'s search if a worker is on it (a queued job is
        dropped when its turn comes). A worker not yet ready is not
        signalled (the signal would kill it): it skips the job when it gets
        to it, or is signalled once it says it is ready."""
        for worker in self._pool:
            if worker.job is job:
                worker.cancel.value = job.id
                if worker.ready:
                    self._signal_stop(worker)

    def _signal_stop(self, worker: _Worker) -> None:
        # If it died meanwhile, _on_answer replaces it.
        with contextlib.suppress(ProcessLookupError):
            os.kill(worker.process.pid or 0, signal.SIGUSR1)

    def _on_answer(self, worker: _Worker) -> None:
        try:
            job_id, outcome, value = worker.connection.recv()
        except (EOFError, OSError):
            self._replace(worker)
            return
        if outcome == worker_main.READY:
            worker.ready = True
            if worker.job is not None and worker.cancel.value == worker.job.id:
                self._signal_stop(worker)  # asked for while it started: it may have begun
            return
        job, worker.job = worker.job, None
        if job is not None and job.id == job_id:
            if job.watchdog is not None:
                job.watchdog.cancel()
            if job.future.done():
                pass
            elif job.preempting and outcome == worker_main.CANCELLED:
                self._requeue(job)
            else:
                self._settle(job, outcome, value)
        self._dispatch()

    def _settle(self, job: _Job, outcome: str, value: Any) -> None:
        if outcome == worker_main.OK:
            job.future.set_result(Thought(*value))
        elif outcome == worker_main.CANCELLED:
            job.future.cancel()
        elif outcome == worker_main.OUT_OF_TIME:
            job.future.set_exception(self._out_of_time(job))
        elif outcome == worker_main.INTERNAL:
            job.future.set_exception(RuntimeError(f"the AI worker failed: {value}"))
        else:
            job.future.set_exception(error_for(outcome, value))

    def _out_of_time(self, job: _Job) -> Exception:
        if job.limit < self.max_think_seconds:
            return DeadlineExceeded(
                f"the decision ran past the call's deadline ({job.limit:.3g} s)"
            )
        return ResourceExhausted(
            f"a decision may take at most {self.max_think_seconds:g} s on this server: "
            "ask for a smaller budget"
        )

    # --- the processes -------------------------------------------------------------

    def _spawn(self) -> _Worker:
        ours, theirs = self._context.Pipe(duplex=True)
        cancel = self._context.Value("q", 0, lock=False)
        process = self._context.Process(
            target=worker_main.main, args=(theirs, cancel), name="meeple-ai", daemon=True
        )
        with _sigint_ignored_by_children():
            process.start()
        theirs.close()
        loop = asyncio.get_running_loop()
        worker = _Worker(process, ours, cancel, loop.time())
        loop.add_reader(ours.fileno(), self._on_answer, worker)
        return worker

    def _retire(self, worker: _Worker) -> None:
        if not worker.retired:
            worker.retired = True
            asyncio.get_running_loop().remove_reader(worker.connection.fileno())

    def _replace(self, worker: _Worker) -> None:
        """A worker ended: fail its job, start another in its place."""
        self._retire(worker)
        worker.process.kill()
        worker.connection.close()
        job, worker.job = worker.job, None
        if job is not None:
            if job.watchdog is not None:
                job.watchdog.cancel()
            if job.future.done():
                pass
            elif job.preempting:
                # Being stopped for a bot turn, it died (of anything): the
                # hint is not to blame, and goes back to the queue all the same.
                self._requeue(job)
            else:
                job.future.set_exception(WorkerDied("the AI worker died during the decision"))
        # A worker that dies young (it cannot even start) is replaced after a
        # growing pause, not in a tight loop.
        loop = asyncio.get_running_loop()
        young = loop.time() - worker.started < YOUNG_SECONDS
        self._early_deaths = self._early_deaths + 1 if young else 0
        delay = min(MAX_RESPAWN_DELAY, 0.1 * 2**self._early_deaths) if young else 0.0
        log.warning("AI worker %s ended; another starts in %.1f s", worker.process.pid, delay)
        loop.call_later(delay, self._respawn, worker)

    def _respawn(self, worker: _Worker) -> None:
        if worker in self._pool:  # not stopped meanwhile
            self._pool[self._pool.index(worker)] = self._spawn()
            self._dispatch()

    def _kill_if_stuck(self, worker: _Worker, job: _Job) -> None:
        """The worker did not answer within its job's limit and the grace
        period: kill it (its reader then sees the pipe close)."""
        if worker.job is job and not worker.retired:
            log.warning("AI worker %s ignored its time limit; killing it", worker.process.pid)
            if not job.future.done():
                job.future.set_exception(self._out_of_time(job))
            worker.process.kill()
