"""Bot seats move by themselves: workers take bot-turn jobs from the queue,
think in the AI process pool and submit like any seat (compare-and-set on
the ply, so a job that lost a race or went stale changes nothing)."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from concurrent.futures import Executor

from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms

from services.ai_service.worker import suggest
from services.coordination import BotJob, Coordination
from services.errors import Aborted
from services.match_service.logic import seat_to_act, state_of, submit_action
from services.metrics import AI_QUEUE_DEPTH, AI_THINK_SECONDS, bot_label

log = logging.getLogger("meeple.bots")


def bot_seed(job: BotJob) -> int:
    """A seed per match and ply: a replayed match makes the same decisions."""
    return int.from_bytes(hashlib.sha256(f"{job.match_id}:{job.ply}".encode()).digest()[:8])


async def play_bot_turn(coordination: Coordination, executor: Executor, job: BotJob) -> bool:
    """Plays the job's bot turn; False if the job is stale (nothing to do)."""
    data = await coordination.load(job.match_id)
    if data is None or data.ply != job.ply:
        return False
    state = state_of(data)
    seat = seat_to_act(data, state)
    if seat is None or seat < 0 or data.seat_kinds[seat] != ms.SEAT_KIND_BOT:
        return False
    record = pb.GameRecord(
        config=pb.GameConfig.FromString(data.config),
        history=[pb.Action.FromString(raw) for raw in data.history],
    )
    loop = asyncio.get_running_loop()
    spec = data.bot_specs[seat]
    action_bytes, seconds = await loop.run_in_executor(
        executor, suggest, record.SerializeToString(), spec, bot_seed(job)
    )
    AI_THINK_SECONDS.labels(state.game.name, bot_label(spec)).observe(seconds)  # type: ignore[attr-defined]
    action = pb.ActionInfo.FromString(action_bytes).action
    await submit_action(coordination, job.match_id, seat, None, job.ply, [action])
    return True


async def run_bots(coordination: Coordination, executor: Executor, stop: asyncio.Event) -> None:
    """Takes bot jobs until ``stop`` is set. A job is acknowledged once played
    or found stale; one that fails unexpectedly is left for redelivery."""
    while not stop.is_set():
        AI_QUEUE_DEPTH.set(await coordination.queue_depth())
        pulled = await coordination.pull_job(timeout=0.2)
        if pulled is None:
            continue
        receipt, job = pulled
        try:
            await play_bot_turn(coordination, executor, job)
        except Aborted:
            pass  # a human or another worker changed the match first
        except Exception:
            log.exception("bot turn %s failed; it will be retried", job)
            continue
        await coordination.ack_job(receipt)
