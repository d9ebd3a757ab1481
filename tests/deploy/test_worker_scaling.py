"""Why KEDA scales the workers on the job stream's length (XLEN), on a real
redis-server: a job stays in the stream from the write that queues it until
a worker settles it, so the length counts every bot turn not yet played,
waiting or in hand. The consumer group's lag would count only those waiting,
but Redis stops reporting it for good once a job whose change lost its race
is deleted unread, which happens in normal play; the pending list counts
only the jobs in hand (at most four per AI process)."""

from __future__ import annotations

import asyncio
import dataclasses

from services.coordination import BotJob, MatchData
from services.coordination.redis import GROUP, RedisCoordination
from tests.deploy.manifests import base_files, of_kind
from tests.redis_servers import RedisServer
from tests.services.test_coordination import job, record


def scaled_stream() -> str:
    (trigger,) = of_kind(base_files(), "ScaledObject")["worker"]["spec"]["triggers"]
    stream: str = trigger["metadata"]["stream"]
    return stream


def test_the_stream_length_counts_every_unsettled_job(redis_server: RedisServer) -> None:
    redis_server.flush()
    stream = scaled_stream()

    async def scenario() -> None:
        store = RedisCoordination(redis_server.url)
        await store.start()
        try:

            async def length() -> int:
                return int(await store.client.xlen(stream))

            async def lag() -> int | None:
                (group,) = await store.client.xinfo_groups(stream)
                assert group["name"].decode() == GROUP
                value: int | None = group["lag"]
                return value

            for n in range(5):
                await store.create(record(f"m{n}"), [], job(f"m{n}"))
            assert await length() == 5
            assert await lag() == 5

            # A change that loses its race: its job was queued ahead of it,
            # and is deleted before any worker reads it.
            stale: MatchData = dataclasses.replace(record("m0"), version=1)
            late: BotJob = dataclasses.replace(job("m0", ply=1), version=1)
            assert not await store.compare_and_set(stale, 7, [], late)
            assert await length() == 5
            assert await lag() is None  # Redis cannot say any more

            first = await store.pull_job(1.0)
            second = await store.pull_job(1.0)
            assert first is not None
            assert second is not None
            assert await length() == 5  # three waiting, two in hand
            assert await store.queue_depth() == 3
            await store.ack_job(first.receipt)
            assert await length() == 4
            await store.retry_job(second.receipt, delay=60)  # back off: out of the stream
            assert await length() == 3
            assert await lag() is None  # still
        finally:
            await store.close()

    asyncio.run(scenario())
