"""A Redis that comes back empty (restarted without persistence; FLUSHALL
here) under running ``meeple`` processes: the workers and the raters make
their consumer groups again, saying so in one warning line, and the
matchmakers take their leases again with fencing tokens above every one
issued before; new matches are played and new tickets assigned within
seconds, a ticket that was lost ends its watch, and nobody prints a
traceback. The players' identities (guests signed in on a ``meeple serve
auth`` process of the same Redis) outlive the loss: the processes keep the
signing key they share, so tokens from before it still work, and so do
those of players signed in after it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import grpc
import pytest
import redis as redis_py
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import matchmaking_service_pb2 as mm
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc

from tests.e2e.processes import Meeple, auth_server
from tests.e2e.test_matchmaking_topology import TICKET, check_once, outcomes, stubs_of
from tests.e2e.test_redis_topology import Topology, check_records, create_bot_matches
from tests.identities import bearer, guest_sessions
from tests.redis_servers import RedisServer

pytestmark = pytest.mark.slow

RECREATED = "recreated the consumer group"
SECONDS_AFTER_EMPTY = 10.0  # "a few seconds", on a busy 2-core machine
OTHELLO = pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)
VOLTA = pb.GameConfig(kind=pb.GAME_KIND_VOLTA)


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A redis-server of this test's own, without persistence."""
    server = RedisServer(tmp_path / "redis")
    yield server
    server.stop()


def tracebacks(processes: list[Meeple]) -> str:
    """The output of each process that printed a traceback ("" if none did)."""
    return "\n".join(
        f"--- meeple {' '.join(p.args[:2])} (pid {p.pid}):\n{p.output()}"
        for p in processes
        if any("Traceback" in line for line in p.lines)
    )


def until(done: Callable[[], bool], processes: list[Meeple], seconds: float, what: str) -> None:
    """Waits for ``done()``; fails at once when a process prints a traceback
    (its cause, rather than a timeout), or after ``seconds`` with the outputs."""
    deadline = time.monotonic() + seconds
    while not done():
        printed = tracebacks(processes)
        assert not printed, f"waiting for {what}, a process printed a traceback:\n{printed}"
        if time.monotonic() > deadline:
            outputs = "\n".join(
                f"--- meeple {' '.join(p.args[:2])}:\n{p.output()}" for p in processes
            )
            raise AssertionError(f"no {what} within {seconds} s:\n{outputs}")
        time.sleep(0.1)


def recreations(processes: list[Meeple]) -> list[str]:
    return [line for p in processes for line in p.lines if RECREATED in line]


def finished(stub: object, ids: list[str], into: dict[str, ms.GetMatchResponse]) -> bool:
    """Whether every match is finished (those found so far go into ``into``)."""
    for match_id in ids:
        if match_id not in into:
            got = stub.GetMatch(ms.GetMatchRequest(match_id=match_id))  # type: ignore[attr-defined]
            if got.match.status == ms.MATCH_STATUS_FINISHED:
                into[match_id] = got
    return len(into) == len(ids)


def empty(redis: RedisServer, how: str) -> None:
    """FLUSHALL, or a restart of a redis-server that persists nothing."""
    if how == "flushall":
        redis.flush()
    else:
        redis.stop()
        redis.start()


@pytest.mark.parametrize("how", ["flushall", "restart"])
def test_workers_play_new_matches_after_redis_comes_back_empty(
    redis: RedisServer, how: str
) -> None:
    with ExitStack() as stack:
        world = Topology(stack, redis.url).start(replicas=1, workers=1)
        stubs = [world.stub(0)]
        processes = world.processes
        assert world.player  # signed in before Redis empties; creates every match
        before = create_bot_matches(stubs, 4)
        done: dict[str, ms.GetMatchResponse] = {}
        until(lambda: finished(stubs[0], before, done), processes, 60, "finished matches")
        assert not recreations(processes)

        empty(redis, how)
        # A worker pulls every 0.2 s at most: it meets the missing group at once.
        until(lambda: bool(recreations(world.workers)), processes, 5, "warning from the worker")
        after = create_bot_matches(stubs, 4)
        done = {}
        until(lambda: finished(stubs[0], after, done), processes, SECONDS_AFTER_EMPTY, "end")
        check_records(stubs, done)
        time.sleep(1.0)  # a second warning, were one to come, would be here by now
        assert not tracebacks(processes)
        assert len(recreations(world.workers)) == 1, world.workers[0].output()
        assert not recreations(world.replicas)


def ticket_request(config: pb.GameConfig = OTHELLO) -> mm.CreateTicketRequest:
    """A ticket of its caller alone (player_ids empty stands for the caller)."""
    return mm.CreateTicketRequest(config=config, seat_counts=[2])


def fences(url: str) -> dict[bytes, int]:
    """Each queue's fencing counter as Redis holds it."""
    with redis_py.Redis.from_url(url) as store:
        return {key: int(store.get(key) or 0) for key in store.scan_iter("{q:*}:fence")}


class Watcher(threading.Thread):
    """Watches one ticket to its end; ``code`` is how the watch ended."""

    def __init__(self, stub: mm_grpc.MatchmakingServiceStub, ticket: mm.CreateTicketResponse):
        super().__init__(daemon=True)
        self.stub, self.ticket = stub, ticket
        self.code: grpc.StatusCode | None = None
        self.ended_at = 0.0

    def run(self) -> None:
        request = mm.WatchTicketRequest(ticket_id=self.ticket.ticket.ticket_id)
        metadata = [(TICKET, self.ticket.ticket_token)]
        try:
            for _ in self.stub.WatchTicket(request, metadata=metadata, timeout=60):
                pass
            self.code = grpc.StatusCode.OK
        except grpc.RpcError as error:
            self.code = error.code()
        self.ended_at = time.monotonic()


def test_matchmakers_assign_new_tickets_after_redis_comes_back_empty(redis: RedisServer) -> None:
    env = {
        "MEEPLE_LOG_LEVEL": "WARNING",
        "MEEPLE_RATE_PER_SECOND": "off",
        "MEEPLE_MATCHES_PER_MINUTE": "100000",
        "MEEPLE_TICKET_HEARTBEAT_TIMEOUT": "3",  # a watch beats every second
    }
    with ExitStack() as stack:
        replicas = []
        for _ in range(2):
            replica = Meeple(
                "serve", "matchmaking", "--port", "0", "--metrics-port", "0",
                "--redis", redis.url, env=env,
            )  # fmt: skip
            stack.callback(replica.kill)
            replicas.append(replica)
        entry = auth_server(redis.url, env)
        stack.callback(entry.kill)
        processes = [*replicas, entry]
        stubs = stubs_of(replicas)
        signing_in = grpc.insecure_channel(entry.address)
        stack.callback(signing_in.close)
        # Half the second wave's players sign in before Redis empties, half after.
        a, b_before, [alone] = (guest_sessions(signing_in, n, name) for n, name in
                                ((8, "a"), (4, "b"), (1, "lonely")))  # fmt: skip
        first = [
            stubs[i % 2].CreateTicket(ticket_request(), metadata=bearer(p.access_token))
            for i, p in enumerate(a)
        ]
        check_once(first, outcomes(stubs, first), a)
        # A ticket nobody pairs, watched while Redis loses it.
        lonely_ticket = stubs[0].CreateTicket(
            ticket_request(VOLTA), metadata=bearer(alone.access_token)
        )
        lonely = Watcher(stubs[0], lonely_ticket)
        lonely.start()
        time.sleep(0.5)
        issued = fences(redis.url)
        assert issued, "no fencing counter in Redis"

        redis.flush()
        flushed_at = time.monotonic()
        until(lambda: bool(recreations(replicas)), processes, 5, "warning from a rater")
        began = time.monotonic()
        b = b_before + guest_sessions(signing_in, 4, "b after")
        second = [
            stubs[i % 2].CreateTicket(ticket_request(), metadata=bearer(p.access_token))
            for i, p in enumerate(b)
        ]
        last = outcomes(stubs, second)
        took = time.monotonic() - began
        check_once(second, last, b)
        assert took < SECONDS_AFTER_EMPTY, f"the tickets took {took:.1f} s"
        # Tokens never go back: a pass that took its lease before the flush
        # (and stalled) is fenced off from every claim after it.
        now = fences(redis.url)
        assert now, "no fencing counter after the flush"
        assert min(now.values()) > max(issued.values()), (issued, now)
        lonely.join(timeout=SECONDS_AFTER_EMPTY)
        assert lonely.code == grpc.StatusCode.NOT_FOUND, lonely.code
        assert lonely.ended_at - flushed_at < SECONDS_AFTER_EMPTY
        time.sleep(1.0)
        assert not tracebacks(processes)
        assert len(recreations(replicas)) == 1, "\n".join(recreations(replicas))
