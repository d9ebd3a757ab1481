"""One match of a load test, as real clients would play it, through the
public gRPC API only: server bots play it, or the load test's own bots play
its human seats (seated by CreateMatch and JoinMatch, or by matchmaking
tickets), while spectators watch it. Each match takes players of the run
(``identities``) for the calls that act for one: its creator, and one per
human seat, each with its own token."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.duration_pb2 import Duration
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import matchmaking_service_pb2 as mm
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc

from ai import make_bot
from services.convert import action_from_proto, action_to_proto, game_from_config
from services.loadtest.identities import Player, Players
from services.loadtest.report import Recorder

SEAT_TOKEN = "meeple-seat-token"
TICKET_TOKEN = "meeple-ticket-token"
GAMES = {
    "rolit": pb.GameConfig(kind=pb.GAME_KIND_ROLIT),
    "othello": pb.GameConfig(kind=pb.GAME_KIND_OTHELLO),
    "volleyball": pb.GameConfig(kind=pb.GAME_KIND_VOLLEYBALL),
    "volta": pb.GameConfig(kind=pb.GAME_KIND_VOLTA),
}
SEATS = {"rolit": 4, "othello": 2, "volleyball": 2, "volta": 2}


def players_per_match(game: str, mode: str) -> int:
    """The players one match takes: its creator (server bots), or one per seat."""
    return 1 if mode == "server" else SEATS[game]


@dataclass
class Client:
    """Stubs over one channel, and where the run's figures go."""

    matches: ms_grpc.MatchServiceAsyncStub
    tickets: mm_grpc.MatchmakingServiceAsyncStub
    recorder: Recorder
    bot_spec: str
    spectators: int
    seed: int
    players: Players


class Unassigned(Exception):
    """A ticket ended without a match (it expired)."""


# Bot-only matches as fast as the bots play: a load test measures the
# server, not the pace that lets spectators follow a match.
UNPACED = Duration(seconds=0)


async def play(client: Client, game: str, mode: str) -> None:
    """One match from its creation to its end: ``mode`` is "server" (server
    bots), "client" (our bots in human seats) or "matchmaking" (our bots,
    seated through tickets)."""
    recorder = client.recorder
    recorder.matches_started += 1
    try:
        async with client.players.taken(players_per_match(game, mode)) as players:
            if mode == "server":
                bot = ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec=client.bot_spec)
                request = ms.CreateMatchRequest(
                    config=GAMES[game], seats=[bot] * SEATS[game], bot_pace=UNPACED
                )
                call = client.matches.CreateMatch(request, metadata=players[0].metadata)
                created = await recorder.timed("CreateMatch", call)
                await watch_to_end(client, created.match.match_id, {})
            elif mode == "client":
                await watch_to_end(client, *await seat_by_joins(client, game, players))
            else:
                seated = await seat_by_tickets(client, game, players)
                await asyncio.gather(*(watch_to_end(client, m, t) for m, t in seated.items()))
    except Unassigned:
        recorder.errors["TICKET_EXPIRED"] += 1
        recorder.matches_failed += 1
    except grpc.aio.AioRpcError:
        recorder.matches_failed += 1


async def seat_by_joins(
    client: Client, game: str, players: list[Player]
) -> tuple[str, dict[int, str]]:
    """The first player creates a match of human seats; each player joins
    one with its own token."""
    recorder = client.recorder
    seats = [ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)] * SEATS[game]
    request = ms.CreateMatchRequest(config=GAMES[game], seats=seats)
    call = client.matches.CreateMatch(request, metadata=players[0].metadata)
    created = await recorder.timed("CreateMatch", call)
    match_id = created.match.match_id
    tokens = {}
    for seat, player in zip(range(SEATS[game]), players, strict=True):
        join = ms.JoinMatchRequest(match_id=match_id, seat=seat)
        joining = client.matches.JoinMatch(join, metadata=player.metadata)
        tokens[seat] = (await recorder.timed("JoinMatch", joining)).seat_token
    return match_id, tokens


async def seat_by_tickets(
    client: Client, game: str, players: list[Player]
) -> dict[str, dict[int, str]]:
    """One ticket per player (the caller's own), all for tables of exactly
    the game's seats: the seats we hold, by match. Under load our tickets
    may meet other runs' tickets: each seat is played wherever it lands."""
    recorder = client.recorder
    size = SEATS[game]

    async def one_ticket(player: Player) -> mm.Assignment:
        # With a token the ticket is the caller's (empty player_ids);
        # without identities the request names its player.
        named = [] if player.token else [player.player_id]
        request = mm.CreateTicketRequest(config=GAMES[game], player_ids=named, seat_counts=[size])
        began = time.perf_counter()
        call = client.tickets.CreateTicket(request, metadata=player.metadata)
        created = await recorder.timed("CreateTicket", call)
        watch = mm.WatchTicketRequest(ticket_id=created.ticket.ticket_id)
        metadata = ((TICKET_TOKEN, created.ticket_token),)
        async for event in client.tickets.WatchTicket(watch, metadata=metadata):
            if event.HasField("assigned"):
                recorder.record(recorder.assignment, time.perf_counter() - began)
                return event.assigned
            if event.HasField("ended"):
                break
        raise Unassigned(created.ticket.ticket_id)

    assignments = await asyncio.gather(*(one_ticket(player) for player in players))
    by_match: dict[str, dict[int, str]] = {}
    for assignment in assignments:
        for seat in assignment.seats:
            by_match.setdefault(assignment.match_id, {})[seat.seat] = seat.seat_token
    return by_match


async def watch_to_end(client: Client, match_id: str, tokens: dict[int, str]) -> None:
    """Follows the match's stream to its end, playing the seats in
    ``tokens`` with our bots; spectators watch alongside."""
    recorder = client.recorder
    spectators = [
        asyncio.get_running_loop().create_task(spectate(client, match_id))
        for _ in range(client.spectators)
    ]
    state: Any = None
    bots: dict[int, Any] = {}
    rng = random.Random(client.seed)
    pending: int | None = None  # the ply our last submission was at
    now_at = 0  # the match's ply when the stream opened: we act once caught up
    began = time.perf_counter()
    stream = client.matches.WatchMatch(ms.WatchMatchRequest(match_id=match_id))
    async for event in stream:
        if event.HasField("snapshot"):
            recorder.record(recorder.rpcs["WatchMatch"], time.perf_counter() - began)
            game = game_from_config(event.snapshot.config)
            state = game.new_initial_state()
            now_at = event.ply
            bots = {s: make_bot(game, client.bot_spec, seed=rng.getrandbits(32)) for s in tokens}
        elif event.HasField("action"):
            state.apply_action(action_from_proto(state, event.action.action.action))
        elif event.HasField("ended"):
            # The stream ends right after (WatchMatch streams until the match
            # ends): read on to its end, so the server has counted the call
            # before the report's last scrape.
            recorder.finished(match_id, event.ply)
            continue
        seat = None if state.is_terminal() or state.is_chance_node() else state.current_player()
        ply = len(state.history())
        if seat in bots and ply >= now_at and pending != ply:
            pending = ply
            action = action_to_proto(state, bots[seat].choose(state.clone())).action
            request = ms.SubmitActionRequest(match_id=match_id, expected_ply=ply, actions=[action])
            metadata = ((SEAT_TOKEN, tokens[seat]),)
            await recorder.timed(
                "SubmitAction", client.matches.SubmitAction(request, metadata=metadata)
            )
    await asyncio.gather(*spectators, return_exceptions=True)


async def spectate(client: Client, match_id: str) -> None:
    """A spectator: its delay is when each event arrives minus when the
    server stored it."""
    recorder = client.recorder
    stream = client.matches.WatchMatch(ms.WatchMatchRequest(match_id=match_id))
    async for event in stream:
        if event.HasField("time"):
            delay = time.time() - event.time.ToMilliseconds() / 1000
            recorder.record(recorder.lag, max(0.0, delay))
    # Read to the stream's end, which follows the match's (the server has
    # then counted the call, and the report's last scrape sees it).
