"""What identities stop, through real gRPC: the rating attack (a ticket
naming another player, two tickets of one player in a queue, a rating
moved by anyone's matches but the player's own), party passes (a member's
consent for one leader, for a while), seats that follow their player (the
same token again, nothing written; a seat reserved for one player) and
limits counted per identity, not per address."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import grpc
import jwt
import pytest
from meeple.v1 import auth_service_pb2 as auth
from meeple.v1 import auth_service_pb2_grpc as auth_grpc
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import matchmaking_service_pb2 as mm
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc

from services.auth import guests
from services.settings import Settings
from tests.identities import bearer, signed_in_channel, token_for
from tests.services.conftest import Served
from tests.services.test_web_port import Web

CALL_SECONDS = 10
WATCH_SECONDS = 15
SEAT = "meeple-seat-token"
OWNER = "meeple-owner-token"
TICKET = "meeple-ticket-token"
OTHELLO = pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)
ROLIT = pb.GameConfig(kind=pb.GAME_KIND_ROLIT)
HUMAN = ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)
NAMES = {"alice": "Alice A.", "bob": "Bob B.", "carol": "Carol", "mallory": "Mallory"}


def reserved(player: str) -> ms.SeatConfig:
    return ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN, player_id=player)


@dataclass
class Players:
    """A server and stubs that act for any of ``NAMES`` (real tokens)."""

    served: Served

    def __post_init__(self) -> None:
        for player, name in NAMES.items():
            self.served.token(player, name)  # each player's name, before any other use
        self.tickets = mm_grpc.MatchmakingServiceStub(self.served.plain)
        self.matches = ms_grpc.MatchServiceStub(self.served.plain)
        self.auth = auth_grpc.AuthServiceStub(self.served.plain)

    def as_(self, player: str) -> tuple[tuple[str, str], ...]:
        return self.served.bearer(player)

    def ticket(
        self, player: str, config: pb.GameConfig = OTHELLO, **fields: object
    ) -> mm.CreateTicketResponse:
        request = mm.CreateTicketRequest(config=config, **fields)  # type: ignore[arg-type]
        return self.tickets.CreateTicket(request, metadata=self.as_(player), timeout=CALL_SECONDS)

    def party_pass(self, member: str, leader: str) -> auth.CreatePartyPassResponse:
        request = auth.CreatePartyPassRequest(leader_player_id=leader)
        return self.auth.CreatePartyPass(request, metadata=self.as_(member), timeout=CALL_SECONDS)

    def watch(self, created: mm.CreateTicketResponse) -> list[mm.WatchTicketResponse]:
        request = mm.WatchTicketRequest(ticket_id=created.ticket.ticket_id)
        metadata = [(TICKET, created.ticket_token)]
        return list(self.tickets.WatchTicket(request, metadata=metadata, timeout=WATCH_SECONDS))

    def watch_all(self, *created: mm.CreateTicketResponse) -> list[list[mm.WatchTicketResponse]]:
        with ThreadPoolExecutor(len(created)) as pool:
            return list(pool.map(self.watch, created))

    def cancel(self, created: mm.CreateTicketResponse) -> mm.Ticket:
        request = mm.CancelTicketRequest(ticket_id=created.ticket.ticket_id)
        metadata = [(TICKET, created.ticket_token)]
        return self.tickets.CancelTicket(request, metadata=metadata, timeout=CALL_SECONDS).ticket

    def rating(self, player: str) -> mm.Rating:
        request = mm.GetRatingRequest(game=pb.GAME_KIND_OTHELLO, player_id=player)
        return self.tickets.GetRating(request, timeout=CALL_SECONDS).rating

    def create(self, player: str, *seats: ms.SeatConfig) -> ms.CreateMatchResponse:
        request = ms.CreateMatchRequest(config=OTHELLO, seats=seats or [HUMAN, HUMAN])
        return self.matches.CreateMatch(request, metadata=self.as_(player), timeout=CALL_SECONDS)

    def join(
        self, player: str, match_id: str, seat: int | None = None, metadata: tuple = ()
    ) -> ms.JoinMatchResponse:
        request = ms.JoinMatchRequest(match_id=match_id)
        if seat is not None:
            request.seat = seat
        return self.matches.JoinMatch(
            request, metadata=(*self.as_(player), *metadata), timeout=CALL_SECONDS
        )

    def get(self, match_id: str) -> ms.Match:
        request = ms.GetMatchRequest(match_id=match_id)
        return self.matches.GetMatch(request, timeout=CALL_SECONDS).match

    def version(self, match_id: str) -> int:
        data = self.served.run(self.served.app.matches.coordination.load(match_id))
        return int(data.version)


def failure(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details()


def wait_for(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s: {what}")
        time.sleep(0.05)


@pytest.fixture(params=["memory", "redis"])
def players(request: pytest.FixtureRequest, serve: Callable[..., Served]) -> Callable[..., Players]:
    """``players(**settings)``: a server on the test's store (memory, a real
    redis-server), bots filling a table after 0.3 s."""

    def start(**settings: object) -> Players:
        options: dict[str, object] = {"workers": 1}
        if request.param == "redis":
            server = request.getfixturevalue("redis_server")
            server.flush()
            options["redis_url"] = server.url
        values = {"rate_per_second": None, "bot_fill_after": 0.3, **settings}
        return Players(serve(Settings(**values), **options))  # type: ignore[arg-type]

    return start


@pytest.fixture
def memory_players(serve: Callable[..., Served]) -> Callable[..., Players]:
    def start(**settings: object) -> Players:
        values = {"rate_per_second": None, "bot_fill_after": 0.3, **settings}
        return Players(serve(Settings(**values), workers=1))  # type: ignore[arg-type]

    return start


# --- the rating attack ------------------------------------------------------------------


def test_a_ticket_naming_another_player_is_permission_denied(
    memory_players: Callable[..., Players],
) -> None:
    p = memory_players()
    for named in (["alice"], ["mallory", "alice"], ["alice", "mallory"]):
        code, details = failure(lambda named=named: p.ticket("mallory", player_ids=named))
        assert code == grpc.StatusCode.PERMISSION_DENIED, named
        assert "player_ids: 'alice' did not agree to this party" in details
    # Nothing was queued in alice's name: her own ticket is her first.
    assert list(p.ticket("alice").ticket.player_ids) == ["alice"]
    # The caller, named or not, is the ticket's player.
    assert list(p.ticket("mallory", player_ids=["mallory"]).ticket.player_ids) == ["mallory"]
    assert list(p.ticket("bob").ticket.player_ids) == ["bob"]
    code, _ = failure(lambda: p.ticket("carol", player_ids=["carol", "carol"]))
    assert code == grpc.StatusCode.INVALID_ARGUMENT


def test_a_player_holds_one_queued_ticket_per_queue(players: Callable[..., Players]) -> None:
    p = players(open_tickets=2)
    first = p.ticket("alice", request_id="alice-first-ticket-0123")
    for _ in range(3):
        code, details = failure(lambda: p.ticket("alice"))
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        assert "player 'alice' has a queued ticket in this queue already" in details
    # A retry of the queued ticket is that ticket, not a second one.
    again = p.ticket("alice", request_id="alice-first-ticket-0123")
    assert (again.ticket.ticket_id, again.ticket_token) == (
        first.ticket.ticket_id,
        first.ticket_token,
    )
    # Another queue is another matter; the refusals spent none of the open tickets (2).
    rolit = p.ticket("alice", ROLIT)
    assert rolit.ticket.status == mm.TICKET_STATUS_QUEUED
    # A party naming alice (with her consent) is refused while she is queued.
    party_pass = p.party_pass("alice", "bob").party_pass
    code, details = failure(lambda: p.ticket("bob", party_passes=[party_pass]))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert "'alice'" in details
    assert list(p.ticket("bob").ticket.player_ids) == ["bob"]  # bob was not queued by it
    # Once her ticket ends she may queue again.
    assert p.cancel(first).status == mm.TICKET_STATUS_CANCELLED
    assert p.ticket("alice").ticket.status == mm.TICKET_STATUS_QUEUED


def play_against_a_bot(p: Players, player: str) -> str:
    """``player``'s matchmade match against a bot, resigned at once; its id."""
    created = p.ticket(player, allow_bots=True)
    assigned = p.watch(created)[-1]
    assert assigned.HasField("assigned"), assigned
    assert assigned.assigned.bot_seats == 1
    (seat,) = assigned.assigned.seats
    assert seat.player_id == player
    resign = ms.ResignRequest(match_id=assigned.assigned.match_id)
    p.matches.Resign(resign, metadata=[(SEAT, seat.seat_token)], timeout=CALL_SECONDS)
    return assigned.assigned.match_id


def test_a_rating_changes_only_through_the_players_own_matches(
    memory_players: Callable[..., Players],
) -> None:
    p = memory_players()
    code, _ = failure(lambda: p.ticket("mallory", player_ids=["alice"], allow_bots=True))
    assert code == grpc.StatusCode.PERMISSION_DENIED
    match_id = play_against_a_bot(p, "mallory")
    wait_for(lambda: p.rating("mallory").matches == 1, 10, "mallory's match rated")
    # mallory's match is no way into alice's rating: not as a player, nor
    # by joining, resigning or playing for her.
    code, _ = failure(lambda: p.join("mallory", match_id))
    assert code == grpc.StatusCode.FAILED_PRECONDITION  # the match is over
    alice = p.rating("alice")
    assert (alice.matches, alice.mu) == (0, pytest.approx(25.0))
    board = p.tickets.ListLeaderboard(
        mm.ListLeaderboardRequest(game=pb.GAME_KIND_OTHELLO), timeout=CALL_SECONDS
    )
    assert [r.player_id for r in board.ratings] == ["mallory"]
    mallory = p.rating("mallory")
    assert mallory.mu < 25.0  # resigned against a bot
    # alice's own match moves her rating, and mallory's not.
    play_against_a_bot(p, "alice")
    wait_for(lambda: p.rating("alice").matches == 1, 10, "alice's match rated")
    assert p.rating("mallory") == mallory
    own = p.tickets.GetRating(
        mm.GetRatingRequest(game=pb.GAME_KIND_OTHELLO),
        metadata=p.as_("alice"),
        timeout=CALL_SECONDS,
    ).rating
    assert own == p.rating("alice")
    assert own.player_id == "alice"


def test_nobody_else_acts_in_a_players_matchmade_match(
    memory_players: Callable[..., Players],
) -> None:
    p = memory_players()
    created = p.ticket("alice", allow_bots=True)
    assigned = p.watch(created)[-1].assigned
    match_id = assigned.match_id
    code, details = failure(lambda: p.join("mallory", match_id))
    assert (code, details) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "the match has no free human seat",
    )
    seat = assigned.seats[0].seat
    code, _ = failure(lambda: p.join("mallory", match_id, seat))
    assert code == grpc.StatusCode.FAILED_PRECONDITION  # taken
    resign = ms.ResignRequest(match_id=match_id)
    code, _ = failure(
        lambda: p.matches.Resign(resign, metadata=p.as_("mallory"), timeout=CALL_SECONDS)
    )
    assert code == grpc.StatusCode.UNAUTHENTICATED  # a seat token is needed, not a player's
    assert p.get(match_id).status == ms.MATCH_STATUS_PLAYING
    # alice's own JoinMatch gives her seat's token again, from any device.
    again = p.join("alice", match_id)
    assert (again.seat, again.seat_token) == (seat, assigned.seats[0].seat_token)


# --- party passes -----------------------------------------------------------------------


def test_a_party_pass_lets_its_leader_seat_the_member(players: Callable[..., Players]) -> None:
    p = players()
    began = time.time()
    given = p.party_pass("alice", "bob")
    assert began + 298 <= given.expire_time.ToMilliseconds() / 1000 <= time.time() + 302
    created = p.ticket("bob", party_passes=[given.party_pass])
    assert list(created.ticket.player_ids) == ["bob", "alice"]
    assigned = p.watch(created)[-1]
    assert assigned.HasField("assigned"), assigned
    seats = {s.player_id: s for s in assigned.assigned.seats}
    assert sorted(seats) == ["alice", "bob"]
    assert assigned.assigned.bot_seats == 0
    match_id = assigned.assigned.match_id
    match = p.get(match_id)
    assert match.status == ms.MATCH_STATUS_PLAYING
    wire = sorted((s.index, s.player_id, s.display_name, s.joined) for s in match.seats)
    expected = sorted((s.seat, name, NAMES[name], True) for name, s in seats.items())
    assert wire == expected
    version = p.version(match_id)
    for name in ("alice", "bob"):
        joined = p.join(name, match_id)
        assert (joined.seat, joined.seat_token) == (seats[name].seat, seats[name].seat_token)
    assert p.version(match_id) == version  # nothing written


def test_party_members_come_in_the_order_named(memory_players: Callable[..., Players]) -> None:
    p = memory_players()
    party_pass = p.party_pass("alice", "bob").party_pass
    created = p.ticket("bob", ROLIT, player_ids=["alice", "bob"], party_passes=[party_pass])
    assert list(created.ticket.player_ids) == ["alice", "bob"]


def test_a_party_pass_is_refused_for_another_leader_when_expired_or_forged(
    memory_players: Callable[..., Players],
) -> None:
    p = memory_players()
    for_bob = p.party_pass("alice", "bob").party_pass
    code, details = failure(lambda: p.ticket("mallory", party_passes=[for_bob]))
    assert (code, details) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "party_passes[0] lets another leader name its player",
    )
    code, _ = failure(
        lambda: p.ticket("mallory", player_ids=["mallory", "alice"], party_passes=[for_bob])
    )
    assert code == grpc.StatusCode.PERMISSION_DENIED
    signer = p.served.app.auth.signer
    expired = signer.sign(
        guests.PARTY_AUDIENCE, "alice", -60, name="Alice A.", src=1, leader="bob"
    ).token
    code, details = failure(lambda: p.ticket("bob", party_passes=[expired]))
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert details.startswith("party_passes[0] was refused (token expired)"), details
    # The pass for bob, its leader rewritten to mallory: the signature fails.
    head, _, signature = for_bob.split(".")
    claims = jwt.decode(for_bob, options={"verify_signature": False})
    body = jwt.utils.base64url_encode(json.dumps({**claims, "leader": "mallory"}).encode())
    forged = f"{head}.{body.decode()}.{signature}"
    code, details = failure(lambda: p.ticket("mallory", party_passes=[forged]))
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert details.startswith("party_passes[0] was refused (bad signature)"), details
    # alice's access token is no pass.
    code, details = failure(lambda: p.ticket("bob", party_passes=[p.served.token("alice")]))
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert details.startswith("party_passes[0] was refused (wrong audience)"), details
    code, details = failure(lambda: p.ticket("bob", party_passes=["garbage"]))
    assert code == grpc.StatusCode.PERMISSION_DENIED
    # A member without a pass, the same pass twice, a pass's player left out.
    code, _ = failure(
        lambda: p.ticket("bob", player_ids=["bob", "alice", "carol"], party_passes=[for_bob])
    )
    assert code == grpc.StatusCode.PERMISSION_DENIED
    code, details = failure(lambda: p.ticket("bob", party_passes=[for_bob, for_bob]))
    assert (code, "appears twice" in details) == (grpc.StatusCode.INVALID_ARGUMENT, True)
    code, _ = failure(lambda: p.ticket("bob", player_ids=["bob"], party_passes=[for_bob]))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    # None of it queued anyone: alice and bob are free to queue.
    assert p.ticket("alice").ticket.status == mm.TICKET_STATUS_QUEUED
    assert p.ticket("bob").ticket.status == mm.TICKET_STATUS_QUEUED


def test_a_party_pass_needs_a_leader_other_than_oneself(
    memory_players: Callable[..., Players],
) -> None:
    p = memory_players()
    for leader in ("alice", "", "x" * 65, "bad\nid"):
        code, details = failure(lambda leader=leader: p.party_pass("alice", leader))
        assert code == grpc.StatusCode.INVALID_ARGUMENT, leader
        assert details.startswith("leader_player_id: "), details


# --- seats follow their player ----------------------------------------------------------


def seat_events(p: Players, match_id: str) -> list[str]:
    """The kinds of the events of a finished match, in order."""
    request = ms.WatchMatchRequest(match_id=match_id, from_ply=0)
    events = list(p.matches.WatchMatch(request, timeout=WATCH_SECONDS))
    kinds = []
    for event in events[1:]:  # after the snapshot
        kind = event.WhichOneof("event")
        kinds.append(f"seat_joined:{event.seat_joined.seat}" if kind == "seat_joined" else kind)
    return kinds


def test_a_players_second_join_gives_the_same_token_and_writes_nothing(
    memory_players: Callable[..., Players],
) -> None:
    p = memory_players()
    match_id = p.create("carol").match.match_id
    first = p.join("alice", match_id)
    assert first.seat == 0
    version = p.version(match_id)
    # From another device: another access token of alice, another channel.
    device = signed_in_channel(
        grpc.insecure_channel(p.served.address),
        lambda: token_for(p.served.app, "alice", "Alice A.", seconds=600),
    )
    try:
        other = ms_grpc.MatchServiceStub(device).JoinMatch(
            ms.JoinMatchRequest(match_id=match_id), timeout=CALL_SECONDS
        )
    finally:
        device.close()
    assert (other.seat, other.seat_token) == (0, first.seat_token)
    explicit = p.join("alice", match_id, 0)
    assert (explicit.seat, explicit.seat_token) == (0, first.seat_token)
    assert p.version(match_id) == version  # nothing written
    code, details = failure(lambda: p.join("mallory", match_id, 0))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert "seat 0 is taken" in details
    started = p.join("bob", match_id)
    assert started.seat == 1
    assert started.match.status == ms.MATCH_STATUS_PLAYING
    seats = [(s.index, s.player_id, s.display_name, s.joined) for s in p.get(match_id).seats]
    assert seats == [(0, "alice", "Alice A.", True), (1, "bob", "Bob B.", True)]
    # Once playing, alice's join again is the same token, and the first token plays.
    assert p.join("alice", match_id).seat_token == first.seat_token
    move = ms.SubmitActionRequest(
        match_id=match_id, expected_ply=0, actions=[pb.Action(board=pb.BoardMove(square=19))]
    )
    mover = first if started.match.view.seat_to_act == 0 else started
    played = p.matches.SubmitAction(move, metadata=[(SEAT, mover.seat_token)], timeout=CALL_SECONDS)
    assert played.match.view.ply == 1
    resign = ms.ResignRequest(match_id=match_id)
    p.matches.Resign(resign, metadata=[(SEAT, first.seat_token)], timeout=CALL_SECONDS)
    kinds = seat_events(p, match_id)
    assert kinds.count("seat_joined:0") == 1, kinds
    assert kinds.count("seat_joined:1") == 1, kinds
    assert kinds[-1] == "ended"


def test_the_owner_token_retakes_a_seat_and_the_old_token_stops(
    memory_players: Callable[..., Players],
) -> None:
    p = memory_players()
    created = p.create("carol")
    match_id = created.match.match_id
    alices = p.join("alice", match_id, 0)
    retaken = p.join("carol", match_id, 0, metadata=((OWNER, created.owner_token),))
    assert retaken.seat == 0
    assert retaken.seat_token != alices.seat_token
    first_seat = retaken.match.seats[0]
    assert (first_seat.player_id, first_seat.display_name) == ("carol", "Carol")
    resign = ms.ResignRequest(match_id=match_id)
    code, _ = failure(
        lambda: p.matches.Resign(resign, metadata=[(SEAT, alices.seat_token)], timeout=CALL_SECONDS)
    )
    assert code == grpc.StatusCode.PERMISSION_DENIED
    # Another match's owner token retakes nothing here.
    other = p.create("mallory")
    code, _ = failure(
        lambda: p.join("mallory", match_id, 0, metadata=((OWNER, other.owner_token),))
    )
    assert code == grpc.StatusCode.PERMISSION_DENIED


def test_a_reserved_seat_is_its_players_only(memory_players: Callable[..., Players]) -> None:
    p = memory_players()
    created = p.create("carol", HUMAN, reserved("alice"))
    match_id = created.match.match_id
    wire = [(s.index, s.player_id, s.display_name, s.joined) for s in created.match.seats]
    assert wire == [(0, "", "", False), (1, "alice", "", False)]
    code, details = failure(lambda: p.join("mallory", match_id, 1))
    assert (code, details) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "seat 1 is reserved for another player",
    )
    code, _ = failure(
        lambda: p.join("carol", match_id, 1)
    )  # its creator neither, without the owner token
    assert code == grpc.StatusCode.PERMISSION_DENIED
    # alice, joining any seat, gets hers; then mallory the free one.
    alices = p.join("alice", match_id)
    assert alices.seat == 1
    mallorys = p.join("mallory", match_id)
    assert mallorys.seat == 0
    seats = [(s.index, s.player_id, s.display_name, s.joined) for s in p.get(match_id).seats]
    assert seats == [(0, "mallory", "Mallory", True), (1, "alice", "Alice A.", True)]
    # Every seat reserved for others: nothing for mallory.
    both = p.create("carol", reserved("alice"), reserved("bob")).match.match_id
    code, details = failure(lambda: p.join("mallory", both))
    assert (code, details) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "the match has no free human seat",
    )
    assert p.join("bob", both).seat == 1
    assert p.join("alice", both).seat == 0
    assert p.get(both).status == ms.MATCH_STATUS_PLAYING


@pytest.mark.parametrize(
    ("seats", "expected"),
    [
        ([reserved("x" * 65), HUMAN], "seats[0].player_id: a player id, 1 to 64"),
        ([HUMAN, reserved("bad\tid")], "seats[1].player_id: a player id, 1 to 64"),
        (
            [HUMAN, ms.SeatConfig(kind=ms.SEAT_KIND_BOT, player_id="alice")],
            "seats[1].player_id: only a human seat is reserved",
        ),
    ],
)
def test_bad_reservations_are_invalid_argument(
    memory_players: Callable[..., Players], seats: list[ms.SeatConfig], expected: str
) -> None:
    p = memory_players()
    code, details = failure(lambda: p.create("carol", *seats))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert details.startswith(expected), details


# --- limits per identity ----------------------------------------------------------------


def test_each_player_behind_one_address_has_its_own_match_budget(
    memory_players: Callable[..., Players],
) -> None:
    p = memory_players(matches_per_minute=2)
    for _ in range(2):
        p.create("alice")
        p.create("bob")
    code, details = failure(lambda: p.create("alice"))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "matches created per client" in details
    assert failure(lambda: p.create("bob"))[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
    p.create("carol")  # the same address, another player


def test_one_identitys_budget_is_spent_from_any_channel(serve: Callable[..., Served]) -> None:
    served = serve(Settings(rate_per_second=None, matches_per_minute=2), workers=1, web_port=0)
    p = Players(served)
    p.create("alice")
    web = Web(served)
    request = {"config": {"kind": "GAME_KIND_OTHELLO"}, "seats": [{"kind": "SEAT_KIND_HUMAN"}] * 2}
    alice = {"authorization": f"Bearer {token_for(served.app, 'alice', seconds=900)}"}
    status, body = web.call("MatchService/CreateMatch", request, **alice)
    assert status == 200, body
    status, body = web.call("MatchService/CreateMatch", request, **alice)
    assert (status, body["code"]) == (429, "resource_exhausted"), body
    channel = grpc.insecure_channel(served.address)
    try:
        another = ms_grpc.MatchServiceStub(channel)
        code, _ = failure(
            lambda: another.CreateMatch(
                ms.CreateMatchRequest(config=OTHELLO, seats=[HUMAN, HUMAN]),
                metadata=bearer(token_for(served.app, "alice", seconds=1200)),
                timeout=CALL_SECONDS,
            )
        )
    finally:
        channel.close()
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    status, body = web.call(
        "MatchService/CreateMatch", request, authorization=f"Bearer {served.token('bob')}"
    )
    assert status == 200, body


def test_tickets_are_limited_per_player(memory_players: Callable[..., Players]) -> None:
    p = memory_players(open_tickets=1, tickets_per_minute=3)
    p.ticket("alice")
    code, details = failure(lambda: p.ticket("alice", ROLIT))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "open tickets per player" in details
    assert p.ticket("bob", ROLIT).ticket.status == mm.TICKET_STATUS_QUEUED  # bob's own cap
    assert failure(lambda: p.ticket("alice", ROLIT))[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
    code, details = failure(lambda: p.ticket("alice", ROLIT))  # the 4th call this minute
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "tickets created per client" in details
    assert p.ticket("carol").ticket.status == mm.TICKET_STATUS_QUEUED
