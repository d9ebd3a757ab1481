"""Matchmaker replicas as separate ``meeple serve matchmaking`` processes on
one real redis-server: thousands of tickets through both, and a replica
killed mid-run. The final records must show every ticket assigned exactly
once: each player in one match, each match with exactly its table.

A ticket is paired only while it is watched, so each ticket is watched from
its creation on, all at once (as its player would), over asyncio channels;
a watch whose replica died is opened again on the other.

Each ticket is its own player's: thousands of guests are signed in up
front on a ``meeple serve auth`` process of the same Redis (its sign-in
limit raised), and each creates its ticket with its own token."""

from __future__ import annotations

import asyncio
import collections
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

import grpc
import pytest
import redis
from meeple.v1 import auth_service_pb2 as auth
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import matchmaking_service_pb2 as mm
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc

from tests.e2e.processes import Meeple, auth_server
from tests.identities import bearer, guest_sessions
from tests.redis_servers import RedisServer

pytestmark = pytest.mark.slow
TICKET = "meeple-ticket-token"
QUEUES = [
    pb.GameConfig(kind=pb.GAME_KIND_OTHELLO),
    pb.GameConfig(kind=pb.GAME_KIND_VOLLEYBALL),
    pb.GameConfig(kind=pb.GAME_KIND_VOLTA),
    pb.GameConfig(kind=pb.GAME_KIND_ROLIT),
]


# One address makes every call here: the limits per address (calls a
# second, open watches; sign-ins, in auth_server) are lifted. Those per
# player (tickets, open tickets, matches) stay as they are: each ticket is
# its own player's.
ENV = {"MEEPLE_LOG_LEVEL": "WARNING", "MEEPLE_RATE_PER_SECOND": "off"}


@pytest.fixture
def replicas(redis_server: RedisServer) -> Iterator[list[Meeple]]:
    redis_server.flush()
    env = {**ENV, "MEEPLE_WATCH_STREAMS": "100000"}
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


@pytest.fixture
def entry(redis_server: RedisServer, replicas: list[Meeple]) -> Iterator[grpc.Channel]:
    """A channel to the auth process that signs the players in (started
    after the replicas' flush: the signing key it shares is in Redis)."""
    process = auth_server(redis_server.url, ENV)
    try:
        with grpc.insecure_channel(process.address) as channel:
            yield channel
    finally:
        process.kill()


def stubs_of(replicas: list[Meeple]) -> list[mm_grpc.MatchmakingServiceStub]:
    return [mm_grpc.MatchmakingServiceStub(grpc.insecure_channel(p.address)) for p in replicas]


Outcome = tuple[mm.CreateTicketResponse, mm.WatchTicketResponse]
if TYPE_CHECKING:  # the stub over an asyncio channel (a type of the .pyi only)
    AsyncStub = mm_grpc.MatchmakingServiceAsyncStub


def run_tickets(
    replicas: list[Meeple], players: list[auth.Session], creators: int = 8
) -> list[Outcome]:
    """A ticket of each player, alone, created with its own token, spread
    over the replicas and the queues (Rolit tickets take tables of 2 only,
    so every queue pairs up), at most ``creators`` created at a time, each
    watched from its creation to its end: each ticket's creation and its
    last event."""

    async def run() -> list[Outcome]:
        channels = [grpc.aio.insecure_channel(replica.address) for replica in replicas]
        stubs: list[AsyncStub] = [mm_grpc.MatchmakingServiceStub(c) for c in channels]
        creating = asyncio.Semaphore(creators)

        async def one(index: int) -> Outcome:
            player = players[index]
            request = mm.CreateTicketRequest(
                config=QUEUES[index % len(QUEUES)],
                # The caller's ticket: player_ids empty stands for it, or names it.
                player_ids=[player.identity.player_id] if index % 2 else [],
                seat_counts=[2],
                # A retry on the other replica after a lost answer (the
                # killed one may have stored the ticket) gets the same ticket.
                request_id=f"ticket-{index:06d}-of-this-run",
            )
            async with creating:
                created = await call_async(
                    stubs,
                    index,
                    lambda stub: stub.CreateTicket(
                        request, metadata=bearer(player.access_token), timeout=30
                    ),
                )
            return created, await watch_async(stubs, index, created)

        try:
            return list(await asyncio.gather(*(one(index) for index in range(len(players)))))
        finally:
            for channel in channels:
                await channel.close()

    return asyncio.run(run())


async def call_async(
    stubs: list[AsyncStub],
    index: int,
    rpc: Callable[[AsyncStub], Awaitable[Any]],
) -> Any:
    """The call on the replica ``index`` picks, or the next one if it is down."""
    for attempt in range(len(stubs) * 3):
        try:
            return await rpc(stubs[(index + attempt) % len(stubs)])
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            if attempt % len(stubs) == len(stubs) - 1:
                await asyncio.sleep(0.1)  # every replica failed: wait a little
    raise AssertionError("no replica answered")


async def watch_async(
    stubs: list[AsyncStub], index: int, ticket: mm.CreateTicketResponse
) -> mm.WatchTicketResponse:
    """The ticket's last event, its watch opened again on the other replica
    when its replica goes down."""
    request = mm.WatchTicketRequest(ticket_id=ticket.ticket.ticket_id)
    metadata = ((TICKET, ticket.ticket_token),)

    async def last(stub: AsyncStub) -> mm.WatchTicketResponse:
        events = [event async for event in stub.WatchTicket(request, metadata=metadata, timeout=60)]
        return events[-1]

    result: mm.WatchTicketResponse = await call_async(stubs, index, last)
    return result


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
    """Each ticket's last event, watched through either replica; the tickets
    watched at once, a thread each (for a few tickets: ``run_tickets``
    watches thousands)."""

    def last(index: int) -> mm.WatchTicketResponse:
        ticket = created[index]
        request = mm.WatchTicketRequest(ticket_id=ticket.ticket.ticket_id)
        metadata = [(TICKET, ticket.ticket_token)]
        events = call(
            stubs,
            index,
            lambda s, r=request, m=metadata: list(s.WatchTicket(r, metadata=m, timeout=30)),
        )
        return events[-1]  # type: ignore[index,no-any-return]

    with ThreadPoolExecutor(max(1, len(created))) as pool:
        return list(pool.map(last, range(len(created))))


def check_once(
    created: list[mm.CreateTicketResponse],
    last: list[mm.WatchTicketResponse],
    players: list[auth.Session],
) -> None:
    """Every ticket assigned; every player (the tickets' signed-in
    ``players``) in exactly one match; every match holding exactly two
    tickets' players, in distinct seats."""
    assert all(event.HasField("assigned") for event in last), collections.Counter(
        event.WhichOneof("event") for event in last
    )
    seated = collections.Counter(s.player_id for e in last for s in e.assigned.seats)
    assert set(seated.values()) == {1}
    assert len(seated) == len(created)
    assert set(seated) == {player.identity.player_id for player in players}
    assert [list(c.ticket.player_ids) for c in created] == [
        [player.identity.player_id] for player in players
    ]
    tables = collections.defaultdict(list)
    for event in last:
        tables[event.assigned.match_id].extend(s.seat for s in event.assigned.seats)
    assert all(sorted(seats) == [0, 1] for seats in tables.values())
    assert len(tables) == len(created) // 2


def test_two_matchmakers_assign_2000_tickets_once_each(
    replicas: list[Meeple], entry: grpc.Channel
) -> None:
    players = guest_sessions(entry, 2000)
    done = run_tickets(replicas, players)
    check_once([created for created, _ in done], [last for _, last in done], players)


def test_a_matchmaker_killed_mid_run_loses_no_ticket(
    redis_server: RedisServer, replicas: list[Meeple], entry: grpc.Channel
) -> None:
    players = guest_sessions(entry, 600)
    done: list[Outcome] = []
    runner = threading.Thread(target=lambda: done.extend(run_tickets(replicas, players, 4)))
    runner.start()
    time.sleep(0.5)
    replicas[0].kill()  # kill -9, leases and claims and all
    runner.join(timeout=180)
    assert not runner.is_alive(), "the tickets did not all end"
    created = [ticket for ticket, _ in done]
    # A CreateTicket whose answer died with the replica was retried on the
    # other with its request_id: no party is queued twice.
    with redis.Redis.from_url(redis_server.url) as store:
        stored = [k for k in store.scan_iter("{q:*}:t:*") if not k.endswith(b":x")]
    assert len(stored) == len(created) == 600
    last = [event for _, event in done]
    check_once(created, last, players)
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
        # Its seats hold the players whose tickets sat at its table.
        table = {
            (seat.seat, seat.player_id)
            for event in last
            if event.assigned.match_id == last[0].assigned.match_id
            for seat in event.assigned.seats
        }
        assert {(seat.index, seat.player_id) for seat in got.match.seats} == table
    finally:
        match.kill()
