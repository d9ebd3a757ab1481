"""The Redis store when Redis comes back empty (a restart without
persistence; FLUSHALL here), called directly on a real redis-server and a
real Cluster: the readers of the job and results streams make their groups
again with one warning, jobs held across the loss settle without errors,
fencing tokens never go back, and a lost ticket's heartbeat says so."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from services.coordination.memory import MemoryCoordination
from services.coordination.redis import GROUP, RedisCoordination
from services.coordination.redis_ratings import RATERS, RESULTS
from services.coordination.shards import JOB_STREAMS
from tests.services.test_coordination import job, record
from tests.services.test_matchmaking_store import QUEUE, queue_tickets


@pytest.fixture(params=["redis", "redis-cluster"])
def servers(request: pytest.FixtureRequest) -> Any:
    fixture = "redis_server" if request.param == "redis" else "redis_cluster"
    found = request.getfixturevalue(fixture)
    found.flush()
    return found


async def started(servers: Any, **options: Any) -> RedisCoordination:
    store = RedisCoordination(servers.url, **options)
    await store.start()
    return store


def warnings(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "meeple.coordination"]


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def test_pullers_make_the_job_group_again_with_one_warning(
    servers: Any, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> None:
        store = await started(servers)
        await store.create(record("before"), [], job("before"))
        servers.flush()
        await store.create(record("after"), [], job("after"))  # its stream, with no group
        # Many runners of one process meet the missing group at once.
        pulled = await asyncio.gather(*(store.pull_job(timeout=1.0) for _ in range(6)))
        deliveries = [d for d in pulled if d is not None]
        assert [d.job.match_id for d in deliveries] == ["after"]
        await store.ack_job(deliveries[0].receipt)
        assert await store.queue_depth() == 0
        await store.close()

    with caplog.at_level(logging.WARNING, logger="meeple.coordination"):
        run(scenario())
    [warning] = warnings(caplog)
    assert warning.levelno == logging.WARNING
    assert "recreated the consumer group" in warning.getMessage()
    assert warning.fields == {  # type: ignore[attr-defined]
        "streams": list(JOB_STREAMS),
        "group": GROUP,
        "answer": warning.fields["answer"],  # type: ignore[attr-defined]
    }
    assert not any(r.exc_info for r in caplog.records)


def test_a_job_held_across_the_loss_settles_and_the_depth_reads(
    servers: Any, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> None:
        store = await started(servers)
        for name in ("retried", "dead", "acked"):
            await store.create(record(name), [], job(name))
        held = [await store.pull_job(timeout=1.0) for _ in range(3)]
        assert all(held)
        servers.flush()
        assert await store.queue_depth() == 0  # makes the group again
        receipts = [d.receipt for d in held if d is not None]
        await store.retry_job(receipts[0], 0.0)
        await store.dead_letter(receipts[1], "gave up")
        await store.ack_job(receipts[2])
        assert await store.pull_job(timeout=0.3) is None  # the jobs went with the data
        await store.close()

    with caplog.at_level(logging.WARNING, logger="meeple.coordination"):
        run(scenario())
    assert len(warnings(caplog)) == 1


def test_the_rater_makes_its_group_again(servers: Any, caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        store = await started(servers)
        servers.flush()
        assert await store.pull_result(timeout=0.3) is None
        await store.client.xadd(RESULTS, {"m": "m1", "v": 3})
        result = await store.pull_result(timeout=1.0)
        assert result is not None
        assert result.match_id == "m1"
        await store.ack_result(result.receipt)
        await store.close()

    with caplog.at_level(logging.WARNING, logger="meeple.coordination"):
        run(scenario())
    [warning] = warnings(caplog)
    assert warning.fields["group"] == RATERS  # type: ignore[attr-defined]


def test_fencing_tokens_never_go_back_when_the_counter_is_lost(servers: Any) -> None:
    """A pass took its lease before the loss and stalled; the lease after
    the loss has a larger token, so the stale pass claims, releases and
    assigns nothing of the new holder's."""

    async def scenario() -> None:
        store = await started(servers)
        await queue_tickets(store, "ab")
        tokens = []
        for holder in ("one", "two", "three"):  # a few holders: the counter climbs
            token = await store.acquire_lease(QUEUE, holder, 0.05)
            assert token is not None
            tokens.append(token)
            await asyncio.sleep(0.1)
        assert tokens == sorted(set(tokens))
        stale = tokens[-1]
        servers.flush()
        ids = await queue_tickets(store, "cd")
        fence = await store.acquire_lease(QUEUE, "after", 1.0)
        assert fence is not None
        assert fence > stale
        assert await store.acquire_lease(QUEUE, "after", 1.0) == fence  # renewed: the same
        assert not (await store.claim(QUEUE, stale, ids)).ok
        assert (await store.claim(QUEUE, fence, ids)).ok
        await store.release(QUEUE, stale, ids)  # not its claims: they stay
        assert all(t.claim == fence for t in await store.queued(QUEUE))
        assert not await store.assign(QUEUE, stale, dict.fromkeys(ids, b"stale"))
        assert await store.assign(QUEUE, fence, dict.fromkeys(ids, b"m"))
        # The counter goes on from there, one up per new holder.
        await asyncio.sleep(1.1)
        assert await store.acquire_lease(QUEUE, "next", 1.0) == fence + 1
        await store.close()

    run(scenario())


def test_a_lost_tickets_heartbeat_says_it_is_gone(servers: Any) -> None:
    async def scenario() -> None:
        for store in (await started(servers), MemoryCoordination()):
            [ticket_id] = await queue_tickets(store, "a")
            assert await store.heartbeat(ticket_id, 1)
            if isinstance(store, RedisCoordination):
                servers.flush()
                assert not await store.heartbeat(ticket_id, 2)
                await store.close()
            assert not await store.heartbeat(f"{QUEUE}.nobody", 3)

    run(scenario())
