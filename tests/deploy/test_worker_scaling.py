"""Why KEDA scales the workers on the job streams' lengths (XLEN), on a
real redis-server: a job stays in its shard's stream from the commit that
queues it until a worker settles it, so the lengths of the streams the
triggers name add up to every bot turn not yet played, waiting or in hand;
a retry waiting out its delay has left the stream (it is not a turn a
worker could take). The pending lists would count only the jobs in hand."""

from __future__ import annotations

import asyncio

from services.coordination.redis import RedisCoordination
from tests.deploy.manifests import base_files, of_kind
from tests.redis_servers import RedisServer
from tests.services.test_coordination import job, record


def scaled_streams() -> list[str]:
    triggers = of_kind(base_files(), "ScaledObject")["worker"]["spec"]["triggers"]
    return [trigger["metadata"]["stream"] for trigger in triggers]


def test_the_streams_lengths_count_every_unsettled_job(redis_server: RedisServer) -> None:
    redis_server.flush()
    streams = scaled_streams()

    async def scenario() -> None:
        store = RedisCoordination(redis_server.url)
        await store.start()
        try:

            async def length() -> int:
                return sum([int(await store.client.xlen(stream)) for stream in streams])

            for n in range(5):
                await store.create(record(f"m{n}"), [], job(f"m{n}"))
            assert await length() == 5
            assert await store.queue_depth() == 5

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
            assert await store.queue_depth() == 4  # the retry is still to play
        finally:
            await store.close()

    asyncio.run(scenario())
