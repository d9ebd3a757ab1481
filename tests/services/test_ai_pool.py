"""The AI pool on its own, with real worker processes: bot seats go before
hints, even one already running, a cancelled call stops its search (and
one cancelled in the queue never reaches a worker), a decision past its
limit ends, a worker that dies is replaced, and a stopped pool refuses work
at once."""

from __future__ import annotations

import asyncio
import collections
import os
import signal
import time

import pytest

import engine_core
from services.ai_service.pool import AIPool, PoolStopped, Priority, QueueFull, WorkerDied
from services.ai_service.worker import RECORD
from services.convert import record_of
from services.errors import DeadlineExceeded, ResourceExhausted
from tests.services.ai_helpers import recorded, seeds_received

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


def test_bot_seats_go_before_every_hint() -> None:
    """A bot turn goes before the hints that wait and before the one that
    runs: it is stopped, and starts again first of the hints."""

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
    assert finished[:2] == ["bot", "busy"], finished


@pytest.mark.parametrize("workers", [1, 2])
def test_a_long_hint_does_not_delay_a_bot_turn(workers: int) -> None:
    """Every worker on a hint of a 3 s budget: a bot turn that comes is
    answered within a fraction of a second (it preempts the hint started
    last), and every hint is still answered, the preempted one restarted."""

    async def scenario() -> tuple[float, list[float], list[list[int]]]:
        pool = await started(workers)
        recordings = recorded(pool)
        began = time.perf_counter()

        async def hint(seed: int) -> float:
            await pool.think(OTHELLO, "mcts:time=3", seed, priority=Priority.HINT, timeout=30)
            return time.perf_counter() - began

        hints = [asyncio.create_task(hint(seed)) for seed in range(1, workers + 1)]
        await asyncio.sleep(0.5)  # every worker is on a hint
        asked = time.perf_counter()
        await pool.think(OTHELLO, "greedy", 99, priority=Priority.BOT_SEAT, timeout=30)
        bot_seconds = time.perf_counter() - asked
        hint_seconds = await asyncio.gather(*hints)
        await pool.stop()
        return bot_seconds, hint_seconds, [seeds_received(r) for r in recordings]

    bot_seconds, hint_seconds, received = run(scenario())  # type: ignore[misc]
    assert bot_seconds < 0.5, f"the bot turn waited {bot_seconds:.2f} s behind a hint"
    assert max(hint_seconds) > 3.3  # one restarted after the bot turn
    sent = collections.Counter(seed for seeds in received for seed in seeds)
    hints = [sent[seed] for seed in range(1, workers + 1)]
    assert sent[99] == 1, received
    assert sorted(hints) == [1] * (workers - 1) + [2], received  # one hint sent again


def test_a_hint_preempted_on_a_starting_worker_is_answered_after_the_bot_turn() -> None:
    """A worker still importing has no handler for the stop yet (SIGUSR1
    would kill it): it is not signalled, it skips the stopped job, and the
    hint is answered after the bot turn, by the same worker."""

    async def scenario() -> list[str]:
        pool = AIPool(1)
        await pool.start()  # no warm-up: the worker is still starting
        worker = pool._pool[0]
        finished: list[str] = []

        async def think(name: str, spec: str, priority: Priority) -> None:
            await pool.think(OTHELLO, spec, 0, priority=priority, timeout=60)
            finished.append(name)

        hint = asyncio.create_task(think("hint", "mcts:time=0.5", Priority.HINT))
        await asyncio.sleep(0.05)
        await think("bot", "greedy", Priority.BOT_SEAT)
        await hint
        assert pool._pool == [worker], "the worker died of the stop"
        await pool.stop()
        return finished

    assert run(scenario()) == ["bot", "hint"]


def test_a_call_abandoned_while_the_worker_starts_leaves_it_alive() -> None:
    """A hint whose caller gives up while the worker still imports: the
    worker lives on and answers the next call at once (it once died of the
    stop signal, and the next call waited for a new worker to start)."""

    async def scenario() -> float:
        pool = AIPool(1)
        await pool.start()
        worker = pool._pool[0]
        with pytest.raises(TimeoutError):  # the call is cancelled: its search is stopped
            await asyncio.wait_for(
                pool.think(OTHELLO, "mcts:time=10", 0, priority=Priority.HINT), timeout=0.1
            )
        await pool.think(OTHELLO, "greedy", 0, priority=Priority.HINT, timeout=60)  # imported
        began = time.perf_counter()
        await pool.think(OTHELLO, "greedy", 0, priority=Priority.HINT, timeout=60)
        elapsed = time.perf_counter() - began
        assert pool._pool == [worker], "the worker died of the stop"
        await pool.stop()
        return elapsed

    assert run(scenario()) < 0.5


def test_a_call_cancelled_in_the_queue_never_reaches_a_worker() -> None:
    """The worker is on a bot turn (which no call preempts); a hint and a
    bot turn cancelled while they wait are never sent to it, and a hint
    that waits behind them is."""

    async def scenario() -> list[int]:
        pool = await started()
        (recording,) = recorded(pool)
        busy = asyncio.create_task(
            pool.think(OTHELLO, "mcts:time=1", 1, priority=Priority.BOT_SEAT, timeout=30)
        )
        await asyncio.sleep(0.2)  # the worker is on it
        cancelled = [
            asyncio.create_task(pool.think(OTHELLO, "greedy", seed, priority=priority))
            for seed, priority in [(2, Priority.HINT), (3, Priority.BOT_SEAT)]
        ]
        after = asyncio.create_task(pool.think(OTHELLO, "greedy", 4, priority=Priority.HINT))
        await asyncio.sleep(0.1)
        assert pool.waiting(Priority.HINT) == 2
        for task in cancelled:
            task.cancel()
        await asyncio.gather(busy, after)
        for task in cancelled:
            with pytest.raises(asyncio.CancelledError):
                await task
        await pool.stop()
        return seeds_received(recording)

    assert run(scenario()) == [1, 4]


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
