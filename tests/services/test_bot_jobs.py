"""Bot jobs in a runner's hands: a job queued just ahead of the change that
makes it due (so that a crash between the two loses no turn) is looked at
again a few times before it goes back; a runner renews its job's lease
while it thinks; a turn that keeps failing gets exactly ``bot_attempts``
deliveries, then the fallback."""

from __future__ import annotations

import asyncio
import pickle
from typing import Any

import pytest
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms

from services.ai_service.pool import Thought
from services.convert import action_to_proto
from services.coordination import Coordination, MemoryCoordination
from services.coordination.base import BotJob
from services.coordination.redis import RedisCoordination
from services.match_service import bots, logic
from services.match_service.logic import Matches
from services.settings import Settings

BOTS = ms.CreateMatchRequest(
    config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO),
    seats=[ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec="random")] * 2,
)


async def match_and_early_job() -> tuple[Matches, BotJob]:
    """A bots' match and a job of a change to it that has not landed yet."""
    m = Matches(MemoryCoordination())
    match_id = (await logic.create_match(m, BOTS)).match.match_id
    data = await logic.load(m, match_id)
    now = m.now_ms()
    job = BotJob(match_id, data.ply, 0, "random", now, now + 60_000, data.version + 1)
    return m, job


async def land_change(m: Matches, match_id: str, after: float) -> None:
    await asyncio.sleep(after)
    data = await logic.load(m, match_id)
    data.version += 1
    assert await m.coordination.compare_and_set(data, data.version - 1, [], None)


def test_a_job_seen_before_its_change_lands_is_played_once_it_lands() -> None:
    async def scenario() -> None:
        m, job = await match_and_early_job()
        landing = asyncio.create_task(land_change(m, job.match_id, after=0.01))
        data = await bots.due_soon(m, job)
        await landing
        assert data is not None
        assert data.version == job.version

    asyncio.run(scenario())


def test_a_job_whose_change_does_not_land_soon_goes_back_to_the_queue() -> None:
    async def scenario() -> None:
        m, job = await match_and_early_job()
        loop = asyncio.get_running_loop()
        began = loop.time()
        with pytest.raises(bots.NotYetCommitted):
            await bots.due_soon(m, job)
        assert loop.time() - began >= sum(bots.LOOK_AGAIN_SECONDS)

    asyncio.run(scenario())


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


def test_a_failing_bot_turn_gets_exactly_bot_attempts_deliveries(
    store_kind: str, request: pytest.FixtureRequest
) -> None:
    """A turn whose every think fails is delivered ``bot_attempts`` (3)
    times, then dead-lettered and played by the fallback: never a 4th."""
    store: Coordination
    if store_kind == "memory":
        store = MemoryCoordination()
    else:
        server = request.getfixturevalue("redis_server")
        server.flush()
        store = RedisCoordination(server.url)

    async def scenario() -> list[int]:
        await store.start()
        m = Matches(store, settings=Settings(bot_attempts=3))
        match_id = (await logic.create_match(m, BOTS)).match.match_id
        pool = FakePool(fail=True)
        attempts = []
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
