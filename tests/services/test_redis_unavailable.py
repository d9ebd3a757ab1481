"""Every failure of the Redis connection or of a Cluster's topology answers
UNAVAILABLE (which clients retry), never INTERNAL: each error redis-py
raises for one, and a real Cluster master restarted while clients play."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

import grpc
import pytest
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from redis.exceptions import (
    AskError,
    AuthenticationError,
    BusyLoadingError,
    ClusterCrossSlotError,
    ClusterDownError,
    ClusterError,
    DataError,
    MasterDownError,
    MovedError,
    ReadOnlyError,
    RedisClusterException,
    ResponseError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.convert import action_to_proto
from services.coordination import Delivery
from services.coordination.redis import RedisCoordination
from services.coordination.redis_client import unavailable_on_connection_errors
from services.coordination.shards import jobs_key
from services.errors import Aborted, Unavailable, status_of
from services.match_service import bots, logic
from services.match_service.logic import Matches
from tests.redis_servers import RedisCluster

T = TypeVar("T")

CONNECTION_LEVEL = [
    RedisConnectionError("Error 111 connecting to 127.0.0.1:7000. Connection refused."),
    RedisConnectionError("Connection closed by server."),
    RedisTimeoutError("Timeout reading from socket"),
    BusyLoadingError("Redis is loading the dataset in memory"),
    ClusterDownError("The cluster is down"),
    MasterDownError("Link with MASTER is down and replica-serve-stale-data is set to 'no'."),
    TryAgainError("Multiple keys request during rehashing of slot"),
    MovedError("3999 127.0.0.1:6381"),
    AskError("3999 127.0.0.1:6381"),
    ClusterError("TTL exhausted."),
    SlotNotCoveredError('Slot "3999" is not covered by the cluster.'),
    RedisClusterException("Redis Cluster cannot be connected. Please provide at least one..."),
    ReadOnlyError("You can't write against a read only replica."),
    AuthenticationError("invalid username-password pair"),  # a reconnection refused
    ConnectionResetError(104, "Connection reset by peer"),
    TimeoutError(),
]


@pytest.mark.parametrize("error", CONNECTION_LEVEL, ids=lambda e: type(e).__name__)
def test_each_connection_level_error_is_unavailable(error: BaseException) -> None:
    @unavailable_on_connection_errors
    async def command() -> None:
        raise error

    with pytest.raises(Unavailable) as raised:
        asyncio.run(command())
    assert status_of(raised.value) == grpc.StatusCode.UNAVAILABLE
    assert type(error).__name__ in str(raised.value)


def test_a_connection_torn_down_inside_redis_py_is_unavailable() -> None:
    """The AttributeError redis-py raises writing to a connection that its
    Cluster client closed under the command (``_writer`` set to None)."""
    from redis.asyncio.connection import Connection

    @unavailable_on_connection_errors
    async def command() -> None:
        connection = Connection()  # never connected: no writer, as after a disconnect
        await connection._send_packed_command([b"PING\r\n"])

    with pytest.raises(Unavailable, match="writelines"):
        asyncio.run(command())


class NotOurs(Exception):
    pass


@pytest.mark.parametrize(
    "error",
    [
        ResponseError("WRONGTYPE Operation against a key holding the wrong kind of value"),
        ClusterCrossSlotError("Keys in request don't hash to the same slot"),
        RedisClusterException("No way to dispatch this command to Redis Cluster. Missing key."),
        DataError("Invalid input of type: 'NoneType'."),
        NotOurs("a bug"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_other_errors_stay_what_they_are(error: BaseException) -> None:
    """A command Redis refuses, or a bug, is not retried by clients forever."""

    @unavailable_on_connection_errors
    async def command() -> None:
        raise error

    with pytest.raises(type(error)):
        asyncio.run(command())


def test_an_attribute_error_of_our_own_code_stays_a_bug() -> None:
    @unavailable_on_connection_errors
    async def command() -> None:
        nothing = None
        nothing.writelines([])  # type: ignore[attr-defined]

    with pytest.raises(AttributeError):
        asyncio.run(command())


# --- a real Cluster master restarted while clients play ---------------------------------

HUMAN_VS_BOT = ms.CreateMatchRequest(
    config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO),
    seats=[
        ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN),
        ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec="random"),
    ],
)
CLIENTS = 12
RETRY_SECONDS = 30.0


class Run:
    """What the clients saw: each answer that was neither an answer nor
    UNAVAILABLE nor ABORTED (what a server answers INTERNAL), and how many
    UNAVAILABLE answers they retried."""

    def __init__(self) -> None:
        self.internal: list[str] = []
        self.unavailable = 0
        self.stop = asyncio.Event()

    async def retried(self, call: Callable[[], Awaitable[T]]) -> T:
        """``call()``, retried with backoff while it answers UNAVAILABLE, as
        the README advises clients; any other unexpected error ends the run."""
        deadline = time.monotonic() + RETRY_SECONDS
        attempt = 0
        while True:
            try:
                return await call()
            except Aborted:
                raise
            except Exception as error:
                if status_of(error) != grpc.StatusCode.UNAVAILABLE:
                    self.internal.append(f"{type(error).__name__}: {error}")
                    self.stop.set()
                    raise
                self.unavailable += 1
                if time.monotonic() > deadline:
                    raise
            attempt += 1
            await asyncio.sleep(min(0.5, 0.01 * 2**attempt))


async def play_human(
    m: Matches, run: Run, match_id: str, token: str, seed: int
) -> list[tuple[int, bytes]]:
    """Plays seat 0 with random legal moves until the run stops (or the
    match ends); each submission seen acknowledged, by ply."""
    rng = random.Random(seed)
    acknowledged: list[tuple[int, bytes]] = []
    while not run.stop.is_set():
        got = await run.retried(lambda: logic.get_match(m, match_id))
        if got.match.status == ms.MATCH_STATUS_FINISHED:
            break
        view = got.match.view
        if not (view.HasField("seat_to_act") and view.seat_to_act == 0):
            await asyncio.sleep(0.005)
            continue
        data = await run.retried(lambda: logic.load(m, match_id))
        state = await m.states.state(data)
        action = action_to_proto(state, rng.choice(state.legal_actions())).action
        try:  # the same submission again after UNAVAILABLE: it gets its first answer
            submit = partial(logic.submit_action, m, match_id, None, token, view.ply, [action])
            await run.retried(submit)
        except Aborted:
            continue
        acknowledged.append((view.ply, action.SerializeToString()))
    return acknowledged


async def play_bots(m: Matches, run: Run, seed: int) -> None:
    """A bot runner playing random legal moves (no AI pool)."""
    rng = random.Random(seed)
    store = m.coordination
    while not run.stop.is_set():
        with contextlib.suppress(Exception):  # noted by ``retried``; the job comes back
            delivery = await run.retried(lambda: store.pull_job(0.1))
            if delivery is not None:
                await play_delivery(m, run, delivery, rng)
                # If the move did not acknowledge it (stale, or a lost race).
                await run.retried(partial(store.ack_job, delivery.receipt))


async def play_delivery(m: Matches, run: Run, delivery: Delivery, rng: random.Random) -> None:
    """Plays the delivery's turn if it is due, acknowledging it with the move."""
    job = delivery.job
    data = delivery.data or await run.retried(partial(m.coordination.load, job.match_id))
    if data is None or not bots.is_due(data, job):
        return
    state = await m.states.state(data)
    action = action_to_proto(state, rng.choice(state.legal_actions())).action

    async def move() -> object:  # each try starts again from the record
        return await logic.submit_action(
            m, job.match_id, job.seat, None, job.ply, [action], data.copy(), delivery.receipt
        )

    with contextlib.suppress(Aborted):  # also a retry of a move that was stored
        await run.retried(move)


def test_a_cluster_master_restart_answers_unavailable_and_loses_nothing(tmp_path: Path) -> None:
    """A master of a three-master Cluster (append-only, so it comes back
    with its data) restarts while 12 clients play bots: every call answers,
    or answers UNAVAILABLE and is retried; none fails otherwise (INTERNAL);
    every acknowledged move is in the final record, each ply once."""
    cluster = RedisCluster(tmp_path, appendonly=True)
    try:
        run = Run()
        asyncio.run(play_through_a_restart(cluster, run))
    finally:
        cluster.stop()


async def play_through_a_restart(cluster: RedisCluster, run: Run) -> None:
    store = RedisCoordination(cluster.url, visibility_timeout=1.0)
    await store.start()
    m = Matches(store)
    try:
        matches = []
        for _ in range(CLIENTS):
            match_id = (await logic.create_match(m, HUMAN_VS_BOT)).match.match_id
            joined = await logic.join_match(m, ms.JoinMatchRequest(match_id=match_id), None)
            matches.append((match_id, joined.seat_token))
        humans = [
            asyncio.create_task(play_human(m, run, match_id, token, seed))
            for seed, (match_id, token) in enumerate(matches)
        ]
        runners = [asyncio.create_task(play_bots(m, run, seed)) for seed in range(2)]
        await asyncio.sleep(1.0)
        # The master of the first job shard, and of about a third of the matches.
        await asyncio.to_thread(cluster.restart, cluster.node_of(jobs_key(0)), 0.5)
        await asyncio.to_thread(cluster.wait_ok)
        restarted = time.monotonic()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(run.stop.wait(), 2.0)  # play on a while
        run.stop.set()
        outcomes = await asyncio.gather(*humans, *runners, return_exceptions=True)
        assert run.internal == [], f"{len(run.internal)} calls failed: {run.internal[:5]}"
        assert run.unavailable > 0, "the restart went unnoticed: it tests nothing"
        assert time.monotonic() - restarted < RETRY_SECONDS
        for (match_id, _), acknowledged in zip(matches, outcomes[:CLIENTS], strict=True):
            assert isinstance(acknowledged, list), repr(acknowledged)
            await check_record(store, run, match_id, acknowledged)
    finally:
        await store.close()


async def check_record(
    store: RedisCoordination, run: Run, match_id: str, acknowledged: list[tuple[int, bytes]]
) -> None:
    """Each acknowledged move at its ply; the event stream holds each ply once, in order."""
    data = await run.retried(lambda: store.load(match_id))
    assert data is not None
    history = [pb.Action.FromString(raw) for raw in data.history]
    for ply, action in acknowledged:
        assert history[ply] == pb.Action.FromString(action), (match_id, ply)
    batch = await run.retried(lambda: store.read_events(match_id, 0))
    events = [ms.WatchMatchResponse.FromString(event.payload) for event in batch.events]
    played = [event for event in events if event.HasField("action")]
    assert [event.ply for event in played] == list(range(data.ply)), match_id
    assert [event.action.action.action for event in played] == history, match_id
