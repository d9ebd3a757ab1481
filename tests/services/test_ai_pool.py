"""The AI pool on its own, with real worker processes: bot seats go before
hints, a cancelled call stops its search, a decision past its limit ends,
a worker that dies is replaced, and a stopped pool refuses work at once."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

import engine_core
from services.ai_service.pool import AIPool, PoolStopped, Priority, QueueFull, WorkerDied
from services.ai_service.worker import RECORD
from services.convert import record_of
from services.errors import DeadlineExceeded, ResourceExhausted

OTHELLO = (
    RECORD,
    record_of(engine_core.load_game("othello").new_initial_state()).SerializeToString(),
)


def run(coroutine: object) -> object:
    return asyncio.run(coroutine)  # type: ignore[arg-type]


async def started(workers: int = 1, **options: object) -> AIPool:
    pool = AIPool(workers, **options)  # type: ignore[arg-type]
    await pool.start()
    # The first decision waits for the spawned worker to import everything.
    await pool.think(OTHELLO, "random", 0, priority=Priority.HINT, timeout=60)
    return pool


def test_bot_seats_go_before_the_hints_that_wait() -> None:
    async def scenario() -> list[str]:
        pool = await started()
        finished: list[str] = []

        async def think(name: str, spec: str, priority: Priority) -> None:
            await pool.think(OTHELLO, spec, 0, priority=priority)
            finished.append(name)

        busy = asyncio.create_task(think("busy", "mcts:time=0.5", Priority.HINT))
        await asyncio.sleep(0.1)  # the worker is on it
        hints = [asyncio.create_task(think(f"hint{i}", "greedy", Priority.HINT)) for i in range(3)]
        await asyncio.sleep(0.05)
        bot = asyncio.create_task(think("bot", "greedy", Priority.BOT_SEAT))
        await asyncio.gather(busy, bot, *hints)
        await pool.stop()
        return finished

    finished = run(scenario())
    assert finished[:2] == ["busy", "bot"], finished


def test_a_cancelled_call_stops_its_search_at_once() -> None:
    async def scenario() -> float:
        pool = await started()
        long = asyncio.create_task(pool.think(OTHELLO, "mcts:time=10", 0, priority=Priority.HINT))
        await asyncio.sleep(0.3)
        long.cancel()
        began = time.perf_counter()
        await pool.think(OTHELLO, "greedy", 0, priority=Priority.HINT, timeout=10)
        elapsed = time.perf_counter() - began
        await pool.stop()
        return elapsed

    assert run(scenario()) < 1.0


def test_decisions_past_their_limits_end() -> None:
    async def scenario() -> tuple[Exception, Exception]:
        pool = await started(max_think_seconds=0.3)
        errors = []
        for timeout in (0.2, None):  # the call's deadline, then the server's limit
            try:
                await pool.think(OTHELLO, "mcts:time=5", 0, priority=Priority.HINT, timeout=timeout)
            except Exception as error:
                errors.append(error)
        await pool.stop()
        return errors[0], errors[1]

    by_deadline, by_limit = run(scenario())  # type: ignore[misc]
    assert isinstance(by_deadline, DeadlineExceeded)
    assert isinstance(by_limit, ResourceExhausted)
    assert "at most 0.3 s" in str(by_limit)


def test_the_hint_queue_is_bounded() -> None:
    async def scenario() -> None:
        pool = await started(queue_limit=1)
        busy = asyncio.create_task(pool.think(OTHELLO, "mcts:time=0.5", 0, priority=Priority.HINT))
        await asyncio.sleep(0.1)
        waiting = asyncio.create_task(pool.think(OTHELLO, "greedy", 0, priority=Priority.HINT))
        await asyncio.sleep(0.05)
        with pytest.raises(QueueFull):
            await pool.think(OTHELLO, "greedy", 0, priority=Priority.HINT)
        # Bot seats are never refused.
        await pool.think(OTHELLO, "greedy", 0, priority=Priority.BOT_SEAT)
        await asyncio.gather(busy, waiting)
        await pool.stop()

    run(scenario())


def test_a_worker_that_dies_is_replaced() -> None:
    async def scenario() -> None:
        pool = await started()
        long = asyncio.create_task(pool.think(OTHELLO, "mcts:time=10", 0, priority=Priority.HINT))
        await asyncio.sleep(0.3)
        os.kill(pool._pool[0].process.pid or 0, signal.SIGKILL)
        with pytest.raises(WorkerDied):
            await long
        answer = await pool.think(OTHELLO, "greedy", 0, priority=Priority.HINT, timeout=60)
        assert answer.action
        await pool.stop()

    run(scenario())


def test_a_stopped_pool_refuses_decisions_at_once() -> None:
    """A bot runner that asks after shutdown began must not wait forever."""

    async def scenario() -> None:
        pool = await started()
        waiting = asyncio.create_task(
            pool.think(OTHELLO, "mcts:time=10", 0, priority=Priority.HINT)
        )
        await asyncio.sleep(0.1)
        await pool.stop()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        with pytest.raises(PoolStopped, match="stopping"):
            await asyncio.wait_for(
                pool.think(OTHELLO, "greedy", 0, priority=Priority.BOT_SEAT), timeout=2
            )

    run(scenario())
