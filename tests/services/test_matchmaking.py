"""MatchmakingService through real gRPC, on both stores (in memory, and on a
real redis-server): tickets seated into matches the seat tokens play, Rolit
tables with parties, bot fill, cancellation, expiry without a heartbeat,
ratings updated once per match, and every bad request refused. A ticket is
paired only while it is watched, so the tickets of a table are watched
together (``watch_all``).

With identities (the default), a ticket's players are its caller (the
bearer token's player) and the players of its party passes: ``ticket``
creates it as its first player, with a pass from each other one. With
identities off (``auth="off"``) the player ids are as sent."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import grpc
import pytest
from google.protobuf.duration_pb2 import Duration
from meeple.v1 import auth_service_pb2 as auth
from meeple.v1 import auth_service_pb2_grpc as auth_grpc
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import matchmaking_service_pb2 as mm
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc

from services.coordination import MemoryCoordination
from services.match_service.logic import Matches
from services.matchmaking import logic
from services.matchmaking.logic import Matchmaker
from services.matchmaking.pairing import pair
from services.settings import Settings
from tests.services.conftest import DEFAULT_PLAYER, Served, serving

TICKET = "meeple-ticket-token"
SEAT = "meeple-seat-token"
OTHELLO = pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)
ROLIT = pb.GameConfig(kind=pb.GAME_KIND_ROLIT)
VOLTA = pb.GameConfig(kind=pb.GAME_KIND_VOLTA)


@dataclass
class Stubs:
    served: Served
    tickets: mm_grpc.MatchmakingServiceStub
    matches: ms_grpc.MatchServiceStub


@pytest.fixture(params=["memory", "redis"])
def matchmaking(
    request: pytest.FixtureRequest, serve: Callable[..., Served]
) -> Callable[..., Stubs]:
    """``matchmaking(**settings)``: a server on the store of the test's
    parameter, and stubs to it."""

    def start(**settings: object) -> Stubs:
        options: dict[str, object] = {"workers": 1}
        if request.param == "redis":
            server = request.getfixturevalue("redis_server")
            server.flush()
            options["redis_url"] = server.url
        served = serve(Settings(**settings), **options)  # type: ignore[arg-type]
        channel = served.channel
        return Stubs(
            served, mm_grpc.MatchmakingServiceStub(channel), ms_grpc.MatchServiceStub(channel)
        )

    return start


def party_pass(served: Served, member: str, leader: str) -> str:
    """``member``'s consent to sit in ``leader``'s party tickets."""
    stub = auth_grpc.AuthServiceStub(served.plain)
    request = auth.CreatePartyPassRequest(leader_player_id=leader)
    return stub.CreatePartyPass(request, metadata=served.bearer(member)).party_pass


def ticket(
    stubs: Stubs, config: pb.GameConfig, players: list[str], **fields: object
) -> mm.CreateTicketResponse:
    """A ticket of ``players``, created by the first (its bearer token)
    with a party pass from each of the others; with identities off, as
    named, without a token."""
    served = stubs.served
    if not served.app.auth.enabled:  # the player ids as sent, and no token
        request = mm.CreateTicketRequest(config=config, player_ids=players, **fields)  # type: ignore[arg-type]
        return mm_grpc.MatchmakingServiceStub(served.plain).CreateTicket(request)
    leader, *members = players
    passes = [party_pass(served, member, leader) for member in members]
    request = mm.CreateTicketRequest(
        config=config,
        player_ids=players,
        party_passes=passes,
        **fields,  # type: ignore[arg-type]
    )
    return stubs.tickets.CreateTicket(request, metadata=served.bearer(leader))


def watch(stubs: Stubs, created: mm.CreateTicketResponse) -> list[mm.WatchTicketResponse]:
    """The ticket's whole stream (a ticket ends within seconds in these tests)."""
    request = mm.WatchTicketRequest(ticket_id=created.ticket.ticket_id)
    metadata = [(TICKET, created.ticket_token)]
    return list(stubs.tickets.WatchTicket(request, metadata=metadata, timeout=15))


def watch_all(
    stubs: Stubs, *created: mm.CreateTicketResponse
) -> list[list[mm.WatchTicketResponse]]:
    """Each ticket's whole stream, the tickets watched at once (as their
    players would)."""
    with ThreadPoolExecutor(len(created)) as pool:
        return list(pool.map(lambda one: watch(stubs, one), created))


def code_of(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details()


def test_two_tickets_share_a_match_that_their_seat_tokens_play(
    matchmaking: Callable[..., Stubs],
) -> None:
    stubs = matchmaking()
    ann = ticket(stubs, OTHELLO, ["ann"])
    bo = ticket(stubs, OTHELLO, ["bo"])
    assert ann.ticket.status == mm.TICKET_STATUS_QUEUED
    assert ann.ticket.window == pytest.approx(2.0, abs=0.1)
    events = watch_all(stubs, ann, bo)
    for stream in events:
        assert stream[0].HasField("snapshot")
        assert stream[-1].HasField("assigned")
    first, second = (stream[-1].assigned for stream in events)
    assert first.match_id == second.match_id
    assert first.bot_seats == 0
    seats = {s.player_id: s for s in (*first.seats, *second.seats)}
    assert sorted(s.seat for s in seats.values()) == [0, 1]
    match = stubs.matches.GetMatch(ms.GetMatchRequest(match_id=first.match_id)).match
    assert match.status == ms.MATCH_STATUS_PLAYING
    assert all(seat.joined for seat in match.seats)
    mover = next(s for s in seats.values() if s.seat == match.view.seat_to_act)
    request = ms.SubmitActionRequest(
        match_id=first.match_id,
        expected_ply=0,
        actions=[pb.Action(board=pb.BoardMove(square=19))],
    )
    played = stubs.matches.SubmitAction(request, metadata=[(SEAT, mover.seat_token)])
    assert played.match.view.ply == 1
    done = stubs.tickets.CancelTicket(
        mm.CancelTicketRequest(ticket_id=ann.ticket.ticket_id),
        metadata=[(TICKET, ann.ticket_token)],
    )
    assert done.ticket.status == mm.TICKET_STATUS_ASSIGNED  # too late to cancel


def test_a_rolit_table_of_four_keeps_the_party_together(
    matchmaking: Callable[..., Stubs],
) -> None:
    stubs = matchmaking()
    stubs.served.token("p2", name="Pat")  # p2's token, and so its party pass, names it Pat
    # The singles first: alone, the party (any table size) fills a table of
    # two at once, so it must find the singles waiting.
    singles = [ticket(stubs, ROLIT, [name], seat_counts=[4]) for name in ("s1", "s2")]
    party = ticket(stubs, ROLIT, ["p1", "p2"])  # p1's ticket, with p2's pass
    assert list(party.ticket.player_ids) == ["p1", "p2"]
    assignments = [stream[-1].assigned for stream in watch_all(stubs, party, *singles)]
    assert len({a.match_id for a in assignments}) == 1
    assert [s.player_id for s in assignments[0].seats] == ["p1", "p2"]
    match = stubs.matches.GetMatch(ms.GetMatchRequest(match_id=assignments[0].match_id)).match
    assert match.config.rolit.players == 4
    assert match.first_seat_drawn
    names = {seat.player_id: seat.display_name for seat in match.seats}
    assert names == {"p1": "p1", "p2": "Pat", "s1": "s1", "s2": "s2"}


def test_bots_fill_a_table_after_the_wait(matchmaking: Callable[..., Stubs]) -> None:
    stubs = matchmaking(bot_fill_after=0.3)
    began = time.monotonic()
    created = ticket(stubs, ROLIT, ["solo"], seat_counts=[3], allow_bots=True)
    assigned = watch(stubs, created)[-1].assigned
    assert time.monotonic() - began >= 0.3
    assert assigned.bot_seats == 2
    match = stubs.matches.GetMatch(ms.GetMatchRequest(match_id=assigned.match_id)).match
    kinds = [seat.kind for seat in match.seats]
    assert kinds == [ms.SEAT_KIND_HUMAN, ms.SEAT_KIND_BOT, ms.SEAT_KIND_BOT]
    assert match.seats[1].bot_spec == "hard"  # a new player's 25 is nearest hard's 27


def test_bots_fill_the_smallest_table_a_lone_party_fits(
    matchmaking: Callable[..., Stubs],
) -> None:
    """Humans sit at the biggest table that fills; a ticket that waited
    past bot_fill_after alone gets the smallest table its party fits, so
    that bots fill as few seats as can be: a single accepting Rolit tables
    of 2, 3 and 4 plays one bot at a table of 2."""
    stubs = matchmaking(bot_fill_after=0.3)
    created = ticket(stubs, ROLIT, ["solo"], seat_counts=[4, 2, 3], allow_bots=True)
    assigned = watch(stubs, created)[-1].assigned
    assert assigned.bot_seats == 1
    match = stubs.matches.GetMatch(ms.GetMatchRequest(match_id=assigned.match_id)).match
    assert match.config.rolit.players == 2
    assert [seat.kind for seat in match.seats] == [ms.SEAT_KIND_HUMAN, ms.SEAT_KIND_BOT]


def test_bot_fill_takes_the_smallest_table_of_the_party_as_a_pure_function() -> None:
    """The same rule in ``pairing.pair``, for parties: past bot_fill_after
    alone, a single accepting 2, 3 and 4 seats gets a table of 2, a party
    of two accepting 3 and 4 a table of 3 (ratings far apart: each alone)."""
    from tests.services.test_pairing import seated
    from tests.services.test_pairing import ticket as record

    single = record("one", seat_counts=[3, 2, 4], allow_bots=True)
    duo = record("duo", player_ids=["d1", "d2"], seat_counts=[4, 3], allow_bots=True, rating=45.0)
    assert pair([single, duo], 9_000, bot_fill_after=10) == []
    tables = pair([single, duo], 11_000, bot_fill_after=10)
    assert seated(tables) == [(["duo"], 1), (["one"], 1)]  # the same age: by id
    assert [table.size for table in tables] == [3, 2]


def test_a_ticket_is_cancelled_only_with_its_token(matchmaking: Callable[..., Stubs]) -> None:
    stubs = matchmaking()
    created = ticket(stubs, OTHELLO, ["ann"])
    cancel = mm.CancelTicketRequest(ticket_id=created.ticket.ticket_id)
    code, _ = code_of(lambda: stubs.tickets.CancelTicket(cancel))
    assert code == grpc.StatusCode.UNAUTHENTICATED
    code, _ = code_of(lambda: stubs.tickets.CancelTicket(cancel, metadata=[(TICKET, "forged")]))
    assert code == grpc.StatusCode.PERMISSION_DENIED
    done = stubs.tickets.CancelTicket(cancel, metadata=[(TICKET, created.ticket_token)])
    assert done.ticket.status == mm.TICKET_STATUS_CANCELLED
    events = watch(stubs, created)
    assert [e.WhichOneof("event") for e in events] == ["snapshot", "ended"]
    assert events[-1].ended.status == mm.TICKET_STATUS_CANCELLED


def test_a_ticket_without_a_heartbeat_expires(matchmaking: Callable[..., Stubs]) -> None:
    stubs = matchmaking(ticket_heartbeat_timeout=0.5)
    created = ticket(stubs, OTHELLO, ["ghost"])
    time.sleep(1.0)  # nobody watches it
    events = watch(stubs, created)
    assert events[-1].HasField("ended")
    assert events[-1].ended.status == mm.TICKET_STATUS_EXPIRED
    watched = ticket(stubs, OTHELLO, ["patient"], max_wait=Duration(seconds=1))
    began = time.monotonic()
    events = watch(stubs, watched)  # the heartbeat keeps it, max_wait ends it
    assert events[-1].ended.status == mm.TICKET_STATUS_EXPIRED
    assert 0.9 < time.monotonic() - began < 5


def test_ratings_change_once_per_finished_match(matchmaking: Callable[..., Stubs]) -> None:
    stubs = matchmaking()
    tickets = [ticket(stubs, OTHELLO, [name]) for name in ("winner", "loser")]
    streams = watch_all(stubs, *tickets)
    seats = {s.player_id: s for stream in streams for s in stream[-1].assigned.seats}
    match_id = streams[0][-1].assigned.match_id
    resign = ms.ResignRequest(match_id=match_id)
    stubs.matches.Resign(resign, metadata=[(SEAT, seats["loser"].seat_token)])

    def rating(player: str) -> mm.Rating:
        request = mm.GetRatingRequest(game=pb.GAME_KIND_OTHELLO, player_id=player)
        return stubs.tickets.GetRating(request).rating

    deadline = time.monotonic() + 10
    while rating("winner").matches == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    winner, loser = rating("winner"), rating("loser")
    assert (winner.matches, loser.matches) == (1, 1)
    assert winner.mu > 25 > loser.mu
    assert winner.ordinal == pytest.approx(winner.mu - 3 * winner.sigma)
    time.sleep(0.5)  # a second rating of the same match would land by now
    assert rating("winner") == winner
    board = stubs.tickets.ListLeaderboard(mm.ListLeaderboardRequest(game=pb.GAME_KIND_OTHELLO))
    assert [r.player_id for r in board.ratings] == ["winner", "loser"]
    page = stubs.tickets.ListLeaderboard(
        mm.ListLeaderboardRequest(game=pb.GAME_KIND_OTHELLO, page_size=1)
    )
    assert [r.player_id for r in page.ratings] == ["winner"]
    rest = stubs.tickets.ListLeaderboard(
        mm.ListLeaderboardRequest(
            game=pb.GAME_KIND_OTHELLO, page_size=1, page_token=page.next_page_token
        )
    )
    assert [r.player_id for r in rest.ratings] == ["loser"]
    assert not rest.next_page_token
    newcomer = rating("newcomer")
    assert (newcomer.mu, newcomer.matches) == (pytest.approx(25.0), 0)
    # No player id: the caller's own rating (its bearer token's player).
    own = mm.GetRatingRequest(game=pb.GAME_KIND_OTHELLO)
    assert stubs.tickets.GetRating(own, metadata=stubs.served.bearer("loser")).rating == loser


def test_a_retried_ticket_request_returns_the_same_ticket_and_token(
    matchmaking: Callable[..., Stubs],
) -> None:
    """The answer of a CreateTicket may be lost after the ticket was stored;
    a retry with the same request_id must not queue the party twice."""
    stubs = matchmaking()
    first = ticket(stubs, OTHELLO, ["ann"], request_id="ann-retry-0123456789")
    again = ticket(stubs, OTHELLO, ["ann"], request_id="ann-retry-0123456789")
    assert again.ticket.ticket_id == first.ticket.ticket_id
    assert again.ticket_token == first.ticket_token
    assert again.ticket.status == mm.TICKET_STATUS_QUEUED
    # Another player's ticket pairs with ann's one ticket; nothing is left over.
    bo = ticket(stubs, OTHELLO, ["bo"], request_id="bo-retry-0123456789a")
    ann_events, bo_events = watch_all(stubs, again, bo)
    assigned = ann_events[-1].assigned
    assert bo_events[-1].assigned.match_id == assigned.match_id
    # A retry once it is assigned returns it assigned, with ann's seat token.
    late = ticket(stubs, OTHELLO, ["ann"], request_id="ann-retry-0123456789")
    assert late.ticket.status == mm.TICKET_STATUS_ASSIGNED
    assert late.ticket.assignment == assigned
    # The same request_id for another party is refused, and changes nothing.
    code, details = code_of(
        lambda: ticket(stubs, OTHELLO, ["cy"], request_id="ann-retry-0123456789")
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "request_id: another ticket's" in details
    # Request ids are per ticket: another one queues another ticket.
    other = ticket(stubs, OTHELLO, ["ann"], request_id="ann-second-ticket-01")
    assert other.ticket.ticket_id != first.ticket.ticket_id
    assert other.ticket_token != first.ticket_token


def test_a_player_holds_one_queued_ticket_per_queue(matchmaking: Callable[..., Stubs]) -> None:
    stubs = matchmaking()
    first = ticket(stubs, OTHELLO, ["ann"])
    code, details = code_of(lambda: ticket(stubs, OTHELLO, ["ann"]))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert "player 'ann' has a queued ticket in this queue already" in details
    # Nor in another's party; the party's ticket is not queued either.
    code, details = code_of(lambda: ticket(stubs, OTHELLO, ["bo", "ann"]))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert "player 'ann' has a queued ticket" in details
    assert ticket(stubs, OTHELLO, ["bo"]).ticket.status == mm.TICKET_STATUS_QUEUED
    # Another queue is another place in line.
    assert ticket(stubs, VOLTA, ["ann"]).ticket.status == mm.TICKET_STATUS_QUEUED
    # Once the ticket ends, its players may queue again.
    stubs.tickets.CancelTicket(
        mm.CancelTicketRequest(ticket_id=first.ticket.ticket_id),
        metadata=[(TICKET, first.ticket_token)],
    )
    again = ticket(stubs, OTHELLO, ["ann"])
    assert again.ticket.ticket_id != first.ticket.ticket_id


def test_a_ticket_without_player_ids_is_its_callers_party(
    matchmaking: Callable[..., Stubs],
) -> None:
    """Empty player_ids stands for the caller, then each pass's player;
    named, they may come in any order."""
    stubs = matchmaking()
    served = stubs.served
    passes = [party_pass(served, member, "ann") for member in ("bo", "cy")]
    request = mm.CreateTicketRequest(config=ROLIT, party_passes=passes)
    created = stubs.tickets.CreateTicket(request, metadata=served.bearer("ann"))
    assert list(created.ticket.player_ids) == ["ann", "bo", "cy"]
    request = mm.CreateTicketRequest(
        config=VOLTA, player_ids=["bo", "ann"], party_passes=[party_pass(served, "bo", "ann")]
    )
    created = stubs.tickets.CreateTicket(request, metadata=served.bearer("ann"))
    assert list(created.ticket.player_ids) == ["bo", "ann"]


def test_with_identities_off_the_players_are_as_named(matchmaking: Callable[..., Stubs]) -> None:
    """The old behaviour (MEEPLE_AUTH=off): no token, the player ids as
    sent, a party without passes; the seats carry no display names."""
    stubs = matchmaking(auth="off")
    party = ticket(stubs, ROLIT, ["p1", "p2"], seat_counts=[3])
    single = ticket(stubs, ROLIT, ["s1"], seat_counts=[3])
    assert list(party.ticket.player_ids) == ["p1", "p2"]
    assignments = [stream[-1].assigned for stream in watch_all(stubs, party, single)]
    assert len({a.match_id for a in assignments}) == 1
    assert [s.player_id for a in assignments for s in a.seats] == ["p1", "p2", "s1"]
    assert sorted(s.seat for a in assignments for s in a.seats) == [0, 1, 2]
    match = stubs.matches.GetMatch(ms.GetMatchRequest(match_id=assignments[0].match_id)).match
    assert match.config.rolit.players == 3
    assert all(seat.joined and not seat.display_name for seat in match.seats)
    # The match keeps the named (unverified) players: they are the ones rated.
    named = {s.seat: s.player_id for a in assignments for s in a.seats}
    assert {seat.index: seat.player_id for seat in match.seats} == named


@pytest.fixture(scope="module")
def identities_off() -> Iterator[Served]:
    """A server with identities off: player ids are as sent (and checked)."""
    with serving(Settings(auth="off"), services=("match", "matchmaking"), bots=False) as served:
        yield served


# Refused with identities on and off alike (``player_ids`` left to the mode:
# the caller with identities, one named player without).
BAD_TICKETS = [
    ({"config": pb.GameConfig()}, "config.kind"),
    ({"config": OTHELLO, "seat_counts": [3]}, "2..2 seats"),
    (
        {"config": pb.GameConfig(kind=pb.GAME_KIND_ROLIT, rolit=pb.RolitOptions(players=3))},
        "seat_counts",
    ),
    (
        {"config": pb.GameConfig(kind=pb.GAME_KIND_VOLTA, volta=pb.VoltaOptions(first_seat=1))},
        "first_seat",
    ),
    ({"config": OTHELLO, "max_wait": Duration(seconds=3600)}, "max_wait"),
    ({"config": OTHELLO, "request_id": "short"}, "request_id: 16 to 64"),
    ({"config": OTHELLO, "request_id": "not/a-random-string!"}, "request_id: 16 to 64"),
    ({"config": OTHELLO, "request_id": "a" * 16}, "request_id: one character repeated"),
    (
        {"config": OTHELLO, "request_id": "abcab-abcab-abcab"},
        "request_id: 4 distinct characters, at least 5",
    ),
]


@pytest.mark.parametrize(("fields", "expected"), BAD_TICKETS)
def test_bad_tickets_are_invalid_argument(
    server: Served, fields: dict[str, object], expected: str
) -> None:
    """With identities: the caller's own ticket (no player ids: the caller)."""
    stub = mm_grpc.MatchmakingServiceStub(server.channel)
    request = mm.CreateTicketRequest(**fields)  # type: ignore[arg-type]
    code, details = code_of(lambda: stub.CreateTicket(request))
    assert code == grpc.StatusCode.INVALID_ARGUMENT, details
    assert expected in details


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        *BAD_TICKETS,
        ({"config": OTHELLO, "player_ids": []}, "at least one player"),
        ({"config": OTHELLO, "player_ids": ["a", "a"]}, "twice"),
        ({"config": OTHELLO, "player_ids": ["x" * 65]}, "1 to 64"),
        ({"config": OTHELLO, "player_ids": ["a", "b", "c"]}, "fits no table"),
        ({"config": OTHELLO, "party_passes": ["a-pass"]}, "party_passes: identities are off"),
    ],
)
def test_bad_tickets_are_invalid_argument_with_identities_off(
    identities_off: Served, fields: dict[str, object], expected: str
) -> None:
    """Without identities the player ids are the client's, checked as sent
    (no token is sent, none is needed)."""
    stub = mm_grpc.MatchmakingServiceStub(identities_off.plain)
    request = mm.CreateTicketRequest(**{"player_ids": ["a"], **fields})  # type: ignore[arg-type]
    code, details = code_of(lambda: stub.CreateTicket(request))
    assert code == grpc.StatusCode.INVALID_ARGUMENT, details
    assert expected in details


def test_a_ticket_names_only_its_caller_and_the_players_of_its_passes(server: Served) -> None:
    """With identities, CreateTicket acts for its caller (``DEFAULT_PLAYER``
    here) and the players that gave it a party pass: anyone else named is
    PERMISSION_DENIED, and every refusal queues nothing."""
    stub = mm_grpc.MatchmakingServiceStub(server.channel)
    me = DEFAULT_PLAYER

    def refused(players: list[str], *passes: str) -> tuple[grpc.StatusCode, str]:
        request = mm.CreateTicketRequest(config=OTHELLO, player_ids=players, party_passes=passes)
        return code_of(lambda: stub.CreateTicket(request))

    for players in (["zed"], [me, "zed"], ["zed", me]):
        code, details = refused(players)
        assert code == grpc.StatusCode.PERMISSION_DENIED, (players, details)
        assert "'zed' did not agree to this party" in details
        assert "CreatePartyPass" in details
    bo = party_pass(server, "bo", me)
    code, details = refused(["bo", "zed"], bo)  # a pass names its own player, nobody else
    assert (code, "'zed' did not agree" in details) == (grpc.StatusCode.PERMISSION_DENIED, True)
    code, details = refused([me, me])
    assert (code, details) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "player_ids: a player appears twice",
    )
    code, details = refused([me, "bo", "bo"], bo)
    assert (code, details) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "player_ids: a player appears twice",
    )
    code, details = refused([], bo, bo)
    assert (code, details) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "party_passes: a player appears twice",
    )
    code, details = refused([me], bo)  # bo's pass, bo left out
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "name the caller and every party pass's player, or none" in details
    # A pass for another leader, or no pass at all, names nobody.
    code, details = refused([], party_pass(server, "bo", "somebody-else"))
    assert (code, details) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "party_passes[0] lets another leader name its player",
    )
    code, details = refused([], "not-a-pass")
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert details.startswith("party_passes[0] was refused")
    # A party too big for every table is still checked, once its players are known.
    code, details = refused([], bo, party_pass(server, "cy", me))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "fits no table" in details
    # No token: nobody to act for.
    plain = mm_grpc.MatchmakingServiceStub(server.plain)
    code, _ = code_of(lambda: plain.CreateTicket(mm.CreateTicketRequest(config=OTHELLO)))
    assert code == grpc.StatusCode.UNAUTHENTICATED


def test_the_window_widens_while_a_ticket_waits() -> None:
    """With an injected clock: WatchTicket reports each whole step of the
    window (2, then 3 after 2 s, 4 after 4 s, ...)."""

    class Clock:
        ms = 1_000_000

        def __call__(self) -> int:
            return self.ms

    async def scenario() -> list[float]:
        clock = Clock()
        store = MemoryCoordination(clock_ms=clock)
        settings = Settings(ticket_heartbeat_timeout=0.3)
        maker = Matchmaker(store, Matches(store, settings, now_ms=clock), settings)
        created = await logic.create_ticket(
            maker, mm.CreateTicketRequest(config=OTHELLO, player_ids=["alone"])
        )
        windows: list[float] = []
        stream = logic.watch_ticket(maker, created.ticket.ticket_id, created.ticket_token)
        async for event in stream:
            if event.HasField("widened"):
                windows.append(event.widened.window)
            clock.ms += 2_000
            if len(windows) == 3:
                break
        await stream.aclose()
        return windows

    assert asyncio.run(scenario()) == [3.0, 4.0, 5.0]


def test_the_waiting_gauge_has_one_label_value_per_game(serve: Callable[..., Served]) -> None:
    """Tickets of 30 Volta queues (each its own rider masses) make one
    series, game="volta", that counts them all: the label is bounded by the
    games, whatever options clients send."""
    from prometheus_client import REGISTRY

    served = serve(Settings(open_tickets=100, tickets_per_minute=1000), workers=1)
    tickets = mm_grpc.MatchmakingServiceStub(served.channel)
    for n in range(30):
        options = pb.VoltaOptions(rider_masses_kg=[0.005 + n / 10_000, 0.0055])
        config = pb.GameConfig(kind=pb.GAME_KIND_VOLTA, volta=options)
        request = mm.CreateTicketRequest(config=config)
        tickets.CreateTicket(request, metadata=served.bearer(f"p{n}"))
    deadline = time.monotonic() + 5
    while True:
        (gauge,) = [m for m in REGISTRY.collect() if m.name == "meeple_matchmaking_tickets_waiting"]
        values = {sample.labels["game"]: sample.value for sample in gauge.samples}
        if values.get("volta") == 30 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert {name for sample in gauge.samples for name in sample.labels} == {"game"}
    assert set(values) <= {"rolit", "othello", "volleyball", "volta"}, values
    assert values.get("volta") == 30, values
