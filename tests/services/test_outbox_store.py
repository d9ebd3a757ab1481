"""The archive outbox's contract (``coordination.outbox``), on the memory
store, one redis-server and a Redis Cluster: the step that finishes a
match, or applies a rated match's ratings, writes its entry in the same
step, once; entries are held by their taker until acknowledged and come
back after the visibility timeout; entries are written, by every process
of the store, only while an archiver keeps the outbox enabled."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from meeple.v1 import match_service_pb2 as ms

from services.coordination import MemoryCoordination, Store
from services.coordination.matchmaking import Applied, PlayerRating
from services.coordination.redis import RedisCoordination
from tests.services.test_coordination import record

StoreFactory = Callable[..., Awaitable[Store]]
FINISHED = ms.MATCH_STATUS_FINISHED


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
def make_store(request: pytest.FixtureRequest) -> StoreFactory:
    """``await make_store(visibility_timeout=...)``: a new, empty store whose
    outbox is enabled (``archiving=False``: never enabled)."""
    if request.param == "memory":

        async def memory(archiving: bool = True, **options: Any) -> Store:
            store = MemoryCoordination(**options)
            if archiving:
                await store.enable_outbox(60)
            return store

        return memory
    servers = request.getfixturevalue(
        "redis_server" if request.param == "redis" else "redis_cluster"
    )
    servers.flush()

    async def remote(archiving: bool = True, **options: Any) -> Store:
        store = RedisCoordination(servers.url, **options)
        await store.start()
        if archiving:
            await store.enable_outbox(60)
        return store

    return remote


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


async def play_to_the_end(store: Store, match_id: str = "m1", **ended_fields: Any) -> None:
    """Creates a playing match, plays one action, then finishes it (with
    ``ended_fields`` besides, e.g. the ``returns`` the archive needs)."""
    await store.create(record(match_id, status=ms.MATCH_STATUS_PLAYING), [], None)
    played = record(match_id, status=ms.MATCH_STATUS_PLAYING, history=[b"a"], version=1)
    assert await store.compare_and_set(played, 0, [], None)
    ended = dataclasses.replace(
        played,
        status=FINISHED,
        end_reason=ms.END_REASON_RULES,
        ended_ms=1234,
        version=2,
        **ended_fields,
    )
    assert await store.compare_and_set(ended, 1, [], None)


def test_the_change_that_finishes_a_match_writes_one_entry(make_store: StoreFactory) -> None:
    async def scenario() -> None:
        store = await make_store()
        await play_to_the_end(store)
        assert await store.outbox_size() == 1
        entries = await store.pull_outbox(10)
        assert len(entries) == 1
        match = entries[0].match
        assert match is not None
        assert entries[0].ratings is None
        assert (match.match_id, match.status, match.history, match.version) == (
            "m1",
            FINISHED,
            [b"a"],
            2,
        )
        assert match.ended_ms == 1234
        assert entries[0].queued_ms > 0
        await store.ack_outbox([entries[0].receipt])
        assert await store.outbox_size() == 0
        assert await store.pull_outbox(10) == []

    run(scenario())


def test_a_retried_or_lost_finishing_write_adds_no_entry(make_store: StoreFactory) -> None:
    async def scenario() -> None:
        store = await make_store()
        await play_to_the_end(store)
        stored = await store.load("m1")
        assert stored is not None
        assert await store.compare_and_set(stored, 1, [], None)  # the same write again
        rival = dataclasses.replace(stored, end_reason=ms.END_REASON_RESIGNATION, version=2)
        assert not await store.compare_and_set(rival, 1, [], None)  # lost its race
        assert await store.outbox_size() == 1

    run(scenario())


def test_a_match_marked_rated_is_archived_rated(make_store: StoreFactory) -> None:
    async def scenario() -> None:
        store = await make_store()
        await store.create(record(status=ms.MATCH_STATUS_PLAYING), [], None)
        await store.mark_rated("m1")
        ended = record(status=FINISHED, version=1)  # a copy older than the mark
        assert await store.compare_and_set(ended, 0, [], None)
        (entry,) = await store.pull_outbox(10)
        assert entry.match is not None
        assert entry.match.rated

    run(scenario())


def test_a_taken_entry_is_held_until_the_visibility_timeout(make_store: StoreFactory) -> None:
    async def scenario() -> None:
        store = await make_store(visibility_timeout=0.4)
        await play_to_the_end(store)
        assert len(await store.pull_outbox(10)) == 1
        assert await store.pull_outbox(10) == []  # held by its taker
        await asyncio.sleep(0.5)
        again = await store.pull_outbox(10)
        assert [e.match.match_id for e in again if e.match] == ["m1"]
        await store.ack_outbox([again[0].receipt])
        assert await store.outbox_size() == 0

    run(scenario())


def test_applied_ratings_write_their_update_once(make_store: StoreFactory) -> None:
    async def scenario() -> None:
        store = await make_store()
        first = [PlayerRating("ann", 28.0, 7.0, 1, 1), PlayerRating("bo", 22.0, 7.0, 1, 1)]
        assert await store.apply_ratings("othello", "m1", {"ann": 0, "bo": 0}, first) is (
            Applied.APPLIED
        )
        assert await store.apply_ratings("othello", "m1", {"ann": 0, "bo": 0}, first) is (
            Applied.ALREADY
        )
        stale = [PlayerRating("ann", 30.0, 6.0, 2, 2)]
        assert await store.apply_ratings("othello", "m2", {"ann": 0}, stale) is Applied.CONFLICT
        second = [PlayerRating("ann", 29.0, 6.5, 2, 2)]
        assert await store.apply_ratings("othello", "m3", {"ann": 1}, second) is Applied.APPLIED
        entries = await store.pull_outbox(10)
        updates = sorted((e.ratings for e in entries if e.ratings), key=lambda u: u.match_id)
        assert [u.match_id for u in updates] == ["m1", "m3"]
        assert updates[0].game == "othello"
        assert updates[0].before == (None, None)
        assert updates[0].after == tuple(first)
        assert updates[1].before == (first[0],)
        assert updates[1].after == tuple(second)

    run(scenario())


def test_an_outbox_never_enabled_gets_no_entries(make_store: StoreFactory) -> None:
    async def scenario() -> None:
        store = await make_store(archiving=False)
        await play_to_the_end(store)
        after = [PlayerRating("ann", 28.0, 7.0, 1, 1)]
        assert await store.apply_ratings("rolit", "m1", {"ann": 0}, after) is Applied.APPLIED
        assert await store.outbox_size() == 0

    run(scenario())


def test_an_outbox_not_renewed_stops_getting_entries(make_store: StoreFactory) -> None:
    async def scenario() -> None:
        store = await make_store(archiving=False)
        await store.enable_outbox(0.3)
        await play_to_the_end(store, "m1")
        await asyncio.sleep(0.4)
        await play_to_the_end(store, "m2")
        after = [PlayerRating("ann", 28.0, 7.0, 1, 1)]
        assert await store.apply_ratings("rolit", "m1", {"ann": 0}, after) is Applied.APPLIED
        entries = await store.pull_outbox(10)
        assert [e.match.match_id for e in entries if e.match] == ["m1"]
        assert [e for e in entries if e.ratings] == []

    run(scenario())


@pytest.mark.parametrize("topology", ["redis", "redis-cluster"])
def test_two_takers_never_hold_one_entry(topology: str, request: pytest.FixtureRequest) -> None:
    servers = request.getfixturevalue("redis_server" if topology == "redis" else "redis_cluster")
    servers.flush()

    async def scenario() -> None:
        one = RedisCoordination(servers.url)
        two = RedisCoordination(servers.url)
        worker = RedisCoordination(servers.url)  # a process with no archive of its own
        for store in (one, two, worker):
            await store.start()
        await one.enable_outbox(60)
        for n in range(20):
            await play_to_the_end(worker, f"m{n}")
        taken = [*await one.pull_outbox(7), *await two.pull_outbox(7)]
        taken += [*await one.pull_outbox(50), *await two.pull_outbox(50)]
        ids = [e.match.match_id for e in taken if e.match]
        assert sorted(ids) == sorted(f"m{n}" for n in range(20))
        await one.ack_outbox([e.receipt for e in taken])
        assert await two.outbox_size() == 0

    run(scenario())


def test_an_emptied_redis_gets_its_groups_back(redis_server: Any) -> None:
    redis_server.flush()

    async def scenario() -> None:
        store = RedisCoordination(redis_server.url)
        await store.start()
        await store.enable_outbox(60)
        redis_server.flush()  # Redis came back empty: the groups and markers are gone
        assert await store.pull_outbox(10) == []
        await store.enable_outbox(60)  # the archiver's next renewal
        await play_to_the_end(store)
        (entry,) = await store.pull_outbox(10)
        assert entry.match is not None
        assert entry.match.match_id == "m1"

    run(scenario())
