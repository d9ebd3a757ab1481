"""Issue 22, matchmaking: what one client may make the matchmaker do, and
what a ticket token is worth. A client is the caller's player when it sends
a token (identities on, the default), else its address (identities off).

- CreateTicket has a rate of its own per client; a client has a capped
  number of open tickets (held by the store, so across replicas on Redis);
  a matchmade match is charged to the match budget of each client whose
  ticket sits at its table, and a ticket whose client has spent it waits.
- Only watched tickets are paired: a ticket nobody watches (a ghost) never
  takes a real player's table.
- Tokens of tickets with a request_id are HMAC-SHA256 under a server secret,
  bound to the queue and the players; weak request ids are refused; the
  secret is never printed, and replicas on one Redis agree on it.

Through real gRPC on both stores where it matters, per player and per
address, and on the logic where the time or the client must be chosen.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest
import redis
from meeple.v1 import game_pb2 as pb
from meeple.v1 import matchmaking_service_pb2 as mm
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc

from services.coordination import MemoryCoordination
from services.coordination.matchmaking import Status
from services.limits import RateLimiter
from services.match_service.logic import Matches
from services.matchmaking import logic, passes
from services.matchmaking.logic import Matchmaker
from services.settings import Settings
from tests.services.conftest import Served

TICKET = "meeple-ticket-token"
OTHELLO = pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)
VOLTA = pb.GameConfig(kind=pb.GAME_KIND_VOLTA)
ROLIT = pb.GameConfig(kind=pb.GAME_KIND_ROLIT)
VOLLEYBALL = pb.GameConfig(kind=pb.GAME_KIND_VOLLEYBALL)
SECRET = "a-server-secret-of-this-deployment"
# The servers of these tests run no bots and no AI workers (nothing here
# plays), and no global rate limit beyond what a test sets.
LIGHT: dict[str, Any] = {"services": ("match", "matchmaking"), "bots": False}
# Identities off: the limits count the client's address (no token is sent).
OFF = "off"


def volta(n: int) -> pb.GameConfig:
    """The ``n``th of many Volta queues (each its own rider masses)."""
    options = pb.VoltaOptions(rider_masses_kg=[0.005 + n / 10_000, 0.0055])
    return pb.GameConfig(kind=pb.GAME_KIND_VOLTA, volta=options)


# --- servers -------------------------------------------------------------------------


@pytest.fixture(params=["memory", "redis"])
def start(request: pytest.FixtureRequest, serve: Callable[..., Served]) -> Callable[..., Served]:
    """``start(**settings)``: a server on the test's store; on Redis each
    call starts another replica on the same server."""
    url = None
    if request.param == "redis":
        server = request.getfixturevalue("redis_server")
        server.flush()
        url = server.url

    def one(**settings: Any) -> Served:
        settings.setdefault("rate_per_second", None)
        return serve(Settings(**settings), redis_url=url, **LIGHT)

    return one


@pytest.fixture
def replicas(redis_server: Any, serve: Callable[..., Served]) -> Callable[..., list[Served]]:
    """``replicas(n, **settings)``: ``n`` replicas on one redis-server."""
    redis_server.flush()

    def some(count: int, **settings: Any) -> list[Served]:
        settings.setdefault("rate_per_second", None)
        return [
            serve(Settings(**settings), redis_url=redis_server.url, **LIGHT) for _ in range(count)
        ]

    return some


def stub_of(served: Served) -> mm_grpc.MatchmakingServiceStub:
    """A stub that sends no token of its own (``create`` chooses)."""
    return mm_grpc.MatchmakingServiceStub(served.plain)


def create(
    served: Served, player: str, config: pb.GameConfig = OTHELLO, **fields: Any
) -> mm.CreateTicketResponse:
    """``player``'s ticket: created with its token (counted as that player),
    or with identities off named, with no token (counted as the address)."""
    if served.app.auth.enabled:
        request = mm.CreateTicketRequest(config=config, **fields)
        return stub_of(served).CreateTicket(request, metadata=served.bearer(player), timeout=10)
    request = mm.CreateTicketRequest(config=config, player_ids=[player], **fields)
    return stub_of(served).CreateTicket(request, timeout=10)


def refused(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details()


def watch(
    served: Served, created: mm.CreateTicketResponse, seconds: float = 15
) -> list[mm.WatchTicketResponse]:
    """The ticket's stream until it ends, or what came within ``seconds``."""
    request = mm.WatchTicketRequest(ticket_id=created.ticket.ticket_id)
    events: list[mm.WatchTicketResponse] = []
    metadata = [(TICKET, created.ticket_token)]
    stream = stub_of(served).WatchTicket(request, metadata=metadata, timeout=seconds)
    try:
        events.extend(stream)
    except grpc.RpcError as error:
        if error.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
            raise
    return events


def watch_all(
    served: Served, *created: mm.CreateTicketResponse, seconds: float = 15
) -> list[list[mm.WatchTicketResponse]]:
    with ThreadPoolExecutor(len(created)) as pool:
        return list(pool.map(lambda one: watch(served, one, seconds), created))


def events_of(streams: list[list[mm.WatchTicketResponse]]) -> list[list[str | None]]:
    return [[event.WhichOneof("event") for event in stream] for stream in streams]


def cancel(served: Served, created: mm.CreateTicketResponse) -> mm.Ticket:
    request = mm.CancelTicketRequest(ticket_id=created.ticket.ticket_id)
    return stub_of(served).CancelTicket(request, metadata=[(TICKET, created.ticket_token)]).ticket


# --- CreateTicket's rate, open tickets -------------------------------------------------


def test_create_ticket_has_a_rate_of_its_own_per_player(start: Callable[..., Served]) -> None:
    served = start(tickets_per_minute=3, open_tickets=100)
    for config in (OTHELLO, VOLTA, ROLIT):
        create(served, "a", config)
    code, details = refused(lambda: create(served, "a", VOLLEYBALL))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "tickets created per client" in details
    # Another player from the same address has a rate of its own.
    create(served, "b", VOLLEYBALL)


def test_create_ticket_has_a_rate_of_its_own_per_address_without_identities(
    start: Callable[..., Served],
) -> None:
    served = start(auth=OFF, tickets_per_minute=3, open_tickets=100)
    for name in ("a", "b", "c"):
        create(served, name)
    code, details = refused(lambda: create(served, "d"))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "tickets created per client" in details


OPEN_CAP = "at most 2 open tickets per player (per address without identities)"


def test_open_tickets_are_capped_per_player_across_queues(start: Callable[..., Served]) -> None:
    served = start(open_tickets=2)
    first = create(served, "a", OTHELLO)
    create(served, "a", VOLTA)
    code, details = refused(lambda: create(served, "a", ROLIT))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert OPEN_CAP in details
    # Another player from the same address is not held back by a's tickets.
    create(served, "b", ROLIT)
    # A retry of an open ticket is no new one; a cancelled ticket is no longer open.
    retry = "retry-of-a-ticket-0123456789"
    assert cancel(served, first).status == mm.TICKET_STATUS_CANCELLED
    again = create(served, "a", ROLIT, request_id=retry)
    assert create(served, "a", ROLIT, request_id=retry).ticket_token == again.ticket_token
    code, _ = refused(lambda: create(served, "a", VOLLEYBALL))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    cancel(served, again)
    # Once ended, its retry still answers with it (cancelled), at the cap or not.
    create(served, "a", VOLLEYBALL)
    ended = create(served, "a", ROLIT, request_id=retry)
    assert ended.ticket.status == mm.TICKET_STATUS_CANCELLED


def test_open_tickets_are_capped_per_address_without_identities(
    start: Callable[..., Served],
) -> None:
    served = start(auth=OFF, open_tickets=2)
    first = create(served, "a", OTHELLO)
    create(served, "b", VOLTA)
    code, details = refused(lambda: create(served, "c", ROLIT))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert OPEN_CAP in details
    # A retry of an open ticket is no new one; a cancelled ticket is no longer open.
    retry = "retry-of-a-ticket-0123456789"
    assert cancel(served, first).status == mm.TICKET_STATUS_CANCELLED
    again = create(served, "c", ROLIT, request_id=retry)
    assert create(served, "c", ROLIT, request_id=retry).ticket_token == again.ticket_token
    code, _ = refused(lambda: create(served, "d", ROLIT))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    cancel(served, again)
    # Once ended, its retry still answers with it (cancelled), at the cap or not.
    create(served, "d", ROLIT)
    ended = create(served, "c", ROLIT, request_id=retry)
    assert ended.ticket.status == mm.TICKET_STATUS_CANCELLED


def test_the_open_ticket_cap_holds_across_replicas(replicas: Callable[..., list[Served]]) -> None:
    """The count is in Redis: a player's tickets made through another
    replica count (the default cap, 16, half through each replica, each
    ticket in a queue of its own)."""
    one, two = replicas(2)
    made = [create((one, two)[index % 2], "p", volta(index)) for index in range(16)]
    for served in (one, two):
        code, details = refused(lambda served=served: create(served, "p", ROLIT))
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "at most 16 open tickets" in details
    cancel(two, made[0])  # made through one, ended through two: a place on both
    create(one, "p", ROLIT)


# --- only watched tickets are paired ----------------------------------------------------


def test_a_ticket_nobody_watches_is_never_paired(start: Callable[..., Served]) -> None:
    served = start()
    ghost = create(served, "ghost")
    real = create(served, "real")
    events = watch(served, real, seconds=1.0)  # the ghost's ticket waits unwatched
    assert [e.WhichOneof("event") for e in events] == ["snapshot"]
    assert events[0].snapshot.status == mm.TICKET_STATUS_QUEUED
    streams = watch_all(served, ghost, real)  # now both players are there
    assert all(stream[-1].HasField("assigned") for stream in streams)
    assert len({stream[-1].assigned.match_id for stream in streams}) == 1


# --- the match budget --------------------------------------------------------------------


def test_a_matchmade_match_spends_the_match_budget_of_each_player(
    start: Callable[..., Served],
) -> None:
    """One match a minute: a1 and a2's first table is seated, their next
    waits; b1 and b2, from the same address, have budgets of their own."""
    served = start(matches_per_minute=1)
    first = watch_all(served, create(served, "a1"), create(served, "a2"))
    assert all(stream[-1].HasField("assigned") for stream in first)
    tickets = [create(served, player) for player in ("a1", "a2", "b1", "b2")]
    second = watch_all(served, *tickets, seconds=1.5)
    assert events_of(second[:2]) == [["snapshot"]] * 2
    assert events_of(second[2:]) == [["snapshot", "assigned"]] * 2
    assert second[2][-1].assigned.match_id == second[3][-1].assigned.match_id


def test_a_matchmade_match_spends_the_match_budget_of_its_address_without_identities(
    start: Callable[..., Served],
) -> None:
    """One match a minute: the first table is seated, the next waits."""
    served = start(auth=OFF, matches_per_minute=1)
    first = watch_all(served, create(served, "a1"), create(served, "a2"))
    assert all(stream[-1].HasField("assigned") for stream in first)
    second = watch_all(served, create(served, "b1"), create(served, "b2"), seconds=1.5)
    assert events_of(second) == [["snapshot"]] * 2


def create_bot_match(served: Served, metadata: Any = None) -> None:
    from meeple.v1 import match_service_pb2 as ms
    from meeple.v1 import match_service_pb2_grpc as ms_grpc

    bot = ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec="random")
    ms_grpc.MatchServiceStub(served.plain).CreateMatch(
        ms.CreateMatchRequest(config=OTHELLO, seats=[bot, bot]), metadata=metadata
    )


def test_create_match_and_matchmade_matches_share_one_budget(
    serve: Callable[..., Served],
) -> None:
    """The server's one budget a player: after c1's one CreateMatch of the
    minute, its ticket waits unseated; c2 and c3 are seated."""
    served = serve(Settings(matches_per_minute=1), workers=1)
    create_bot_match(served, served.bearer("c1"))
    streams = watch_all(served, *(create(served, p) for p in ("c1", "c2", "c3")), seconds=1.5)
    assert events_of(streams) == [["snapshot"], ["snapshot", "assigned"], ["snapshot", "assigned"]]


def test_create_match_and_matchmade_matches_share_one_budget_per_address_without_identities(
    serve: Callable[..., Served],
) -> None:
    """The server's one budget a client address: after its one CreateMatch
    of the minute, its tickets wait unseated."""
    served = serve(Settings(auth=OFF, matches_per_minute=1), workers=1)
    create_bot_match(served)
    waiting = watch_all(served, create(served, "c1"), create(served, "c2"), seconds=1.5)
    assert events_of(waiting) == [["snapshot"]] * 2


class Clock:
    def __init__(self) -> None:
        self.ms = 1_000_000

    def __call__(self) -> int:
        return self.ms


def maker_on(clock: Clock, **settings: Any) -> Matchmaker:
    store = MemoryCoordination(clock_ms=clock)
    chosen = Settings(**settings)
    return Matchmaker(store, Matches(store, chosen, now_ms=clock), chosen)


async def queued(maker: Matchmaker, client: str, player: str) -> mm.CreateTicketResponse:
    """A ticket of ``client``'s, watched (one heartbeat)."""
    request = mm.CreateTicketRequest(config=OTHELLO, player_ids=[player])
    created = await logic.create_ticket(maker, request, client)
    stored = await maker.store.load_ticket(created.ticket.ticket_id)
    assert stored is not None
    await logic.beat(maker, stored, 1000.0)
    return created


def test_an_address_over_its_match_budget_takes_no_real_players_table() -> None:
    """The flood's tickets wait; the oldest of them does not take the table
    of the two real players that came after it."""

    async def scenario() -> None:
        clock = Clock()
        maker = maker_on(clock, matches_per_minute=1)
        maker.budget.take_all(["ipv4:10.0.0.66"])  # its one match this minute
        flood = await queued(maker, "ipv4:10.0.0.66", "flood")
        clock.ms += 10
        ann = await queued(maker, "ipv4:10.0.0.1", "ann")
        bo = await queued(maker, "ipv4:10.0.0.2", "bo")
        assert await passes.run_pass(maker, flood.ticket.ticket_id.rsplit(".", 1)[0]) == 1
        statuses = [
            (await maker.store.load_ticket(t.ticket.ticket_id)).status  # type: ignore[union-attr]
            for t in (flood, ann, bo)
        ]
        assert statuses == [Status.QUEUED, Status.ASSIGNED, Status.ASSIGNED]
        # Each address at the table paid one match; the flood paid none.
        assert not maker.budget.has("ipv4:10.0.0.1")
        assert not maker.budget.has("ipv4:10.0.0.2")

    asyncio.run(scenario())


def test_the_match_budget_is_one_limiter_a_match_service_can_share() -> None:
    """The budget a Matchmaker spends is the limiter it is given: given
    CreateMatch's, a matchmade match and a CreateMatch cost the same."""

    async def scenario() -> None:
        clock = Clock()
        shared = RateLimiter(1 / 60, 2)
        store = MemoryCoordination(clock_ms=clock)
        settings = Settings()
        maker = Matchmaker(store, Matches(store, settings, now_ms=clock), settings)
        maker.match_budget = shared
        one = await queued(maker, "ipv4:10.0.0.1", "ann")
        await queued(maker, "ipv4:10.0.0.1", "bo")
        assert await passes.run_pass(maker, one.ticket.ticket_id.rsplit(".", 1)[0]) == 1
        assert shared.allow("ipv4:10.0.0.1")  # a CreateMatch: the second of two
        assert not shared.allow("ipv4:10.0.0.1")

    asyncio.run(scenario())


def test_only_a_ticket_watched_lately_is_pairable() -> None:
    """Watched: a heartbeat within the last two heartbeat periods (a third
    of the timeout each); a ticket just created has none."""

    async def scenario() -> None:
        clock = Clock()
        maker = maker_on(clock, ticket_heartbeat_timeout=3.0)  # a period of 1 s
        request = mm.CreateTicketRequest(config=OTHELLO, player_ids=["ann"])
        created = await logic.create_ticket(maker, request, "ipv4:10.0.0.1")
        ticket = await maker.store.load_ticket(created.ticket.ticket_id)
        assert ticket is not None
        assert not passes.pairable(maker, ticket, clock.ms)  # created, never watched
        await logic.beat(maker, ticket, 1000.0)  # the same millisecond: still counts
        ticket = await maker.store.load_ticket(created.ticket.ticket_id)
        assert ticket is not None
        assert ticket.watched
        assert passes.pairable(maker, ticket, clock.ms)
        assert passes.pairable(maker, ticket, clock.ms + 1_990)
        assert not passes.pairable(maker, ticket, clock.ms + 2_001)  # its watch went quiet

    asyncio.run(scenario())


# --- ticket tokens -------------------------------------------------------------------------


def plain_sha256_identity(request_id: str) -> tuple[str, str]:
    """The ticket id suffix and token of the code before issue 22: no secret."""
    digest = hashlib.sha256(f"meeple-ticket:{request_id}".encode()).digest()
    token = base64.urlsafe_b64encode(hashlib.sha256(b"token:" + digest).digest())
    return digest[:8].hex(), token.rstrip(b"=").decode()


def test_a_ticket_token_is_keyed_by_the_server_secret(serve: Callable[..., Served]) -> None:
    """The same request id gives another token under another secret, and the
    same under the same secret (replicas configured alike agree)."""
    request_id = "Zq3-known-to-a-spy_7Hx"
    servers = [
        serve(Settings(token_secret=secret), **LIGHT)
        for secret in (SECRET, "another-secret-entirely", SECRET)
    ]
    made = [create(served, "ann", request_id=request_id) for served in servers]
    assert made[0].ticket_token != made[1].ticket_token
    assert made[0].ticket.ticket_id != made[1].ticket.ticket_id
    assert (made[0].ticket.ticket_id, made[0].ticket_token) == (
        made[2].ticket.ticket_id,
        made[2].ticket_token,
    )
    suffix, token = plain_sha256_identity(request_id)
    assert made[0].ticket_token != token
    assert not made[0].ticket.ticket_id.endswith(suffix)


def test_the_same_request_id_gives_another_token_in_another_queue(
    start: Callable[..., Served],
) -> None:
    served = start()
    request_id = "one-id-for-two-queues-Q7"
    othello = create(served, "ann", OTHELLO, request_id=request_id)
    volta = create(served, "ann", VOLTA, request_id=request_id)
    assert othello.ticket_token != volta.ticket_token


def test_a_ticket_token_is_bound_to_its_players(serve: Callable[..., Served]) -> None:
    """Of the queue, the players and the request id, under the secret; the
    ticket id of the queue and the request id only, so that the same
    request id with other players finds the ticket (and is refused)."""
    served = serve(Settings(token_secret=SECRET), **LIGHT)
    request_id = "bound-to-ann-alone-Q7x"
    made = create(served, "ann", request_id=request_id)
    queue = made.ticket.ticket_id.rsplit(".", 1)[0]
    secret = SECRET.encode()
    ann = logic.retry_identity(secret, queue, ["ann"], request_id)
    assert ann == (made.ticket.ticket_id, made.ticket_token)
    bo = logic.retry_identity(secret, queue, ["bo"], request_id)
    assert bo[0] == ann[0]
    assert bo[1] != ann[1]
    code, details = refused(lambda: create(served, "bo", request_id=request_id))
    assert (code, details) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "request_id: another ticket's; make a new one for each ticket",
    )


def test_replicas_on_redis_share_a_generated_secret(
    replicas: Callable[..., list[Served]], redis_server: Any
) -> None:
    """With no token_secret, the first replica's random secret is stored in
    Redis (SET NX) and every replica reads it: a retry on another replica
    gets the same ticket and token."""
    one, two = replicas(2)
    request_id = "retried-on-the-other-replica"
    first = create(one, "ann", request_id=request_id)
    again = create(two, "ann", request_id=request_id)
    assert (again.ticket.ticket_id, again.ticket_token) == (
        first.ticket.ticket_id,
        first.ticket_token,
    )
    with redis.Redis.from_url(redis_server.url) as raw:
        assert len(raw.get("meeple:ticket-secret") or b"") == 64  # 32 random bytes, in hex


def test_the_secret_is_never_printed(
    serve: Callable[..., Served], caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings.from_env({"MEEPLE_TOKEN_SECRET": SECRET})
    assert settings.token_secret == SECRET
    assert SECRET not in repr(settings)
    assert Settings.from_env({"MEEPLE_TOKEN_SECRET": ""}).token_secret is None
    with pytest.raises(ValueError, match="token_secret must be at least 16 characters") as bad:
        Settings(token_secret="short-secret")
    assert "short-secret" not in str(bad.value)
    caplog.set_level(logging.DEBUG)
    served = serve(settings, **LIGHT)
    create(served, "ann", request_id="a-request-with-its-id")
    refused(lambda: create(served, "bo", request_id="a-request-with-its-id"))
    assert SECRET not in caplog.text


@pytest.mark.parametrize("auth", ["on", OFF])
def test_defaults_hold_a_flood_to_its_caps(serve: Callable[..., Served], auth: str) -> None:
    """The audit's flood (7,007 tickets in 14 s from one address) against
    the defaults: 16 open tickets, then RESOURCE_EXHAUSTED at once; from one
    player (each ticket in a queue of its own: a player has one place in
    each), or with identities off from one address."""
    served = serve(Settings(auth=auth), **LIGHT)
    began = time.monotonic()
    codes = []
    for index in range(40):
        try:
            if auth == OFF:
                create(served, f"p{index}")
            else:
                create(served, "flooder", volta(index))
            codes.append(grpc.StatusCode.OK)
        except grpc.RpcError as error:
            codes.append(error.code())
    assert codes == [grpc.StatusCode.OK] * 16 + [grpc.StatusCode.RESOURCE_EXHAUSTED] * 24
    assert time.monotonic() - began < 5
