"""Bot jobs in a runner's hands: a turn is one read of the store (the
delivery, with the record) and one write (the move, which acknowledges
the delivery); a delivery whose match moved on is dropped; a runner renews
its job's lease while it thinks; a turn that keeps failing gets exactly
``bot_attempts`` deliveries, then the fallback."""

from __future__ import annotations

import asyncio
import dataclasses
import pickle
from typing import Any

import pytest
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms

from services.ai_service.pool import Thought
from services.convert import action_to_proto
from services.coordination import Coordination, MemoryCoordination
from services.coordination.redis import RedisCoordination
from services.match_service import bots, logic
from services.match_service.logic import Matches
from services.settings import Settings

BOTS = ms.CreateMatchRequest(
    config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO),
    seats=[ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec="random")] * 2,
)


class FakePool:
    """An AI pool that thinks for ``seconds`` and plays the first legal
    action, or fails every time (``fail``); it counts its thoughts."""

    def __init__(self, seconds: float = 0.0, fail: bool = False) -> None:
        self.seconds = seconds
        self.fail = fail
        self.thoughts = 0

    async def think(self, position: tuple[str, bytes], *args: Any, **options: Any) -> Thought:
        self.thoughts += 1
        await asyncio.sleep(self.seconds)
        if self.fail:
            raise RuntimeError("the bot broke")
        state = pickle.loads(position[1])
        action = action_to_proto(state, state.legal_actions()[0])
        return Thought(action.SerializeToString(), self.seconds)


def test_a_runner_keeps_its_job_while_it_thinks_past_the_lease() -> None:
    """Thinking 1 s with a lease of 0.2 s, the runner renews the job: no
    other runner gets it meanwhile, and it is played and acknowledged once."""

    async def scenario() -> None:
        m = Matches(MemoryCoordination(lease=0.2))
        match_id = (await logic.create_match(m, BOTS)).match.match_id
        delivery = await m.coordination.pull_job(1.0)
        assert delivery is not None
        pool = FakePool(seconds=1.0)
        runner = asyncio.create_task(bots.handle(m, pool, delivery))  # type: ignore[arg-type]
        while not runner.done():
            taken = await m.coordination.pull_job(0.05)
            assert taken is None or taken.job.ply == 1, f"ply 0 delivered again: {taken}"
        await runner
        assert pool.thoughts == 1
        assert (await logic.load(m, match_id)).ply == 1

    asyncio.run(scenario())


@pytest.fixture(params=["memory", "redis"])
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def new_store(store_kind: str, request: pytest.FixtureRequest) -> Coordination:
    if store_kind == "memory":
        return MemoryCoordination()
    server = request.getfixturevalue("redis_server")
    server.flush()
    return RedisCoordination(server.url)


class Counting:
    """A store that counts the calls made of it, by method."""

    def __init__(self, store: Coordination) -> None:
        self.store = store
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        found = getattr(self.store, name)
        if not callable(found):
            return found

        def counted(*args: Any, **options: Any) -> Any:
            self.calls.append(name)
            return found(*args, **options)

        return counted


def test_a_bot_turn_is_one_read_and_one_write(
    store_kind: str, request: pytest.FixtureRequest
) -> None:
    """Handling a first delivery reads nothing more (the record came with
    it) and writes once: the move's compare-and-set, which acknowledges the
    delivery, so no job is left pending and the next turn's job is queued."""
    store = new_store(store_kind, request)

    async def scenario() -> None:
        await store.start()
        counting = Counting(store)
        m = Matches(counting)
        match_id = (await logic.create_match(m, BOTS)).match.match_id
        delivery = await store.pull_job(1.0)
        assert delivery is not None
        assert delivery.data is not None
        assert delivery.data.version == delivery.job.version
        counting.calls.clear()
        await bots.handle(m, FakePool(), delivery)  # type: ignore[arg-type]
        assert counting.calls == ["compare_and_set"]
        assert (await logic.load(m, match_id)).ply == 1
        assert await store.queue_depth() == 1  # the next turn's, not ply 0's
        after = await store.pull_job(1.0)
        assert after is not None
        assert after.job.ply == 1
        assert after.attempt == 1
        await store.close()

    asyncio.run(scenario())


def test_a_delivery_whose_match_moved_on_is_dropped_without_thinking(
    store_kind: str, request: pytest.FixtureRequest
) -> None:
    """The record in a delivery is the one its change stored; when the
    match moved on since (here another runner played the turn), the move's
    compare-and-set fails and the delivery is acknowledged, playing nothing
    twice; a delivery of a job whose turn is already played (read afresh,
    as when delivered again) is acknowledged without a think."""
    store = new_store(store_kind, request)

    async def scenario() -> None:
        await store.start()
        m = Matches(store)
        match_id = (await logic.create_match(m, BOTS)).match.match_id
        delivery = await store.pull_job(1.0)
        assert delivery is not None
        data = await logic.load(m, match_id)
        state = await m.states.state(data)
        move = action_to_proto(state, state.legal_actions()[-1]).action
        await logic.submit_action(m, match_id, 0, None, 0, [move])  # another runner's move
        pool = FakePool()
        await bots.handle(m, pool, delivery)  # type: ignore[arg-type]
        assert pool.thoughts == 1  # it thought on the record it had; its write lost
        assert (await logic.load(m, match_id)).history[0] == move.SerializeToString()
        stale = dataclasses.replace(delivery, data=None)  # as if delivered again
        await bots.handle(m, pool, stale)  # type: ignore[arg-type]
        assert pool.thoughts == 1
        assert await store.queue_depth() == 1  # only ply 1's job
        await store.close()

    asyncio.run(scenario())


def test_a_failing_bot_turn_gets_exactly_bot_attempts_deliveries(
    store_kind: str, request: pytest.FixtureRequest
) -> None:
    """A turn whose every think fails is delivered ``bot_attempts`` (3)
    times, then dead-lettered and played by the fallback: never a 4th."""
    store = new_store(store_kind, request)

    async def scenario() -> list[int]:
        await store.start()
        m = Matches(store, settings=Settings(bot_attempts=3))
        match_id = (await logic.create_match(m, BOTS)).match.match_id
        pool = FakePool(fail=True)
        attempts: list[int] = []
        while True:
            delivery = await store.pull_job(3.0)  # retries wait 0.5 s, then 1 s
            assert delivery is not None, f"stalled after deliveries {attempts}"
            if delivery.job.ply > 0:  # the next turn: the first was settled
                break
            attempts.append(delivery.attempt)
            await bots.handle(m, pool, delivery)  # type: ignore[arg-type]
        assert pool.thoughts == len(attempts)
        letters = await store.dead_letters()
        assert [letter.job.ply for letter in letters] == [0]
        assert "the bot broke" in letters[0].reason
        assert (await logic.load(m, match_id)).ply == 1  # the fallback played ply 0
        await store.close()
        return attempts

    assert asyncio.run(scenario()) == [1, 2, 3]
