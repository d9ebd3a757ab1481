"""The archive's exactly-once write under a crash: a ``meeple up`` replica
on a real redis-server and a real PostgreSQL takes finished matches from
the outbox, cannot write them (the test holds a lock on the archive's
table), and is killed with SIGKILL holding some (the others wait in the
outbox, untaken). A second replica, started afterwards on the same Redis
and database, archives every one of those matches, once, and the outbox
ends empty."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import asyncpg
import grpc
import pytest
import redis
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc

from services.archive.database import upgrade
from services.coordination.redis_outbox import ARCHIVERS, STREAMS
from tests.e2e.processes import Meeple
from tests.postgres_servers import PostgresServer
from tests.redis_servers import RedisServer

pytestmark = pytest.mark.slow

MATCHES = 6
BOT = ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec="random")
OTHELLO = pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)


class TableLock:
    """An ACCESS EXCLUSIVE lock on a table, held by a transaction of its own
    (on a thread with its own event loop) until ``release``."""

    def __init__(self, dsn: str, table: str) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._connection = self._run(asyncpg.connect(dsn))
        self._run(self._connection.execute(f"BEGIN; LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE"))

    def _run(self, coroutine: object) -> object:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(10)  # type: ignore[arg-type]

    def release(self) -> None:
        if self._connection is not None:
            self._run(self._connection.execute("ROLLBACK"))
            self._run(self._connection.close())
            self._connection = None
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)


def replica(stack: ExitStack, redis_url: str, database_url: str, home: Path) -> Meeple:
    env = {
        "MEEPLE_LOG_LEVEL": "WARNING",
        "MEEPLE_AUTH": "off",
        "MEEPLE_RATE_PER_SECOND": "off",
        "MEEPLE_DATABASE_URL": database_url,
        # Outbox entries a dead replica held come back after this long.
        "MEEPLE_BOT_VISIBILITY_TIMEOUT": "2",
        "HOME": str(home),
    }
    args = ("up", "--port", "0", "--web-port", "0", "--metrics-port", "0", "--redis", redis_url)
    process = Meeple(*args, env=env)
    stack.callback(process.kill)
    return process


def play(address: str) -> list[str]:
    """MATCHES random-bot Othello matches played to their end; their ids."""
    with grpc.insecure_channel(address) as channel:
        stub = ms_grpc.MatchServiceStub(channel)
        ids = []
        for _ in range(MATCHES):
            request = ms.CreateMatchRequest(config=OTHELLO, seats=[BOT, BOT])
            ids.append(stub.CreateMatch(request, timeout=10).match.match_id)
        for match_id in ids:
            events = stub.WatchMatch(ms.WatchMatchRequest(match_id=match_id), timeout=60)
            assert any(event.HasField("ended") for event in events)
        return ids


def pending(client: redis.Redis) -> int:
    """Outbox entries some archiver holds."""
    return sum(int(client.xpending(stream, ARCHIVERS)["pending"]) for stream in STREAMS)


def queued(client: redis.Redis) -> int:
    """Outbox entries not yet acknowledged."""
    return sum(int(client.xlen(stream)) for stream in STREAMS)


def archived(dsn: str) -> list[tuple[str, int, int]]:
    async def read() -> list[tuple[str, int, int]]:
        connection = await asyncpg.connect(dsn)
        try:
            rows = await connection.fetch(
                "SELECT m.match_id, m.plies, count(s.seat) FROM matches m "
                "JOIN match_seats s ON s.match_id = m.match_id GROUP BY m.match_id, m.plies"
            )
        finally:
            await connection.close()
        return [(row[0], row[1], row[2]) for row in rows]

    return asyncio.run(read())


@pytest.fixture
def database(postgres_server: PostgresServer) -> Iterator[str]:
    with postgres_server.database() as url:
        upgrade(url)  # as a deployment's `meeple archive migrate` does
        yield url


def test_a_replica_killed_holding_finished_matches_loses_none(
    redis_server: RedisServer, database: str, tmp_path: Path
) -> None:
    redis_server.flush()
    client = redis.Redis.from_url(redis_server.url)
    lock = TableLock(database, "matches")
    try:
        with ExitStack() as stack:
            first = replica(stack, redis_server.url, database, tmp_path)
            ids = play(first.address)
            # Every finished match is in the outbox, and the replica holds
            # the ones it took (its write blocked by the lock: it takes no
            # more meanwhile).
            deadline = time.monotonic() + 10
            while not (queued(client) == MATCHES and pending(client)):
                assert time.monotonic() < deadline, (queued(client), pending(client))
                time.sleep(0.05)
            first.kill()
    finally:
        lock.release()
    assert archived(database) == []
    with ExitStack() as stack:
        second = replica(stack, redis_server.url, database, tmp_path)
        deadline = time.monotonic() + 20
        while len(archived(database)) < MATCHES and time.monotonic() < deadline:
            time.sleep(0.1)
        rows = archived(database)
        assert sorted(match_id for match_id, _, _ in rows) == sorted(ids)
        with grpc.insecure_channel(second.address) as channel:
            stub = ms_grpc.MatchServiceStub(channel)
            for match_id, plies, seats in rows:
                live = stub.GetMatch(ms.GetMatchRequest(match_id=match_id), timeout=10)
                assert (plies, seats) == (live.match.view.ply, 2)
        deadline = time.monotonic() + 5
        while queued(client) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert queued(client) == 0  # acknowledged and deleted
