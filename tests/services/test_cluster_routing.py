"""On a Redis Cluster, stream reads are routed by the client alone: no
XREAD or XREADGROUP costs a COMMAND GETKEYS round trip (redis-py's way of
finding "movable" keys), and each still reaches the master of its key."""

from __future__ import annotations

import asyncio
from typing import Any

import redis

from services.coordination.redis import RedisCoordination
from tests.redis_servers import RedisCluster
from tests.services.test_coordination import job, record


def getkeys_calls(cluster: RedisCluster) -> int:
    """COMMAND GETKEYS calls so far, over every node."""
    total = 0
    for node in cluster.nodes:
        stats = redis.Redis(port=node.port).info("commandstats")
        total += int(stats.get("cmdstat_command|getkeys", {}).get("calls", 0))
    return total


def test_stream_reads_ask_no_node_for_their_keys(redis_cluster: RedisCluster) -> None:
    redis_cluster.flush()

    async def scenario() -> list[Any]:
        store = RedisCoordination(redis_cluster.url)
        await store.start()
        for n in range(20):
            await store.create(record(f"m{n}"), [], job(f"m{n}"))
        before = getkeys_calls(redis_cluster)
        pulled = [await store.pull_job(1.0) for _ in range(20)]
        batch = await store.wait_events("m3", "0-0", 0.05)
        after = getkeys_calls(redis_cluster)
        await store.close()
        assert after == before
        assert batch.events == []
        return pulled

    pulled = asyncio.run(scenario())
    assert sorted(d.job.match_id for d in pulled if d is not None) == sorted(
        f"m{n}" for n in range(20)
    )
