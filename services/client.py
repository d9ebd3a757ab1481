"""A thin Python client for a meeple server: sign in, create a match against
bots, join, submit, watch; or find a match through matchmaking: a ticket,
watched until it is seated. Third-party code may use the generated stubs in
``meeple.v1`` directly; this wraps the common steps.

A client acts for one player: a guest it signs in (``sign_in_guest``; the
session is kept and refreshed before its access token expires), or the
player of an access token it is given (``MeepleClient(address,
token=...)``, e.g. the studio provider's). It sends the token on the calls
that act for the player: CreateMatch, JoinMatch, CreateTicket,
CreatePartyPass, GetIdentity and GetRating of one's own rating.

>>> client = MeepleClient("127.0.0.1:50051")             # doctest: +SKIP
>>> session = client.sign_in_guest("ann")                 # or MeepleClient(..., token=...)
>>> match = client.create_match("othello", ["human", "hard"]).match
>>> seat = client.join(match.match_id)
>>> for event in client.watch(match.match_id): ...

>>> ticket = client.create_ticket("othello")              # doctest: +SKIP
>>> seat = client.wait_for_match(ticket).seat             # a SeatHandle, as join gives

A party: each other member agrees to the leader's ticket with a pass.

>>> bo_pass = bo.party_pass(client.player_id)             # doctest: +SKIP
>>> ticket = client.create_ticket("othello", party_passes=[bo_pass])
>>> seats = client.wait_for_match(ticket).seats           # by player id
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.duration_pb2 import Duration
from meeple.v1 import ai_service_pb2 as ai
from meeple.v1 import ai_service_pb2_grpc as ai_grpc
from meeple.v1 import auth_service_pb2 as auth
from meeple.v1 import auth_service_pb2_grpc as auth_grpc
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import matchmaking_service_pb2 as mm
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc
from meeple.v1 import rules_service_pb2 as rules
from meeple.v1 import rules_service_pb2_grpc as rules_grpc

SEAT_TOKEN_METADATA = "meeple-seat-token"
OWNER_TOKEN_METADATA = "meeple-owner-token"
TICKET_TOKEN_METADATA = "meeple-ticket-token"
AUTHORIZATION_METADATA = "authorization"
# A session is refreshed when less than this is left of its access token
# (or less than half its lifetime, for short ones): early enough for a
# clock a little off the server's.
REFRESH_MARGIN_SECONDS = 300.0
# A CreateTicket whose answer may have been lost: retried with the same request_id.
RETRIED_CODES = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
KINDS = {
    "rolit": pb.GAME_KIND_ROLIT,
    "othello": pb.GAME_KIND_OTHELLO,
    "volleyball": pb.GAME_KIND_VOLLEYBALL,
    "volta": pb.GAME_KIND_VOLTA,
}


def game_config(game: str, **options: Any) -> pb.GameConfig:
    """A GameConfig from a game name and its options, e.g.
    ``game_config("rolit", players=3)`` or ``game_config("volleyball", big_leagues=True)``."""
    if game not in KINDS:
        raise ValueError(f"unknown game {game!r}; games: {', '.join(KINDS)}")
    config = pb.GameConfig(kind=KINDS[game])
    if options:
        family = {"rolit": "rolit", "volleyball": "volleyball", "volta": "volta"}.get(game)
        if family is None:
            raise ValueError(f"{game} takes no options")
        if family == "volta" and "dents" in options:
            names = {"large": pb.DENT_SIZE_LARGE, "small": pb.DENT_SIZE_SMALL}
            options = {**options, "dents": [names[d] for d in options["dents"]]}
        getattr(config, family).CopyFrom(type(getattr(config, family))(**options))
    return config


def seat_config(who: str) -> ms.SeatConfig:
    """``"human"`` or a bot's level or spec (e.g. ``"hard"``)."""
    if who == "human":
        return ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)
    return ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec=who)


@dataclass(frozen=True)
class SeatHandle:
    """A joined seat: what SubmitAction and Resign need."""

    match_id: str
    seat: int
    token: str

    @property
    def metadata(self) -> tuple[tuple[str, str | bytes], ...]:
        return ((SEAT_TOKEN_METADATA, self.token),)


@dataclass(frozen=True)
class TicketHandle:
    """A created ticket: what WatchTicket and CancelTicket need, and the
    request id that a retry of its CreateTicket sends again."""

    ticket_id: str
    token: str
    request_id: str

    @property
    def metadata(self) -> tuple[tuple[str, str | bytes], ...]:
        return ((TICKET_TOKEN_METADATA, self.token),)


@dataclass(frozen=True)
class TicketAssignment:
    """The match a ticket was seated in: a SeatHandle for each of the
    party's players (by player id), ready for submit and resign."""

    match_id: str
    seats: Mapping[str, SeatHandle]
    bot_seats: int

    @classmethod
    def of(cls, assignment: mm.Assignment) -> TicketAssignment:
        seats = {
            s.player_id: SeatHandle(assignment.match_id, s.seat, s.seat_token)
            for s in assignment.seats
        }
        return cls(assignment.match_id, seats, assignment.bot_seats)

    @property
    def seat(self) -> SeatHandle:
        """The seat of a one-player ticket."""
        if len(self.seats) != 1:
            raise ValueError(f"a party of {len(self.seats)} has a seat each: see .seats")
        (only,) = self.seats.values()
        return only


class TicketEnded(Exception):
    """The ticket expired or was cancelled before a table was found."""

    def __init__(self, ticket: mm.Ticket) -> None:
        status = mm.TicketStatus.Name(ticket.status).removeprefix("TICKET_STATUS_").lower()
        super().__init__(f"ticket {ticket.ticket_id} {status}")
        self.ticket = ticket


def new_request_id() -> str:
    """A random request id for one ticket (32 letters, digits, '-' or '_')."""
    return secrets.token_urlsafe(24)


def game_kind(game: str | pb.GameKind) -> pb.GameKind:
    """A GameKind from a game name (or a GameKind itself)."""
    if not isinstance(game, str):
        return game
    if game not in KINDS:
        raise ValueError(f"unknown game {game!r}; games: {', '.join(KINDS)}")
    return KINDS[game]


class MeepleClient:
    """Stubs for every service over one channel, with the usual steps.

    ``token``: an access token to act with (the studio provider's, or a
    guest session's kept elsewhere); it is sent as given, never refreshed.
    Without one, ``sign_in_guest`` makes the client a guest's. A client
    with neither acts for nobody: fine for watching, and for a server with
    identities off (MEEPLE_AUTH=off), where requests name their players."""

    def __init__(self, address: str, timeout: float = 30.0, token: str | None = None) -> None:
        self.channel = grpc.insecure_channel(address)
        self.timeout = timeout
        self.rules = rules_grpc.RulesServiceStub(self.channel)
        self.matches = ms_grpc.MatchServiceStub(self.channel)
        self.ai = ai_grpc.AIServiceStub(self.channel)
        self.tickets = mm_grpc.MatchmakingServiceStub(self.channel)
        self.auth = auth_grpc.AuthServiceStub(self.channel)
        self.session: auth.Session | None = None  # a signed-in guest's, kept fresh
        self._token = token
        self._renew_at = float("inf")  # time.monotonic() when the session is refreshed
        self._session_lock = threading.Lock()  # one refresh at a time, across threads

    # --- identity ----------------------------------------------------------------------

    def sign_in_guest(self, display_name: str) -> auth.Session:
        """Signs in a new guest (``display_name``: 1 to 24 letters, digits,
        spaces and - _ . ') and acts for it from now on: the session is kept
        and refreshed before its access token expires. The server limits
        sign-ins per address (RESOURCE_EXHAUSTED beyond); a server with
        identities off refuses them (FAILED_PRECONDITION)."""
        request = auth.SignInGuestRequest(display_name=display_name)
        session = self.auth.SignInGuest(request, timeout=self.timeout).session
        with self._session_lock:
            self._keep(session)
        return session

    def refresh_session(self) -> auth.Session:
        """Trades the session's refresh token for a new session of the same
        guest now (the acting calls do it by themselves when it is due)."""
        with self._session_lock:
            if self.session is None:
                raise ValueError("no session to refresh: sign_in_guest first")
            return self._refresh()

    def _keep(self, session: auth.Session) -> None:
        lifetime = session.access_expire_time.ToMilliseconds() / 1000 - time.time()
        margin = min(REFRESH_MARGIN_SECONDS, max(lifetime, 0.0) / 2)
        self.session = session
        self._token = session.access_token
        self._renew_at = time.monotonic() + lifetime - margin

    def _refresh(self) -> auth.Session:
        assert self.session is not None
        request = auth.RefreshSessionRequest(refresh_token=self.session.refresh_token)
        session = self.auth.RefreshSession(request, timeout=self.timeout).session
        self._keep(session)
        return session

    @property
    def token(self) -> str | None:
        """The access token the acting calls send (None: none)."""
        return self._token

    @property
    def player_id(self) -> str | None:
        """The signed-in guest's player id (None without a session: see ``identity``)."""
        return self.session.identity.player_id if self.session is not None else None

    def bearer(self) -> tuple[tuple[str, str], ...]:
        """The ``authorization`` metadata of the acting calls, refreshing the
        session first when it is due; empty without a token."""
        with self._session_lock:
            if self.session is not None and time.monotonic() >= self._renew_at:
                self._refresh()
            token = self._token
        return ((AUTHORIZATION_METADATA, f"Bearer {token}"),) if token else ()

    def identity(self) -> auth.Identity:
        """Whom the token names, as the server verified it."""
        request = auth.GetIdentityRequest()
        return self.auth.GetIdentity(request, metadata=self.bearer(), timeout=self.timeout).identity

    def party_pass(self, leader_id: str) -> str:
        """This player's consent to sit in the party of ``leader_id``: a pass
        for the leader's ``create_ticket(..., party_passes=[...])``, good
        for one leader and for 5 minutes."""
        request = auth.CreatePartyPassRequest(leader_player_id=leader_id)
        response = self.auth.CreatePartyPass(request, metadata=self.bearer(), timeout=self.timeout)
        return response.party_pass

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> MeepleClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def create_match(
        self,
        game: str | pb.GameConfig,
        seats: Sequence[str],
        time_control: ms.TimeControl | None = None,
    ) -> ms.CreateMatchResponse:
        """A new match (``.match``) and its owner token (``.owner_token``)."""
        config = game_config(game) if isinstance(game, str) else game
        request = ms.CreateMatchRequest(
            config=config, seats=[seat_config(s) for s in seats], time_control=time_control
        )
        return self.matches.CreateMatch(request, metadata=self.bearer(), timeout=self.timeout)

    def join(
        self, match_id: str, seat: int | None = None, owner_token: str | None = None
    ) -> SeatHandle:
        """Takes a human seat for this client's player: its own seat if it
        holds one (the same seat token again), else the first free one it
        may take, unless ``seat`` is given; with the match's owner token,
        retakes a joined seat whose token was lost."""
        request = ms.JoinMatchRequest(match_id=match_id)
        if seat is not None:
            request.seat = seat
        metadata = self.bearer()
        if owner_token:
            metadata += ((OWNER_TOKEN_METADATA, owner_token),)
        response = self.matches.JoinMatch(request, metadata=metadata, timeout=self.timeout)
        return SeatHandle(match_id, response.seat, response.seat_token)

    def get(self, match_id: str) -> ms.GetMatchResponse:
        return self.matches.GetMatch(ms.GetMatchRequest(match_id=match_id), timeout=self.timeout)

    def submit(
        self, handle: SeatHandle, expected_ply: int, actions: Sequence[pb.Action]
    ) -> ms.SubmitActionResponse:
        request = ms.SubmitActionRequest(
            match_id=handle.match_id, expected_ply=expected_ply, actions=list(actions)
        )
        return self.matches.SubmitAction(request, metadata=handle.metadata, timeout=self.timeout)

    def resign(self, handle: SeatHandle) -> ms.Match:
        request = ms.ResignRequest(match_id=handle.match_id)
        return self.matches.Resign(request, metadata=handle.metadata, timeout=self.timeout).match

    def legal_actions(self, record: pb.GameRecord) -> rules.ListLegalActionsResponse:
        request = rules.ListLegalActionsRequest(record=record)
        return self.rules.ListLegalActions(request, timeout=self.timeout)

    def suggest(self, record: pb.GameRecord, bot_spec: str, seed: int = 0) -> pb.ActionInfo:
        request = ai.SuggestActionRequest(record=record, bot_spec=bot_spec, seed=seed)
        return self.ai.SuggestAction(request, timeout=self.timeout).action

    def watch(
        self, match_id: str, from_ply: int = 0, retries: int = 5
    ) -> Iterator[ms.WatchMatchResponse]:
        """The match's events until it ends, after a snapshot of the match;
        when the connection drops, it resumes after the last event received,
        so none is lost or repeated (nor the snapshot sent again)."""
        next_ply, failures = from_ply, 0
        seen: set[bytes] = set()  # events received at next_ply or later
        snapshot_sent = False
        while True:
            request = ms.WatchMatchRequest(match_id=match_id, from_ply=next_ply)
            try:
                for event in self.matches.WatchMatch(request):
                    failures = 0
                    if event.HasField("snapshot"):
                        if not snapshot_sent:
                            snapshot_sent = True
                            yield event
                        continue
                    raw = event.SerializeToString()
                    if raw in seen:
                        continue
                    yield event
                    if event.HasField("ended"):
                        return
                    if event.HasField("action"):
                        next_ply, seen = event.ply + 1, set()
                    else:
                        seen.add(raw)
                return
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE or failures >= retries:
                    raise
                failures += 1
                time.sleep(0.2 * 2**failures)

    def wait_for_turn(self, handle: SeatHandle, poll: float = 0.05) -> ms.GetMatchResponse | None:
        """Waits until ``handle``'s seat is to act (the match and its record),
        or None once the match is over."""
        while True:
            got = self.get(handle.match_id)
            if got.match.status == ms.MATCH_STATUS_FINISHED:
                return None
            view = got.match.view
            if (
                got.match.status == ms.MATCH_STATUS_PLAYING
                and view.HasField("seat_to_act")
                and view.seat_to_act == handle.seat
            ):
                return got
            time.sleep(poll)

    def create_ticket(
        self,
        game: str | pb.GameConfig,
        players: str | Sequence[str] = (),
        seat_counts: Sequence[int] = (),
        allow_bots: bool = False,
        max_wait: float | None = None,
        request_id: str | None = None,
        retries: int = 3,
        party_passes: Sequence[str] = (),
    ) -> TicketHandle:
        """Queues this client's player, with the player of each of
        ``party_passes`` (each member's ``party_pass`` naming this player as
        leader; they sit at one table), for a match of ``game`` at a table
        of one of ``seat_counts`` (empty: any size the game has); with
        ``allow_bots``, bots fill the empty seats after a wait; ``max_wait``
        in seconds (default: the server's, 2 minutes). The ticket lives
        while it is watched (``watch_ticket``, ``wait_for_match``):
        unwatched, it expires within seconds. A player has one queued ticket
        per queue at most (FAILED_PRECONDITION beyond).

        ``players`` may name the party (this player and the passes'
        players, in any order) or stay empty for them; on a server with
        identities off, it names the players, who are not verified.

        The ticket's request id is made here (or given, to retry a ticket of
        an earlier call or process) and sent again on each retry: when an
        answer is lost (UNAVAILABLE, DEADLINE_EXCEEDED) the retry returns
        the same ticket and token rather than queueing the party twice."""
        config = game_config(game) if isinstance(game, str) else game
        wait = None
        if max_wait is not None:
            wait = Duration()
            wait.FromNanoseconds(round(max_wait * 1e9))
        request = mm.CreateTicketRequest(
            config=config,
            seat_counts=list(seat_counts),
            player_ids=[players] if isinstance(players, str) else list(players),
            allow_bots=allow_bots,
            max_wait=wait,
            request_id=request_id or new_request_id(),
            party_passes=list(party_passes),
        )
        failures = 0
        while True:
            try:
                created = self.tickets.CreateTicket(
                    request, metadata=self.bearer(), timeout=self.timeout
                )
                break
            except grpc.RpcError as error:
                if error.code() not in RETRIED_CODES or failures >= retries:
                    raise
                failures += 1
                time.sleep(0.2 * 2**failures)
        return TicketHandle(created.ticket.ticket_id, created.ticket_token, request.request_id)

    def watch_ticket(
        self, ticket: TicketHandle, retries: int = 5
    ) -> Generator[mm.WatchTicketResponse, None, TicketAssignment]:
        """The ticket's events: a snapshot, each widening of its rating
        window, then ``assigned`` (the generator returns that assignment)
        or ``ended`` (then it raises TicketEnded). While it is read, the
        ticket stays alive; when the connection drops, it reopens the stream
        (the new stream's snapshot is not passed on)."""
        request = mm.WatchTicketRequest(ticket_id=ticket.ticket_id)
        failures = 0
        snapshot_sent = False
        while True:
            try:
                for event in self.tickets.WatchTicket(request, metadata=ticket.metadata):
                    failures = 0
                    if event.HasField("snapshot"):
                        if snapshot_sent:
                            continue
                        snapshot_sent = True
                    yield event
                    if event.HasField("assigned"):
                        return TicketAssignment.of(event.assigned)
                    if event.HasField("ended"):
                        raise TicketEnded(event.ended)
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE or failures >= retries:
                    raise
            else:  # the stream ended without its last message
                if failures >= retries:
                    raise RuntimeError(f"ticket {ticket.ticket_id}: its stream kept ending early")
            failures += 1
            time.sleep(0.2 * 2**failures)

    def wait_for_match(self, ticket: TicketHandle) -> TicketAssignment:
        """Watches the ticket until it is seated: its assignment (TicketEnded
        if it expired or was cancelled first)."""
        events = self.watch_ticket(ticket)
        while True:
            try:
                next(events)
            except StopIteration as done:
                assignment: TicketAssignment = done.value
                return assignment

    def cancel_ticket(self, ticket: TicketHandle) -> mm.Ticket:
        """Takes the ticket out of its queue: the ticket as it ends,
        cancelled, or what it had become (assigned, expired) before."""
        request = mm.CancelTicketRequest(ticket_id=ticket.ticket_id)
        response = self.tickets.CancelTicket(
            request, metadata=ticket.metadata, timeout=self.timeout
        )
        return response.ticket

    def get_rating(self, game: str | pb.GameKind, player_id: str | None = None) -> mm.Rating:
        """A player's rating in a game (a new player's if none is stored);
        without ``player_id``, this client's player's."""
        request = mm.GetRatingRequest(game=game_kind(game), player_id=player_id or "")
        metadata = self.bearer() if not player_id else ()
        return self.tickets.GetRating(request, metadata=metadata, timeout=self.timeout).rating

    def leaderboard(self, game: str | pb.GameKind, limit: int | None = 50) -> list[mm.Rating]:
        """A game's players by rating (ordinal), best first: the first
        ``limit``, or all of them with None (page after page)."""
        ratings: list[mm.Rating] = []
        token = ""
        while limit is None or len(ratings) < limit:
            page_size = 500 if limit is None else min(limit - len(ratings), 500)
            request = mm.ListLeaderboardRequest(
                game=game_kind(game), page_size=page_size, page_token=token
            )
            page = self.tickets.ListLeaderboard(request, timeout=self.timeout)
            ratings += page.ratings
            token = page.next_page_token
            if not token:
                break
        return ratings
