"""Matchmaking as plain functions of their dependencies (``Matchmaker``: the
store, the match operations, the settings), testable without a server.

A ticket joins its game's queue (one per game and options). Passes run per
queue under a lease: they expire tickets past their max_wait or heartbeat,
pair the rest (``pairing.pair``), and seat each table: claim its tickets,
create the match with every human seat taken (``create_seated_match``),
assign the tickets, then mark the match rated. A rater takes each finished
rated match and updates its players' ratings once.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import logging
import os
import re
import secrets
import socket
import statistics
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import matchmaking_service_pb2 as mm

from engine_core import Game
from services.convert import WIRE_OF_KIND, WIRES, config_of, game_from_config, wire_of
from services.coordination import MatchData
from services.coordination.matchmaking import (
    Applied,
    MatchmakingStore,
    PlayerRating,
    ResultJob,
    Status,
    TicketExists,
    TicketRecord,
)
from services.errors import BadRequest, NotFound, PermissionDenied, Unauthenticated
from services.match_service import logic as matches
from services.match_service.logic import Matches
from services.matchmaking.pairing import Table, pair, window_of
from services.matchmaking.ratings import bot_level_for, new_rating, rate
from services.matchmaking.window import step_of
from services.metrics import (
    MM_ASSIGNMENT_SECONDS,
    MM_BOT_FILLS,
    MM_EXPIRED,
    MM_MATCHES,
    MM_TICKETS_WAITING,
)
from services.settings import Settings

TICKET_TOKEN_METADATA = "meeple-ticket-token"
MAX_PLAYER_ID_CHARS = 64
MAX_TICKET_ID_CHARS = 128
REQUEST_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
COMMIT_WAIT_SECONDS = 0.02  # a rated result may be read just before its match's write lands
COMMIT_WAITS = 50
PAGE_SIZE, MAX_PAGE_SIZE = 50, 500
match_log = logging.getLogger("meeple.match")


def replica_name() -> str:
    return f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


@dataclass
class Matchmaker:
    store: MatchmakingStore
    matches: Matches
    settings: Settings = field(default_factory=Settings)
    holder: str = field(default_factory=replica_name)

    def now_ms(self) -> int:
        return self.matches.now_ms()


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


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


def table_config(queue: pb.GameConfig, size: int) -> pb.GameConfig:
    """The match config of a table of ``size`` seats."""
    config = pb.GameConfig()
    config.CopyFrom(queue)
    seats = WIRE_OF_KIND[config.kind].seats_option
    family = config.WhichOneof("options")
    if seats is not None and family is not None:
        setattr(getattr(config, family), seats, size)
    return config


def checked_request(
    request: mm.CreateTicketRequest, settings: Settings
) -> tuple[Game, list[int], int]:
    """The game, the accepted table sizes and the max wait (ms) of a ticket
    request, or BadRequest saying what is wrong."""
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
    players = list(request.player_ids)
    if not players:
        raise BadRequest("player_ids: name at least one player")
    if len(set(players)) != len(players):
        raise BadRequest("player_ids: a player appears twice")
    if any(not 1 <= len(p) <= MAX_PLAYER_ID_CHARS or not p.isprintable() for p in players):
        raise BadRequest(f"player_ids: each is 1 to {MAX_PLAYER_ID_CHARS} printable characters")
    if len(players) > max(counts):
        raise BadRequest(f"player_ids: a party of {len(players)} fits no table of {counts}")
    counts = [count for count in counts if count >= len(players)]
    if request.request_id and not REQUEST_ID.fullmatch(request.request_id):
        raise BadRequest("request_id: 16 to 64 letters, digits, '-' or '_' (random, per ticket)")
    max_wait = settings.ticket_max_wait
    if request.HasField("max_wait"):
        max_wait = request.max_wait.ToNanoseconds() / 1e9
        if not 1.0 <= max_wait <= settings.ticket_max_wait_max:
            raise BadRequest(f"max_wait: 1 s to {settings.ticket_max_wait_max:g} s")
    return game, counts, round(max_wait * 1000)


async def create_ticket(
    maker: Matchmaker, request: mm.CreateTicketRequest
) -> mm.CreateTicketResponse:
    game, counts, max_wait_ms = checked_request(request, maker.settings)
    config = queue_config(game)
    queue = queue_name(game, config)
    players = list(request.player_ids)
    stored = await maker.store.ratings(game.name, players)
    rating = statistics.fmean(stored[p].mu if p in stored else new_rating(p).mu for p in players)
    if request.request_id:
        ticket_id, token = retry_identity(queue, request.request_id)
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
    )
    try:
        await maker.store.create_ticket(ticket)
    except TicketExists:
        # A retry: of this request (its request_id), or of the store's own
        # write whose answer was lost. The ticket as it is now.
        ticket = await retried_ticket(maker, ticket)
    return mm.CreateTicketResponse(ticket=ticket_message(ticket, now), ticket_token=token)


def retry_identity(queue: str, request_id: str) -> tuple[str, str]:
    """The ticket id and token a request_id stands for: the same in every
    retry, and unguessable without it."""
    digest = hashlib.sha256(f"meeple-ticket:{request_id}".encode()).digest()
    token = base64.urlsafe_b64encode(hashlib.sha256(b"token:" + digest).digest())
    return f"{queue}.{digest[:8].hex()}", token.rstrip(b"=").decode()


async def retried_ticket(maker: Matchmaker, ticket: TicketRecord) -> TicketRecord:
    stored = await maker.store.load_ticket(ticket.ticket_id)
    if stored is None:  # it ended and was dropped just now: a new one
        await maker.store.create_ticket(ticket)
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
    end. While the stream is open, it is the ticket's heartbeat."""
    ticket = await owned_ticket(maker, ticket_id, token)
    now = maker.now_ms()
    yield mm.WatchTicketResponse(snapshot=ticket_message(ticket, now))
    step = step_of(window_of(ticket, now))
    beat_every = maker.settings.ticket_heartbeat_timeout / 3
    beaten = ticket.seen_ms
    while ticket.status is Status.QUEUED:
        if maker.now_ms() - beaten >= beat_every * 1000:
            beaten = maker.now_ms()
            if not await maker.store.heartbeat(ticket_id, beaten):  # the store lost it
                raise NotFound(f"ticket {ticket_id!r} is gone: create another")
        waited = await maker.store.wait_ticket(ticket, min(beat_every, 1.0))
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


# --- passes ----------------------------------------------------------------------------


async def run_pass(maker: Matchmaker, queue: str) -> int:
    """One pass over ``queue`` if this replica holds its lease; the tables seated."""
    store, settings = maker.store, maker.settings
    fence = await store.acquire_lease(queue, maker.holder, settings.matchmaker_lease)
    if fence is None:
        return 0
    now = maker.now_ms()
    tickets = await store.queued(queue)
    claimed = [t.ticket_id for t in tickets if t.claim]
    if claimed:  # claims of a pass that ended before assigning (a crash)
        await store.release(queue, fence, claimed)
    heartbeat_ms = round(settings.ticket_heartbeat_timeout * 1000)
    late = [t for t in tickets if t.expires_ms <= now]
    silent = [t for t in tickets if t.expires_ms > now and t.seen_ms + heartbeat_ms <= now]
    if late or silent:
        await store.expire(queue, [t.ticket_id for t in late + silent])
        for reason, ended in (("max_wait", late), ("heartbeat", silent)):
            for ticket in ended:
                MM_EXPIRED.labels(ticket.game, reason).inc()
    gone = {t.ticket_id for t in late + silent}
    waiting = [t for t in tickets if t.ticket_id not in gone]
    if waiting:
        MM_TICKETS_WAITING.labels(queue).set(len(waiting))
    else:
        with contextlib.suppress(KeyError):  # an empty queue leaves the gauge
            MM_TICKETS_WAITING.remove(queue)
    seated = 0
    for table in pair(waiting, now, settings.bot_fill_after):
        seated += await seat_table(maker, queue, fence, table)
    return seated


async def seat_table(maker: Matchmaker, queue: str, fence: int, table: Table) -> bool:
    """Claims the table's tickets, creates its match, assigns them; False
    (and nothing assigned) if a ticket went meanwhile or the lease did."""
    store = maker.store
    ids = [ticket.ticket_id for ticket in table.tickets]
    if not (await store.claim(queue, fence, ids)).ok:
        return False
    try:
        data, assignments = await create_table_match(maker, table)
        if not await store.assign(queue, fence, assignments):
            await store.release(queue, fence, ids)
            await maker.matches.coordination.delete(data.match_id)
            # It was logged as created and started: say why it never ends.
            reason = "its tickets went meanwhile (cancelled, or the lease moved)"
            fields = {"match_id": data.match_id, "game": table.tickets[0].game, "reason": reason}
            match_log.info("match dropped", extra={"fields": fields})
            return False
    except BaseException:
        await store.release(queue, fence, ids)
        raise
    await maker.matches.coordination.mark_rated(data.match_id)
    game = table.tickets[0].game
    now = maker.now_ms()
    MM_MATCHES.labels(game).inc()
    if table.bots:
        MM_BOT_FILLS.labels(game).inc()
    for ticket in table.tickets:
        MM_ASSIGNMENT_SECONDS.labels(game).observe((now - ticket.created_ms) / 1000)
    return True


async def create_table_match(maker: Matchmaker, table: Table) -> tuple[MatchData, dict[str, bytes]]:
    """The table's match, every human seat taken, bots of the level nearest
    the table's rating in the rest; and each ticket's assignment."""
    humans = [(ticket, player) for ticket in table.tickets for player in ticket.player_ids]
    level = bot_level_for(statistics.fmean(ticket.rating for ticket in table.tickets))
    seats = [ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN) for _ in humans]
    seats += [ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec=level)] * table.bots
    config = table_config(pb.GameConfig.FromString(table.tickets[0].config), table.size)
    clock = ms.TimeControl()
    clock.base.FromMilliseconds(round(maker.settings.clock_base * 1000))
    clock.increment.FromMilliseconds(round(maker.settings.clock_increment * 1000))
    request = ms.CreateMatchRequest(config=config, seats=seats, time_control=clock)
    players = [player for _, player in humans] + [""] * table.bots
    data, tokens = await matches.create_seated_match(maker.matches, request, players)
    assignments = {}
    for ticket in table.tickets:
        seated = [
            mm.SeatAssignment(player_id=player, seat=seat, seat_token=tokens[seat])
            for seat, (owner, player) in enumerate(humans)
            if owner is ticket
        ]
        assignment = mm.Assignment(match_id=data.match_id, seats=seated, bot_seats=table.bots)
        assignments[ticket.ticket_id] = assignment.SerializeToString()
    return data, assignments


async def run_passes(maker: Matchmaker) -> int:
    """A pass over every queue that has tickets; the tables seated."""
    seated = 0
    for queue in await maker.store.queues():
        seated += await run_pass(maker, queue)
    return seated


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
    returns = matches.end_returns(data, state)
    game = state.game.name
    humans = [player for player in data.players if player]
    while True:
        stored = await maker.store.ratings(game, humans)
        current = {p: stored.get(p) or new_rating(p) for p in humans}
        seats: list[PlayerRating | str] = [
            current[player] if player else bot_level(data.bot_specs[seat])
            for seat, player in enumerate(data.players)
        ]
        after = rate(seats, returns)
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


def game_name(kind: int) -> str:
    wire = next((w for w in WIRES.values() if w.kind == kind), None)
    if wire is None:
        raise BadRequest("game must name a game (GAME_KIND_ROLIT, _OTHELLO, ...)")
    return wire.name


def rating_message(rating: PlayerRating) -> mm.Rating:
    return mm.Rating(
        player_id=rating.player_id,
        mu=rating.mu,
        sigma=rating.sigma,
        ordinal=rating.ordinal,
        matches=rating.matches,
    )
