"""Bot seats move by themselves: runners take bot-turn jobs from the queue,
think in the AI pool (ahead of hints) and submit like any seat, through the
same validation as a human move (a compare-and-set on the ply, so a job
that lost a race or went stale changes nothing). A job's first delivery
brings the match's record, and the move's commit acknowledges the job: a
bot turn is one read and one write of the store.

While a runner works on a turn it renews the job's lease every quarter of
it (``extend_job``), so the job stays its own however long it thinks (up to
the visibility timeout), and comes back within one lease if the runner's
process dies.

A turn that fails is retried with backoff, up to ``settings.bot_attempts``
deliveries; then it is dead-lettered and the fallback plays it: a uniformly
random legal move (a sampled flick in Volta), seeded by the match and ply,
so no match hangs on a bot. The runner whose write played it logs one
warning, "bot fallback played", on the logger ``meeple.match``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import pickle
from collections.abc import Awaitable, Callable

from meeple.v1 import game_pb2 as pb

from ai.bots import make_bot
from services.ai_service.pool import AIPool, PoolStopped, Priority
from services.ai_service.worker import PICKLED_STATE
from services.background import keep_running
from services.convert import action_to_proto
from services.coordination import BotJob, Coordination, Delivery, MatchData
from services.errors import Aborted, Unavailable
from services.match_service import logic
from services.match_service.logic import BOT, Matches
from services.metrics import AI_DEAD_LETTERS, AI_LATE_JOBS, AI_THINK_SECONDS, bot_label

log = logging.getLogger("meeple.bots")
match_log = logging.getLogger("meeple.match")

FALLBACK = "random"
RETRY_BASE_SECONDS = 0.5
SETTLE_TRIES = 10  # about 15 s of waiting for the store
RENEWALS_PER_LEASE = 4  # a lease lapses only after this many renewals in a row failed


def bot_seed(job: BotJob) -> int:
    """A seed per match and ply: a replayed match makes the same decisions."""
    return int.from_bytes(hashlib.sha256(f"{job.match_id}:{job.ply}".encode()).digest()[:8])


def is_due(data: MatchData | None, job: BotJob) -> bool:
    """Whether the job's turn is still to play in the record ``data``."""
    return (
        data is not None
        and data.ply == job.ply
        and data.status == logic.PLAYING
        and data.seat_kinds[job.seat] == BOT
    )


def paced_until(data: MatchData, job: BotJob) -> int:
    """When the job's move may be played at the earliest (epoch ms; 0: at
    once): a match without human seats waits its bot pace after the move
    before it (the job was queued by that move's commit), so that its
    spectators can follow it."""
    if not data.bot_pace_ms or logic.HUMAN in data.seat_kinds:
        return 0
    return job.queued_ms + data.bot_pace_ms


async def due(m: Matches, job: BotJob) -> MatchData | None:
    """The match, read now, if the job's turn is still to play, else None (stale)."""
    data = await m.coordination.load(job.match_id)
    return data if is_due(data, job) else None


async def play_bot_turn(m: Matches, pool: AIPool, delivery: Delivery) -> bool:
    """Thinks and plays the delivery's turn, acknowledging the delivery
    with the move; False if the turn is stale (nothing played, nothing
    acknowledged). The record comes with a job's first delivery; one
    delivered again reads the match afresh."""
    job = delivery.job
    data = delivery.data if delivery.data is not None else await m.coordination.load(job.match_id)
    if data is None or not is_due(data, job):
        return False
    now = m.now_ms()
    waited = max(0.0, (now - job.queued_ms) / 1000)
    if now > job.deadline_ms:
        AI_LATE_JOBS.inc()
    state = await m.states.state(data)
    thought = await pool.think(
        (PICKLED_STATE, pickle.dumps(state)),
        job.bot_spec,
        bot_seed(job),
        priority=Priority.BOT_SEAT,
        waited=waited,
    )
    AI_THINK_SECONDS.labels(state.game.name, bot_label(job.bot_spec)).observe(thought.seconds)
    action = pb.ActionInfo.FromString(thought.action).action
    rest = paced_until(data, job) - m.now_ms()
    if rest > 0:  # thought within its pace: the move waits (the lease is renewed meanwhile)
        await asyncio.sleep(rest / 1000)
    await logic.submit_action(
        m, job.match_id, job.seat, None, job.ply, [action], data=data, settles=delivery.receipt
    )
    return True


async def play_fallback(m: Matches, job: BotJob, attempts: int = 0, reason: str = "") -> bool:
    """Plays the job's turn with the fallback move, given up after
    ``attempts`` for ``reason``; False if the turn was no longer to play."""
    data = await due(m, job)
    if data is None:
        return False
    state = await m.states.state(data)
    action = make_bot(state.game, FALLBACK, seed=bot_seed(job)).choose(state.clone())
    message = action_to_proto(state, action).action
    await logic.submit_action(m, job.match_id, job.seat, None, job.ply, [message])
    AI_DEAD_LETTERS.labels(state.game.name).inc()
    fields = {
        "match_id": job.match_id,
        "game": state.game.name,
        "ply": job.ply,
        "seat": job.seat,
        "bot_spec": job.bot_spec,
        "attempts": attempts,
        "reason": reason,
        "fallback": FALLBACK,
    }
    match_log.warning("bot fallback played", extra={"fields": fields})
    return True


async def keep_held(coordination: Coordination, receipt: str) -> None:
    """Renews a delivery's lease now and every quarter of the lease until
    cancelled, or until it is no longer this runner's to renew."""
    every = coordination.job_lease / RENEWALS_PER_LEASE
    while True:
        try:
            if not await coordination.extend_job(receipt):
                return  # settled, delivered again, or held the whole visibility timeout
        except Unavailable as error:  # the next renewal tries again
            log.warning("renewing the lease of bot job %s failed: %s", receipt, error)
        except Exception:
            log.exception("renewing the lease of bot job %s failed", receipt)
            return
        await asyncio.sleep(every)


async def handle(m: Matches, pool: AIPool, delivery: Delivery) -> None:
    """Plays a delivered job and settles it: acknowledged once played or
    stale, retried after a failure, dead-lettered after the last attempt;
    its lease renewed meanwhile. A turn over within a quarter of the lease
    (most are) starts no renewing task at all."""
    renewing: list[asyncio.Task[None]] = []

    def renew() -> None:
        renewing.append(asyncio.ensure_future(keep_held(m.coordination, delivery.receipt)))

    every = m.coordination.job_lease / RENEWALS_PER_LEASE
    timer = asyncio.get_running_loop().call_later(every, renew)
    try:
        await play_and_settle(m, pool, delivery)
    finally:
        timer.cancel()
        for task in renewing:
            task.cancel()
            await asyncio.wait([task])


async def play_and_settle(m: Matches, pool: AIPool, delivery: Delivery) -> None:
    coordination = m.coordination
    receipt = delivery.receipt
    try:
        if await play_bot_turn(m, pool, delivery):
            return  # the move's commit acknowledged the delivery
    except Aborted:
        pass  # a human, a timeout or another runner changed the match first
    except PoolStopped:  # this process shuts down: another runner takes the turn now
        await settle(lambda: coordination.retry_job(receipt, 0.0))
        return
    except Exception as error:
        if delivery.attempt < m.settings.bot_attempts:
            log.warning(
                "bot turn %s failed (attempt %d): %s", delivery.job, delivery.attempt, error
            )
            delay = RETRY_BASE_SECONDS * delivery.attempt
            await settle(lambda: coordination.retry_job(receipt, delay))
            return
        reason = f"{type(error).__name__}: {error}"
        played = False
        with contextlib.suppress(Aborted):
            played = await play_fallback(m, delivery.job, delivery.attempt, reason)
        if not played:  # the match moved on meanwhile: nothing to play
            log.warning(
                "bot turn %s failed %d times and was given up (%s); the match moved on",
                delivery.job,
                delivery.attempt,
                reason,
            )
        await settle(lambda: coordination.dead_letter(receipt, reason))
        return
    await settle(lambda: coordination.ack_job(receipt))


async def settle(step: Callable[[], Awaitable[None]]) -> None:
    """Settles a job, waiting out a store that is briefly unreachable (the
    job's lease is renewed meanwhile): a job left unsettled is delivered
    again once its lease lapses, only to be found played or to play again."""
    for attempt in range(SETTLE_TRIES):
        try:
            await step()
            return
        except Unavailable:
            if attempt == SETTLE_TRIES - 1:
                raise
            await asyncio.sleep(min(2.0, 0.1 * 2**attempt))


async def paced_turn(m: Matches, pool: AIPool, delivery: Delivery) -> None:
    """A paced turn, in a task of its own so that its wait holds up no
    runner; cut short by a shutdown, it hands its job back at once."""
    try:
        await handle(m, pool, delivery)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            await m.coordination.retry_job(delivery.receipt, 0.0)
        raise


async def run_bot_turns(m: Matches, pool: AIPool, stop: asyncio.Event) -> None:
    """Takes bot jobs until ``stop`` is set. A turn that must wait for its
    match's pace (``paced_until``) is played by a task of its own while the
    runner takes the next job."""
    paced: set[asyncio.Task[None]] = set()

    async def take_one() -> None:
        delivery = await m.coordination.pull_job(timeout=0.2)
        if delivery is None:
            return
        data = delivery.data
        if data is not None and paced_until(data, delivery.job) > m.now_ms():
            task = asyncio.create_task(paced_turn(m, pool, delivery), name="paced bot turn")
            paced.add(task)
            task.add_done_callback(paced.discard)
            return
        await handle(m, pool, delivery)

    try:
        await keep_running("bot runner", take_one, stop)
    finally:
        for task in list(paced):
            task.cancel()
        await asyncio.gather(*paced, return_exceptions=True)
