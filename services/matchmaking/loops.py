"""The matchmaker's background work: passes over the queues, and the rater
that updates ratings after each finished rated match."""

from __future__ import annotations

import asyncio

from services.background import keep_running
from services.matchmaking import logic, passes
from services.matchmaking.logic import Matchmaker

RESULT_WAIT_SECONDS = 0.5


async def run_matchmaker(maker: Matchmaker, stop: asyncio.Event) -> None:
    await keep_running(
        "matchmaker", lambda: passes.run_passes(maker), stop, maker.settings.matchmaker_interval
    )


async def run_rater(maker: Matchmaker, stop: asyncio.Event) -> None:
    async def rate_one() -> None:
        job = await maker.store.pull_result(RESULT_WAIT_SECONDS)
        if job is not None and await logic.rate_result(maker, job):
            await maker.store.ack_result(job.receipt)

    await keep_running("rater", rate_one, stop)
