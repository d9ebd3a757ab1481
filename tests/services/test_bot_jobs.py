"""A bot job is queued just ahead of the change that makes it due (so that
a crash between the two loses no turn): a runner that sees the job first
looks at the match again a few times before handing the job back."""

from __future__ import annotations

import asyncio

import pytest
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms

from services.coordination import MemoryCoordination
from services.coordination.base import BotJob
from services.match_service import bots, logic
from services.match_service.logic import Matches

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
