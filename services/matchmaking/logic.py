"""Matchmaking as plain functions of their dependencies (``Matchmaker``: the
store, the match operations, the settings), testable without a server.

A ticket joins its game's queue (one per game and options). Passes
(``passes``) run per queue under a lease: they expire tickets past their
max_wait or heartbeat,
pair the rest (``pairing.pair``), and seat each table: claim its tickets,
create the match with every human seat taken (``create_seated_match``),
assign the tickets, then mark the match rated. A rater takes each finished
rated match and updates its players' ratings once.

Limits per client address (the address that created a ticket is stored
with it): CreateTicket's own rate (``tickets_per_minute``, per process, in
the servicer), open tickets (``open_tickets``, counted by the store, so
across replicas), and matches: a matchmade match costs one match of the
per-minute match budget (``matches_per_minute``, per process) of each
address with a ticket at its table. A pass pairs only tickets that are
watched now (a WatchTicket heartbeat within the last two heartbeat periods)
and whose address has a match left in its budget; the others wait.

Tokens of tickets with a request_id are HMAC-SHA256 under a server secret
(``token_secret``, or one the store keeps for all its replicas), bound to
the queue, the players and the request id.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import socket
import statistics
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

from meeple.v1 import game_pb2 as pb
from meeple.v1 import matchmaking_service_pb2 as mm

from engine_core import Game
from services.auth.identity import MAX_PLAYER_ID_CHARS, Identity, is_player_id
from services.convert import (
    WIRE_OF_KIND,
    config_of,
    game_from_config,
    game_name,
    wire_of,
)
from services.coordination.matchmaking import (
    Applied,
    MatchmakingStore,
    PlayerQueued,
    PlayerRating,
    ResultJob,
    Status,
    TicketExists,
    TicketRecord,
    TooManyTickets,
)
from services.errors import (
    BadRequest,
    FailedPrecondition,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    Unauthenticated,
    quoted,
)
from services.limits import RateLimiter, per_minute
from services.match_service import logic as matches
from services.match_service.logic import Matches
from services.match_service.seat_tokens import token_hash
from services.match_service.views import end_returns, name_at
from services.matchmaking.pairing import window_of
from services.matchmaking.ratings import new_rating, rate
from services.matchmaking.window import step_of
from services.settings import Settings

TICKET_TOKEN_METADATA = "meeple-ticket-token"
TICKET_SECRET = "ticket-secret"  # its name in the store
MAX_TICKET_ID_CHARS = 128
REQUEST_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
# A request id guessed is a ticket taken over (a retry returns its token):
# one with fewer distinct characters than this is refused ("aaaa...",
# "abab..."). Random ones almost never are: 16 letters and digits have
# fewer about once in 10^13 draws, 16 hexadecimal digits once in 2 million.
REQUEST_ID_DISTINCT = 5
SECRET_BYTES = 32
# A ticket is watched while its last heartbeat is this many heartbeat
# periods old at most (a watch beats once a period: a third of the timeout).
LIVE_BEATS = 2
BEATS_PER_TIMEOUT = 3
COMMIT_WAIT_SECONDS = 0.02  # a rated result may be read just before its match's write lands
COMMIT_WAITS = 50
PAGE_SIZE, MAX_PAGE_SIZE = 50, 500
match_log = logging.getLogger("meeple.match")


def replica_name() -> str:
    return f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


@dataclass
class Matchmaker:
    """``match_budget``: matches per client address, the matchmaker's and
    (when the same limiter is given to MatchService) CreateMatch's alike;
    by default one of its own, of ``settings.matches_per_minute``.
    ``fallback_secret``: offered to the store when ``settings.token_secret``
    is unset (the store keeps the first one offered)."""

    store: MatchmakingStore
    matches: Matches
    settings: Settings = field(default_factory=Settings)
    holder: str = field(default_factory=replica_name)
    match_budget: RateLimiter | None = None
    fallback_secret: bytes = field(
        default_factory=lambda: secrets.token_bytes(SECRET_BYTES), repr=False
    )
    # Tickets waiting per queue, as this replica's last pass saw them.
    waiting: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.match_budget is None:
            self.match_budget = per_minute(self.settings.matches_per_minute)

    @property
    def budget(self) -> RateLimiter:
        assert self.match_budget is not None  # set in __post_init__
        return self.match_budget

    def now_ms(self) -> int:
        return self.matches.now_ms()

    async def token_secret(self) -> bytes:
        """The secret ticket tokens derive from: the configured one, or the
        one the store shares among its users (read each time, so that a
        store that lost it and got another is followed)."""
        if self.settings.token_secret is not None:
            return self.settings.token_secret.encode()
        return await self.store.shared_secret(TICKET_SECRET, self.fallback_secret)


# --- queues and tickets ------------------------------------------------------------


def queue_config(game: Game) -> pb.GameConfig:
    """The config a queue stands for: the game's options, every one set,
    except the first seat (the match draws it) and the seat count (the
    table's)."""
    config = config_of(game)
    family = config.WhichOneof("options")
    if family is not None:
        options = getattr(config, family)
        options.ClearField("first_seat")
        seats = wire_of(game).seats_option
        if seats is not None:
            options.ClearField(seats)
    return config


def queue_name(game: Game, config: pb.GameConfig) -> str:
    digest = hashlib.sha256(config.SerializeToString(deterministic=True)).hexdigest()[:12]
    return f"{game.name}-{digest}"


def game_of_queue(queue: str) -> str:
    """The game of a ``queue_name``."""
    return queue.rpartition("-")[0]


def table_config(queue: pb.GameConfig, size: int) -> pb.GameConfig:
    """The match config of a table of ``size`` seats."""
    config = pb.GameConfig()
    config.CopyFrom(queue)
    seats = WIRE_OF_KIND[config.kind].seats_option
    family = config.WhichOneof("options")
    if seats is not None and family is not None:
        setattr(getattr(config, family), seats, size)
    return config


def party_of(
    request: mm.CreateTicketRequest, party: Sequence[Identity] | None
) -> tuple[list[str], list[str]]:
    """The ticket's players and their display names: with identities, the
    verified ``party`` (the caller, then each pass's player), in the order
    of ``player_ids`` when it names them; without, ``player_ids`` as sent."""
    named = list(request.player_ids)
    if party is None:
        if request.party_passes:
            raise BadRequest("party_passes: identities are off on this server; name the players")
        return named, []
    names = {member.player_id: member.display_name for member in party}
    if len(names) != len(party):
        raise BadRequest("party_passes: a player appears twice")
    if not named:
        return list(names), list(names.values())
    if len(set(named)) != len(named):
        raise BadRequest("player_ids: a player appears twice")
    strangers = [player for player in named if player not in names]
    if strangers:
        raise PermissionDenied(
            f"player_ids: {quoted(strangers[0])} did not agree to this party: a party "
            "member gives its consent with AuthService.CreatePartyPass, sent in party_passes"
        )
    if len(named) != len(names):
        raise BadRequest("player_ids: name the caller and every party pass's player, or none")
    return named, [names[player] for player in named]


def checked_request(
    request: mm.CreateTicketRequest, settings: Settings, players: list[str]
) -> tuple[Game, list[int], int]:
    """The game, the accepted table sizes and the max wait (ms) of a ticket
    request for ``players``, or BadRequest saying what is wrong."""
    config = request.config
    family = config.WhichOneof("options")
    if family is not None and getattr(config, family).HasField("first_seat"):
        raise BadRequest("config: leave first_seat unset; the match draws it")
    game = game_from_config(config)
    seats = wire_of(game).seats_option
    if seats is not None and family is not None and getattr(config, family).HasField(seats):
        raise BadRequest(f"config.{family}.{seats}: a ticket's table sizes are its seat_counts")
    kind = game.game_type
    allowed = range(kind.min_players, kind.max_players + 1)
    counts = sorted(set(request.seat_counts)) or list(allowed)
    if any(count not in allowed for count in counts):
        raise BadRequest(
            f"seat_counts: {game.name} tables have {kind.min_players}..{kind.max_players} seats"
        )
    if not players:
        raise BadRequest("player_ids: name at least one player")
    if len(set(players)) != len(players):
        raise BadRequest("player_ids: a player appears twice")
    if not all(is_player_id(p) for p in players):
        raise BadRequest(f"player_ids: each is 1 to {MAX_PLAYER_ID_CHARS} printable characters")
    if len(players) > max(counts):
        raise BadRequest(f"player_ids: a party of {len(players)} fits no table of {counts}")
    counts = [count for count in counts if count >= len(players)]
    if request.request_id:
        checked_request_id(request.request_id)
    max_wait = settings.ticket_max_wait
    if request.HasField("max_wait"):
        max_wait = request.max_wait.ToNanoseconds() / 1e9
        if not 1.0 <= max_wait <= settings.ticket_max_wait_max:
            raise BadRequest(f"max_wait: 1 s to {settings.ticket_max_wait_max:g} s")
    return game, counts, round(max_wait * 1000)


def checked_request_id(request_id: str) -> None:
    """BadRequest unless ``request_id`` looks random enough to be a secret."""
    if not REQUEST_ID.fullmatch(request_id):
        raise BadRequest("request_id: 16 to 64 letters, digits, '-' or '_' (random, per ticket)")
    distinct = len(set(request_id))
    if distinct == 1:
        raise BadRequest("request_id: one character repeated; make a random one per ticket")
    if distinct < REQUEST_ID_DISTINCT:
        raise BadRequest(
            f"request_id: {distinct} distinct characters, at least {REQUEST_ID_DISTINCT}; "
            "make a random one per ticket"
        )


async def create_ticket(
    maker: Matchmaker,
    request: mm.CreateTicketRequest,
    client: str = "",
    party: Sequence[Identity] | None = None,
) -> mm.CreateTicketResponse:
    """Queues a ticket for ``client`` (who its limits count: "" for none,
    which no cap counts) and its ``party`` (verified identities, the
    caller first; None: identities are off, the players are as named)."""
    players, names = party_of(request, party)
    game, counts, max_wait_ms = checked_request(request, maker.settings, players)
    config = queue_config(game)
    queue = queue_name(game, config)
    stored = await maker.store.ratings(game.name, players)
    rating = statistics.fmean(stored[p].mu if p in stored else new_rating(p).mu for p in players)
    if request.request_id:
        secret = await maker.token_secret()
        ticket_id, token = retry_identity(secret, queue, players, request.request_id)
    else:
        ticket_id, token = f"{queue}.{secrets.token_hex(8)}", secrets.token_urlsafe(32)
    now = maker.now_ms()
    ticket = TicketRecord(
        ticket_id=ticket_id,
        queue=queue,
        token_hash=token_hash(token),
        game=game.name,
        config=config.SerializeToString(),
        seat_counts=counts,
        player_ids=players,
        allow_bots=request.allow_bots,
        rating=rating,
        created_ms=now,
        expires_ms=now + max_wait_ms,
        seen_ms=now,
        client=client,
        names=names,
    )
    limit = maker.settings.open_tickets
    try:
        await maker.store.create_ticket(ticket, limit)
    except TicketExists:
        # A retry: of this request (its request_id), or of the store's own
        # write whose answer was lost. The ticket as it is now.
        ticket = await retried_ticket(maker, ticket)
    except PlayerQueued as error:
        raise already_queued(error) from None
    except TooManyTickets:
        # A retry of a ticket that ended is no new open ticket: the ticket.
        retried = await maker.store.load_ticket(ticket_id) if request.request_id else None
        if retried is None or retried.token_hash != ticket.token_hash:
            raise too_many_tickets(limit) from None
        ticket = retried
    return mm.CreateTicketResponse(ticket=ticket_message(ticket, now), ticket_token=token)


def retry_identity(
    secret: bytes, queue: str, players: list[str], request_id: str
) -> tuple[str, str]:
    """The ticket id and token a request_id stands for: the same in every
    retry (on every replica that shares the secret), and unguessable
    without the server's secret. Both are HMAC-SHA256 under it: the id of
    the queue and the request id (so that the same request id with other
    players finds the ticket, and is refused), the token of the queue, the
    players and the request id."""

    def mac(*parts: object) -> bytes:
        return hmac.new(secret, json.dumps(parts).encode(), hashlib.sha256).digest()

    ticket = mac("meeple-ticket-id", queue, request_id)
    token = mac("meeple-ticket-token", queue, players, request_id)
    return f"{queue}.{ticket[:8].hex()}", base64.urlsafe_b64encode(token).rstrip(b"=").decode()


def too_many_tickets(limit: int) -> ResourceExhausted:
    return ResourceExhausted(
        f"at most {limit} open tickets per player (per address without identities): "
        "wait for one to be seated or to end, or cancel one"
    )


def already_queued(error: PlayerQueued) -> FailedPrecondition:
    return FailedPrecondition(
        f"player {quoted(error.player_id)} has a queued ticket in this queue already: "
        "cancel it (CancelTicket) or wait for it to end"
    )


async def retried_ticket(maker: Matchmaker, ticket: TicketRecord) -> TicketRecord:
    stored = await maker.store.load_ticket(ticket.ticket_id)
    if stored is None:  # it ended and was dropped just now: a new one
        try:
            await maker.store.create_ticket(ticket, maker.settings.open_tickets)
        except PlayerQueued as error:
            raise already_queued(error) from None
        except TooManyTickets:
            raise too_many_tickets(maker.settings.open_tickets) from None
        return ticket
    if stored.token_hash != ticket.token_hash or stored.player_ids != ticket.player_ids:
        raise BadRequest("request_id: another ticket's; make a new one for each ticket")
    return stored


def ticket_message(ticket: TicketRecord, now_ms: int) -> mm.Ticket:
    message = mm.Ticket(
        ticket_id=ticket.ticket_id,
        status=int(ticket.status),  # type: ignore[arg-type]
        config=pb.GameConfig.FromString(ticket.config),
        seat_counts=ticket.seat_counts,
        player_ids=ticket.player_ids,
        allow_bots=ticket.allow_bots,
        rating=ticket.rating,
        window=window_of(ticket, now_ms),
    )
    message.create_time.FromMilliseconds(ticket.created_ms)
    message.expire_time.FromMilliseconds(ticket.expires_ms)
    if ticket.assignment:
        message.assignment.ParseFromString(ticket.assignment)
    return message


async def owned_ticket(maker: Matchmaker, ticket_id: str, token: str | None) -> TicketRecord:
    if not ticket_id or len(ticket_id) > MAX_TICKET_ID_CHARS or "." not in ticket_id:
        raise BadRequest("ticket_id: the id CreateTicket returned")
    ticket = await maker.store.load_ticket(ticket_id)
    if ticket is None:
        raise NotFound(f"no ticket {ticket_id!r} (it may have ended long ago)")
    if not token:
        raise Unauthenticated(
            f"the ticket token is needed in the {TICKET_TOKEN_METADATA!r} metadata"
        )
    if not hmac.compare_digest(ticket.token_hash, token_hash(token)):
        raise PermissionDenied("this token is not this ticket's")
    return ticket


async def cancel_ticket(maker: Matchmaker, ticket_id: str, token: str | None) -> mm.Ticket:
    await owned_ticket(maker, ticket_id, token)
    ticket = await maker.store.cancel_ticket(ticket_id)
    if ticket is None:
        raise NotFound(f"no ticket {ticket_id!r}")
    return ticket_message(ticket, maker.now_ms())


async def watch_ticket(
    maker: Matchmaker, ticket_id: str, token: str | None
) -> AsyncIterator[mm.WatchTicketResponse]:
    """A snapshot, each widening of the window, then the assignment or the
    end. While the stream is open, it is the ticket's heartbeat: it beats
    as it opens (only a watched ticket is paired), then once a period (a
    third of the heartbeat timeout)."""
    ticket = await owned_ticket(maker, ticket_id, token)
    beat_every_ms = maker.settings.ticket_heartbeat_timeout * 1000 / BEATS_PER_TIMEOUT
    next_beat = float(maker.now_ms())
    if ticket.status is Status.QUEUED:
        next_beat = await beat(maker, ticket, beat_every_ms)
    now = maker.now_ms()
    yield mm.WatchTicketResponse(snapshot=ticket_message(ticket, now))
    step = step_of(window_of(ticket, now))
    while ticket.status is Status.QUEUED:
        if maker.now_ms() >= next_beat:
            next_beat = await beat(maker, ticket, beat_every_ms)
        until_beat = (next_beat - maker.now_ms()) / 1000
        waited = await maker.store.wait_ticket(ticket, min(max(until_beat, 0.01), 1.0))
        if waited is None:
            raise NotFound(f"ticket {ticket_id!r} is gone")
        ticket = waited
        now = maker.now_ms()
        if ticket.status is Status.QUEUED and step_of(window_of(ticket, now)) > step:
            step = step_of(window_of(ticket, now))
            yield mm.WatchTicketResponse(widened=mm.WindowWidened(window=window_of(ticket, now)))
    if ticket.status is Status.ASSIGNED:
        yield mm.WatchTicketResponse(assigned=mm.Assignment.FromString(ticket.assignment))
    else:
        yield mm.WatchTicketResponse(ended=ticket_message(ticket, maker.now_ms()))


async def beat(maker: Matchmaker, ticket: TicketRecord, every_ms: float) -> float:
    """A watch's heartbeat (always after the ticket's creation, so that the
    ticket counts as watched); when the next one is due."""
    now = maker.now_ms()
    if not await maker.store.heartbeat(ticket.ticket_id, max(now, ticket.created_ms + 1)):
        raise NotFound(f"ticket {ticket.ticket_id!r} is gone: create another")  # the store lost it
    return now + every_ms


# --- ratings ---------------------------------------------------------------------------


async def rate_result(maker: Matchmaker, job: ResultJob) -> bool:
    """Updates the ratings of a finished rated match once; False while the
    match's finishing write has not landed yet (the result comes back)."""
    for _ in range(COMMIT_WAITS):
        data = await maker.matches.coordination.load(job.match_id)
        if data is None or data.version >= job.version:
            break
        await asyncio.sleep(COMMIT_WAIT_SECONDS)
    else:
        return False
    if data is None or data.status != matches.FINISHED or not data.rated:
        return True  # expired, or its change lost a race: nothing to rate
    state = await maker.matches.states.state(data)
    returns = end_returns(data, state)
    game = state.game.name
    humans = [player for player in data.players if player]
    while True:
        stored = await maker.store.ratings(game, humans)
        current = {p: stored.get(p) or new_rating(p) for p in humans}
        seats: list[PlayerRating | str] = [
            current[player] if player else bot_level(data.bot_specs[seat])
            for seat, player in enumerate(data.players)
        ]
        named = {player: name_at(data, seat) for seat, player in enumerate(data.players)}
        after = [  # each player's name as it sat in this match (else the one before)
            dataclasses.replace(
                r, display_name=named[r.player_id] or current[r.player_id].display_name
            )
            for r in rate(seats, returns)
        ]
        before = {p: current[p].version for p in humans}
        outcome = await maker.store.apply_ratings(game, data.match_id, before, after)
        if outcome is not Applied.CONFLICT:
            return True


def bot_level(spec: str) -> str:
    """The level a matchmaker's bot seat plays at (its spec is a level)."""
    return spec if spec in ("easy", "medium", "hard", "expert") else "medium"


async def rating(maker: Matchmaker, game_kind: int, player_id: str) -> mm.Rating:
    game = game_name(game_kind)
    if not 1 <= len(player_id) <= MAX_PLAYER_ID_CHARS:
        raise BadRequest(f"player_id: 1 to {MAX_PLAYER_ID_CHARS} characters")
    stored = await maker.store.ratings(game, [player_id])
    return rating_message(stored.get(player_id) or new_rating(player_id))


async def leaderboard(
    maker: Matchmaker, request: mm.ListLeaderboardRequest
) -> mm.ListLeaderboardResponse:
    game = game_name(request.game)
    size = request.page_size or PAGE_SIZE
    if size > MAX_PAGE_SIZE:
        raise BadRequest(f"page_size: at most {MAX_PAGE_SIZE}")
    offset = 0
    if request.page_token:
        if not request.page_token.isdigit() or len(request.page_token) > 9:
            raise BadRequest("page_token: the next_page_token of a previous page")
        offset = int(request.page_token)
    page = await maker.store.leaderboard(game, offset, size + 1)
    response = mm.ListLeaderboardResponse(ratings=[rating_message(r) for r in page[:size]])
    if len(page) > size:
        response.next_page_token = str(offset + size)
    return response


def rating_message(rating: PlayerRating) -> mm.Rating:
    return mm.Rating(
        player_id=rating.player_id,
        mu=rating.mu,
        sigma=rating.sigma,
        ordinal=rating.ordinal,
        matches=rating.matches,
        display_name=rating.display_name,
    )
