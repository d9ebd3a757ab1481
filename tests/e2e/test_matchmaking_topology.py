"""Matchmaker replicas as separate ``meeple serve matchmaking`` processes on
one real redis-server: thousands of tickets through both, and a replica
killed mid-run. The final records must show every ticket assigned exactly
once: each player in one match, each match with exactly its table."""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack

import grpc
import pytest
import redis
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import matchmaking_service_pb2 as mm
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc

from tests.e2e.processes import Meeple
from tests.redis_servers import RedisServer

pytestmark = pytest.mark.slow
TICKET = "meeple-ticket-token"
QUEUES = [
    pb.GameConfig(kind=pb.GAME_KIND_OTHELLO),
    pb.GameConfig(kind=pb.GAME_KIND_VOLLEYBALL),
    pb.GameConfig(kind=pb.GAME_KIND_VOLTA),
    pb.GameConfig(kind=pb.GAME_KIND_ROLIT),
]


@pytest.fixture
def replicas(redis_server: RedisServer) -> Iterator[list[Meeple]]:
    redis_server.flush()
    env = {"MEEPLE_LOG_LEVEL": "WARNING", "MEEPLE_RATE_PER_SECOND": "off"}
    env["MEEPLE_MATCHES_PER_MINUTE"] = "100000"
    with ExitStack() as stack:
        processes = []
        for _ in range(2):
            process = Meeple(
                "serve", "matchmaking", "--port", "0", "--metrics-port", "0",
                "--redis", redis_server.url, env=env,
            )  # fmt: skip
            stack.callback(process.kill)
            processes.append(process)
        yield processes


def stubs_of(replicas: list[Meeple]) -> list[mm_grpc.MatchmakingServiceStub]:
    return [mm_grpc.MatchmakingServiceStub(grpc.insecure_channel(p.address)) for p in replicas]


def create_tickets(
    stubs: list[mm_grpc.MatchmakingServiceStub], count: int, threads: int = 8
) -> list[mm.CreateTicketResponse]:
    """``count`` tickets of single players, spread over the replicas and the
    queues (Rolit tickets take tables of 2 only, so every queue pairs up)."""
    created: list[mm.CreateTicketResponse] = []
    lock = threading.Lock()

    def work(offset: int) -> None:
        for index in range(offset, count, threads):
            config = QUEUES[index % len(QUEUES)]
            request = mm.CreateTicketRequest(
                config=config,
                player_ids=[f"p{index}"],
                seat_counts=[2],
                # A retry on the other replica after a lost answer (the
                # killed one may have stored the ticket) gets the same ticket.
                request_id=f"ticket-{index:06d}-of-this-run",
            )
            answer = call(stubs, index, lambda s, r=request: s.CreateTicket(r))
            with lock:
                created.append(answer)

    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return created


def call(stubs: list[mm_grpc.MatchmakingServiceStub], index: int, rpc: object) -> object:
    """The call on the replica ``index`` picks, or the next one if it is down."""
    for attempt in range(len(stubs) * 3):
        try:
            return rpc(stubs[(index + attempt) % len(stubs)])  # type: ignore[operator]
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            if attempt % len(stubs) == len(stubs) - 1:
                time.sleep(0.1)  # every replica failed: wait a little
    raise AssertionError("no replica answered")


def outcomes(
    stubs: list[mm_grpc.MatchmakingServiceStub], created: list[mm.CreateTicketResponse]
) -> list[mm.WatchTicketResponse]:
    """Each ticket's last event, watched through either replica."""
    last = []
    for index, ticket in enumerate(created):
        request = mm.WatchTicketRequest(ticket_id=ticket.ticket.ticket_id)
        metadata = [(TICKET, ticket.ticket_token)]
        events = call(
            stubs,
            index,
            lambda s, r=request, m=metadata: list(s.WatchTicket(r, metadata=m, timeout=30)),
        )
        last.append(events[-1])  # type: ignore[index]
    return last


def check_once(created: list[mm.CreateTicketResponse], last: list[mm.WatchTicketResponse]) -> None:
    """Every ticket assigned; every player in exactly one match; every match
    holding exactly two tickets' players, in distinct seats."""
    assert all(event.HasField("assigned") for event in last), collections.Counter(
        event.WhichOneof("event") for event in last
    )
    players = collections.Counter(s.player_id for e in last for s in e.assigned.seats)
    assert set(players.values()) == {1}
    assert len(players) == len(created)
    tables = collections.defaultdict(list)
    for event in last:
        tables[event.assigned.match_id].extend(s.seat for s in event.assigned.seats)
    assert all(sorted(seats) == [0, 1] for seats in tables.values())
    assert len(tables) == len(created) // 2


def test_two_matchmakers_assign_2000_tickets_once_each(replicas: list[Meeple]) -> None:
    stubs = stubs_of(replicas)
    created = create_tickets(stubs, 2000)
    last = outcomes(stubs, created)
    check_once(created, last)


def test_a_matchmaker_killed_mid_run_loses_no_ticket(
    redis_server: RedisServer, replicas: list[Meeple]
) -> None:
    stubs = stubs_of(replicas)
    created: list[mm.CreateTicketResponse] = []
    creator = threading.Thread(target=lambda: created.extend(create_tickets(stubs, 600, 4)))
    creator.start()
    time.sleep(0.5)
    replicas[0].kill()  # kill -9, leases and claims and all
    creator.join(timeout=120)
    # A CreateTicket whose answer died with the replica was retried on the
    # other with its request_id: no party is queued twice.
    with redis.Redis.from_url(redis_server.url) as store:
        stored = [k for k in store.scan_iter("{q:*}:t:*") if not k.endswith(b":x")]
    assert len(stored) == len(created) == 600
    last = outcomes(stubs, created)
    check_once(created, last)
    # The matches exist in the shared store, as any match service sees them.
    match = Meeple(
        "serve", "match", "--port", "0", "--metrics-port", "0", "--redis", redis_server.url,
        env={"MEEPLE_LOG_LEVEL": "WARNING"},
    )  # fmt: skip
    try:
        with grpc.insecure_channel(match.address) as channel:
            got = ms_grpc.MatchServiceStub(channel).GetMatch(
                ms.GetMatchRequest(match_id=last[0].assigned.match_id)
            )
        assert got.match.status == ms.MATCH_STATUS_PLAYING
        assert all(seat.joined for seat in got.match.seats)
    finally:
        match.kill()
