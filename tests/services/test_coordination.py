"""The coordination store's contract, called directly (not through a
server): every implementation runs this suite. It pins what the services
rely on: compare-and-set that refuses a stale version and writes nothing,
events read by ply, jobs redelivered until acknowledged, a job delivered
with its record and acknowledged by the write that plays it, exact queue
depth, expiry, and one winner when changes interleave."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from redis.crc import key_slot

from services.coordination import BotJob, Coordination, Event, MatchData, MemoryCoordination
from services.coordination.memory import wall_ms
from services.coordination.redis import RedisCoordination
from services.coordination.shards import SHARDS, data_key, events_key, jobs_key, shard_of
from services.errors import Aborted
from services.match_service import logic
from services.match_service.logic import Matches

StoreFactory = Callable[..., Awaitable[Coordination]]


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
def make_store(request: pytest.FixtureRequest) -> StoreFactory:
    """``await make_store(visibility_timeout=..., clock_ms=...)``: a new, empty store."""
    if request.param == "memory":

        async def memory(**options: Any) -> Coordination:
            return MemoryCoordination(**options)

        return memory
    servers = request.getfixturevalue(
        "redis_server" if request.param == "redis" else "redis_cluster"
    )
    servers.flush()

    async def remote(**options: Any) -> Coordination:
        store = RedisCoordination(servers.url, **options)
        await store.start()
        return store

    return remote


def record(match_id: str = "m1", **fields: Any) -> MatchData:
    data = MatchData(
        match_id=match_id,
        config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO).SerializeToString(),
        rules_version=1,
        seat_kinds=[ms.SEAT_KIND_HUMAN] * 2,
        bot_specs=["", ""],
        token_hashes=["", ""],
    )
    return dataclasses.replace(data, **fields)


def job(match_id: str = "m1", ply: int = 0) -> BotJob:
    return BotJob(match_id, ply, 1, "random", queued_ms=0, deadline_ms=30_000, version=1)


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def test_a_stale_compare_and_set_changes_nothing(make_store: StoreFactory) -> None:
    async def scenario() -> None:
        store = await make_store()
        await store.create(record(), [Event(0, b"created")], None)
        first = await store.load("m1")
        assert first is not None
        first.history.append(b"a")
        first.version = 1
        assert await store.compare_and_set(first, 0, [Event(0, b"a")], job(ply=1))
        stale = record(history=[b"b"], version=1)
        assert not await store.compare_and_set(stale, 0, [Event(0, b"b")], job(ply=1))
        stored = await store.load("m1")
        assert stored is not None
        assert (stored.history, stored.version) == ([b"a"], 1)
        batch = await store.read_events("m1", 0)
        assert [e.payload for e in batch.events] == [b"created", b"a"]
        assert await store.queue_depth() == 1  # only the winner's job

    run(scenario())


def test_loads_are_copies(make_store: StoreFactory) -> None:
    async def scenario() -> None:
        store = await make_store()
        await store.create(record(), [], None)
        loaded = await store.load("m1")
        assert loaded is not None
        loaded.history.append(b"not stored")
        again = await store.load("m1")
        assert again is not None
        assert again.history == []
        assert await store.load("nothing") is None

    run(scenario())


def test_events_are_read_by_ply_and_waited_for(make_store: StoreFactory) -> None:
    async def scenario() -> None:
        store = await make_store()
        events = [Event(0, b"joined"), Event(0, b"action 0"), Event(1, b"action 1")]
        await store.create(record(), events, None)
        assert [e.payload for e in (await store.read_events("m1", 1)).events] == [b"action 1"]
        batch = await store.read_events("m1", 0)
        assert [e.ply for e in batch.events] == [0, 0, 1]
        assert (await store.wait_events("m1", batch.cursor, 0.05)).events == []

        async def append_later() -> None:
            await asyncio.sleep(0.05)
            data = record(version=1, history=[b"x", b"y"])
            assert await store.compare_and_set(data, 0, [Event(2, b"action 2")], None)

        writer = asyncio.create_task(append_later())
        waited = await store.wait_events("m1", batch.cursor, 5.0)
        await writer
        assert [e.payload for e in waited.events] == [b"action 2"]
        assert (await store.wait_events("m1", waited.cursor, 0.01)).events == []

    run(scenario())


def test_an_unacknowledged_job_comes_back_after_the_visibility_timeout(
    make_store: StoreFactory,
) -> None:
    async def scenario() -> None:
        store = await make_store(visibility_timeout=0.2)
        await store.create(record(), [], job())
        first = await store.pull_job(1.0)
        assert first is not None
        assert (first.job, first.attempt) == (job(), 1)
        assert await store.pull_job(0.05) is None  # held by its worker
        assert await store.queue_depth() == 0
        again = await store.pull_job(2.0)  # that worker never acknowledged it
        assert again is not None
        assert (again.job, again.attempt) == (job(), 2)
        await store.ack_job(again.receipt)
        assert await store.pull_job(0.4) is None  # acknowledged: gone for good
        assert await store.queue_depth() == 0

    run(scenario())


def test_retried_and_dead_lettered_jobs(make_store: StoreFactory) -> None:
    async def scenario() -> None:
        store = await make_store()
        await store.create(record(), [], job())
        first = await store.pull_job(1.0)
        assert first is not None
        # A delay long enough that a loaded machine (a Cluster's queue_depth
        # asks three masters) cannot outlast it before the next pull.
        await store.retry_job(first.receipt, 1.5)
        assert await store.queue_depth() == 1  # waiting out its delay
        assert await store.pull_job(0.05) is None
        second = await store.pull_job(4.0)
        assert second is not None
        assert second.attempt == 2
        await store.dead_letter(second.receipt, "it kept failing")
        letters = await store.dead_letters()
        assert [(d.job, d.reason) for d in letters] == [(job(), "it kept failing")]
        assert await store.queue_depth() == 0
        assert await store.pull_job(0.3) is None

    run(scenario())


def test_queue_depth_is_exact(make_store: StoreFactory) -> None:
    async def scenario() -> None:
        store = await make_store()
        for index in range(5):
            await store.create(record(f"m{index}"), [], job(f"m{index}"))
        assert await store.queue_depth() == 5
        pulled = [await store.pull_job(1.0) for _ in range(2)]
        assert await store.queue_depth() == 3
        for delivery in pulled:
            assert delivery is not None
            await store.ack_job(delivery.receipt)
        assert await store.queue_depth() == 3

    run(scenario())


def test_records_expire_and_deadlines_come_due(make_store: StoreFactory) -> None:
    """Expiry runs on the store's own clock (a Redis TTL), so it is real time."""

    async def scenario() -> None:
        store = await make_store()
        now = wall_ms()
        await store.create(record("gone", expires_ms=now + 300), [Event(0, b"e")], None)
        await store.create(record("due", deadline_ms=now + 100), [], None)
        await store.create(record("later", deadline_ms=now + 60_000), [], None)
        assert await store.match_count() == 3
        assert await store.due_matches(now, 10) == []
        await asyncio.sleep(0.4)
        assert await store.load("gone") is None
        assert (await store.read_events("gone", 0)).events == []
        assert await store.match_count() == 2
        assert await store.due_matches(wall_ms(), 10) == ["due"]

    run(scenario())


class Interleaving:
    """A store that yields to other tasks between a load and the
    compare-and-set that follows it, as a remote store does."""

    def __init__(self, store: Coordination) -> None:
        self.store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    async def load(self, match_id: str) -> MatchData | None:
        data = await self.store.load(match_id)
        await asyncio.sleep(0.001)
        return data


def test_interleaved_submissions_apply_once(make_store: StoreFactory) -> None:
    """Eight submissions of the same ply, loading before others store: one
    applies; the rest are ABORTED, or (the same action, loaded after it
    landed) get its answer again as a retry. The record holds one action."""

    async def scenario() -> tuple[list[object], MatchData]:
        m = Matches(Interleaving(await make_store()))  # type: ignore[arg-type]
        request = ms.CreateMatchRequest(
            config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO),
            seats=[ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)] * 2,
        )
        match_id = (await logic.create_match(m, request)).match.match_id
        joined = ms.JoinMatchRequest(match_id=match_id)
        black = (await logic.join_match(m, joined, None)).seat_token
        await logic.join_match(m, joined, None)
        squares = [19, 26, 37, 44] * 2  # d3, c4, f5, e6

        async def submit(square: int) -> object:
            action = pb.Action(board=pb.BoardMove(square=square))
            try:
                return await logic.submit_action(m, match_id, None, black, 0, [action])
            except Aborted:
                return "aborted"

        outcomes = await asyncio.gather(*(submit(square) for square in squares))
        data = await m.coordination.load(match_id)
        assert data is not None
        return outcomes, data

    outcomes, data = run(scenario())
    assert len(data.history) == 1
    assert data.version == 3  # two joins and one action
    answers = [o for o in outcomes if isinstance(o, ms.SubmitActionResponse)]
    assert answers
    assert all(a == answers[0] for a in answers)
    assert answers[0].applied[0].action.SerializeToString() == data.history[0]
    assert outcomes.count("aborted") == len(outcomes) - len(answers)


def test_live_matches_are_the_playing_ones_most_recently_started_first(
    make_store: StoreFactory,
) -> None:
    clock = [1_000]

    async def scenario() -> None:
        store = await make_store(clock_ms=lambda: clock[0])
        playing = ms.MATCH_STATUS_PLAYING
        for name in ("a", "b", "c"):
            await store.create(record(name, status=ms.MATCH_STATUS_WAITING), [], None)
        for name in ("b", "a", "c"):  # they start in this order
            clock[0] += 10
            started = record(name, status=playing, version=1)
            assert await store.compare_and_set(started, 0, [], None)
        assert (await store.live_matches(0, 10))[1] == 3
        first, after = await store.live_matches(0, 2)
        assert [d.match_id for d in first] == ["c", "a"]
        assert after == 2
        rest, after = await store.live_matches(after, 2)
        assert [d.match_id for d in rest] == ["b"]
        assert after == 3
        # A move keeps its place; the end of a match, or its deletion, takes it off.
        moved = record("a", status=playing, version=2, history=[b"x"])
        assert await store.compare_and_set(moved, 1, [], None)
        assert [d.match_id for d in (await store.live_matches(0, 10))[0]] == ["c", "a", "b"]
        finished = record("c", status=ms.MATCH_STATUS_FINISHED, version=2)
        assert await store.compare_and_set(finished, 1, [], None)
        await store.delete("b")
        live, after = await store.live_matches(0, 10)
        assert [d.match_id for d in live] == ["a"]
        assert live[0].history == [b"x"]
        assert after == 1

    run(scenario())


def test_a_live_entry_left_by_a_crash_is_dropped_when_met(redis_server: Any) -> None:
    """A process that dies between a commit and the live index leaves an
    entry for a match that is not playing: listing skips and removes it."""
    redis_server.flush()

    async def scenario() -> None:
        store = RedisCoordination(redis_server.url)
        await store.start()
        await store.create(record("gone", status=ms.MATCH_STATUS_FINISHED), [], None)
        await store.client.zadd("meeple:live", {"gone": 1, "never-stored": 2})
        live, after = await store.live_matches(0, 10)
        assert (live, after) == ([], 2)
        assert await store.client.zcard("meeple:live") == 0
        await store.close()

    run(scenario())


def test_the_same_write_again_is_stored_and_changes_nothing(make_store: StoreFactory) -> None:
    """A retry of a compare-and-set whose answer was lost with its connection
    finds its write stored: True, not a lost race (whose caller would drop
    the job the write queued, stalling the match)."""

    async def scenario() -> None:
        store = await make_store()
        await store.create(record(), [Event(0, b"created")], None)
        assert await store.create(record(), [Event(0, b"created")], None) is None  # no raise
        moved = record(history=[b"a"], version=1)
        assert await store.compare_and_set(moved, 0, [Event(0, b"a")], job(ply=1))
        assert await store.compare_and_set(moved, 0, [Event(0, b"a")], job(ply=1))
        other = record(history=[b"b"], version=1)
        assert not await store.compare_and_set(other, 0, [Event(0, b"b")], None)
        batch = await store.read_events("m1", 0)
        assert [e.payload for e in batch.events] == [b"created", b"a"]  # once each
        assert await store.queue_depth() >= 1  # the write's job is there
        delivery = await store.pull_job(timeout=1)
        assert delivery is not None
        assert delivery.job.ply == 1

    run(scenario())


def test_a_deadline_is_due_at_its_very_millisecond(make_store: StoreFactory) -> None:
    """``due_matches`` at ``now == deadline_ms`` has it (the sweeper ends a
    clock that reads zero), a millisecond before does not."""

    async def scenario() -> None:
        store = await make_store()
        deadline = wall_ms() + 60_000
        await store.create(record("due", deadline_ms=deadline), [], None)
        await store.create(record("later", deadline_ms=deadline + 1), [], None)
        assert await store.due_matches(deadline - 1, 10) == []
        assert await store.due_matches(deadline, 10) == ["due"]

    run(scenario())


async def peer_of(store: Coordination, make_store: StoreFactory, **options: Any) -> Coordination:
    """Another worker's view of ``store``: on Redis another process's client
    (its own consumer), in memory the same store."""
    if isinstance(store, MemoryCoordination):
        return store
    return await make_store(**options)


def test_a_job_whose_worker_stops_renewing_comes_back_after_its_lease(
    make_store: StoreFactory,
) -> None:
    """A worker that died (it renews nothing) gives its job back after the
    lease, long before the visibility timeout."""

    async def scenario() -> None:
        store = await make_store(visibility_timeout=60.0, lease=0.3)
        other = await peer_of(store, make_store, visibility_timeout=60.0, lease=0.3)
        assert store.job_lease == 0.3
        await store.create(record(), [], job())
        first = await store.pull_job(1.0)
        assert first is not None
        loop = asyncio.get_running_loop()
        began = loop.time()
        again = await other.pull_job(5.0)
        assert again is not None, "still held after 5 s"
        assert (again.job, again.attempt) == (job(), 2)
        assert 0.2 <= loop.time() - began < 2.0
        assert not await store.extend_job(first.receipt)  # another worker's now
        assert await other.extend_job(again.receipt)
        await other.ack_job(again.receipt)
        assert not await other.extend_job(again.receipt)  # settled

    run(scenario())


def test_a_renewed_job_stays_held_until_the_visibility_timeout(make_store: StoreFactory) -> None:
    """Renewed every 0.1 s with a lease of 0.3 s, a job stays its worker's
    (renewals count no delivery), until 1.2 s after its delivery: then the
    renewals are refused and it comes back."""

    async def scenario() -> None:
        store = await make_store(visibility_timeout=1.2, lease=0.3)
        other = await peer_of(store, make_store, visibility_timeout=1.2, lease=0.3)
        await store.create(record(), [], job())
        first = await store.pull_job(1.0)
        assert first is not None
        loop = asyncio.get_running_loop()
        delivered = loop.time()
        while True:
            again = await other.pull_job(0.1)
            if again is not None:
                break
            if not await store.extend_job(first.receipt):
                refused = loop.time() - delivered
                assert refused >= 1.1, f"renewal refused {refused:.2f} s in"
                again = await other.pull_job(2.0)
                break
        back = loop.time() - delivered
        assert 1.1 <= back < 1.2 + 0.5, f"back {back:.2f} s after its delivery"
        assert again is not None
        assert (again.job, again.attempt) == (job(), 2)

    run(scenario())


def test_a_job_comes_with_the_record_its_change_stored(make_store: StoreFactory) -> None:
    """A job's first delivery carries the record the change that queued it
    stored (the worker reads nothing more); a job delivered again, after a
    retry or a lapsed lease, carries none (the match may have moved on)."""

    async def scenario() -> None:
        store = await make_store(lease=0.3)
        other = await peer_of(store, make_store, lease=0.3)
        created = record(status=ms.MATCH_STATUS_PLAYING)
        await store.create(created, [], job())
        first = await store.pull_job(1.0)
        assert first is not None
        assert first.data == created
        await store.retry_job(first.receipt, 0.0)
        retried = await store.pull_job(2.0)
        assert retried is not None
        assert (retried.attempt, retried.data) == (2, None)
        lapsed = await other.pull_job(5.0)  # ``store`` does not renew it
        assert lapsed is not None
        assert (lapsed.job, lapsed.attempt, lapsed.data) == (job(), 3, None)

    run(scenario())


def test_a_commit_that_settles_a_delivery_acknowledges_it(make_store: StoreFactory) -> None:
    """The write that plays a delivered job acknowledges it with the same
    step: it is never delivered again. A write that loses its race leaves
    the delivery held (its worker settles it)."""

    async def scenario() -> None:
        store = await make_store(lease=0.3)
        other = await peer_of(store, make_store, lease=0.3)
        await store.create(record("m1"), [], job("m1"))
        await store.create(record("m2"), [], job("m2"))
        deliveries = [await store.pull_job(1.0) for _ in range(2)]
        assert all(deliveries)
        by_match = {d.job.match_id: d for d in deliveries if d is not None}
        played = dataclasses.replace(record("m1"), version=1, history=[b"\x08\x01"])
        assert await store.compare_and_set(played, 0, [], None, settles=by_match["m1"].receipt)
        lost = dataclasses.replace(record("m2"), version=8)
        assert not await store.compare_and_set(lost, 7, [], None, settles=by_match["m2"].receipt)
        again = await other.pull_job(5.0)  # after the lease: only m2's came back
        assert again is not None
        assert again.job.match_id == "m2"
        await other.ack_job(again.receipt)
        assert await other.pull_job(0.5) is None  # m1's was not: its write settled it
        assert await store.queue_depth() == 0

    run(scenario())


def test_finishing_a_match_marked_rated_queues_its_result_from_any_copy(
    make_store: StoreFactory,
) -> None:
    """A worker's record came with its job before the matchmaker marked the
    match rated: the change that finishes it still queues the result, once."""

    async def scenario() -> None:
        store = await make_store()
        playing = record(status=ms.MATCH_STATUS_PLAYING)
        await store.create(playing, [], job())
        delivery = await store.pull_job(1.0)
        assert delivery is not None
        assert delivery.data is not None
        assert not delivery.data.rated
        await store.mark_rated("m1")
        finished = dataclasses.replace(delivery.data, version=1, status=ms.MATCH_STATUS_FINISHED)
        assert await store.compare_and_set(finished, 0, [], None, settles=delivery.receipt)
        result = await store.pull_result(1.0)  # type: ignore[attr-defined]
        assert result is not None
        assert (result.match_id, result.version) == ("m1", 1)
        await store.ack_result(result.receipt)  # type: ignore[attr-defined]
        assert await store.pull_result(0.3) is None  # type: ignore[attr-defined]
        stored = await store.load("m1")
        assert stored is not None
        assert stored.rated

    run(scenario())


def test_matches_and_their_jobs_spread_over_the_shards(redis_cluster: Any) -> None:
    """On a Cluster, a match's record, events and job stream share one
    slot, and 200 matches' keys sit on every master; a delivery of one
    match cannot settle through another match's write unless they share a
    shard."""
    redis_cluster.flush()

    async def scenario() -> None:
        store = RedisCoordination(redis_cluster.url)
        await store.start()
        ids = [f"m{n}" for n in range(200)]
        for match_id in ids:
            await store.create(record(match_id), [], job(match_id))
        masters = set()
        for match_id in ids:
            keys = (data_key(match_id), events_key(match_id), jobs_key(shard_of(match_id)))
            assert len({key_slot(key.encode()) for key in keys}) == 1
            masters.add(redis_cluster.node_of(data_key(match_id)).port)
        assert len(masters) == 3
        assert len({shard_of(match_id) for match_id in ids}) == SHARDS
        delivery = await store.pull_job(1.0)
        assert delivery is not None
        foreign = next(m for m in ids if shard_of(m) != shard_of(delivery.job.match_id))
        data = dataclasses.replace(record(foreign), version=1)
        with pytest.raises(ValueError, match="shard"):
            await store.compare_and_set(data, 0, [], None, settles=delivery.receipt)
        await store.close()

    run(scenario())


def test_a_write_with_a_deadline_commits_once_after_the_store_lost_its_scripts(
    make_store: StoreFactory,
) -> None:
    """A Redis restarted forgets its scripts: a change with a clock deadline
    (its deadline goes ahead of the commit, in one pipeline, the commit by
    its digest) loads the script again and is stored once, due on time."""

    async def scenario() -> None:
        store = await make_store()
        created = record(status=ms.MATCH_STATUS_PLAYING, deadline_ms=1_000)
        await store.create(created, [Event(0, b"a")], None)
        if isinstance(store, RedisCoordination):
            await store.client.script_flush()
        changed = dataclasses.replace(created, version=1, deadline_ms=2_000)
        assert await store.compare_and_set(changed, 0, [Event(1, b"b")], None)
        assert await store.compare_and_set(changed, 0, [Event(1, b"b")], None)  # the same again
        assert await store.load("m1") == changed
        events = (await store.read_events("m1", 0)).events
        assert [event.payload for event in events] == [b"a", b"b"]
        assert await store.due_matches(1_500, 10) == []
        assert await store.due_matches(2_000, 10) == ["m1"]

    run(scenario())
