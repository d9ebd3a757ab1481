"""The MatchmakingService servicer: check the client's CreateTicket rate,
read the ticket token, call the logic (with the client's address)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from meeple.v1 import matchmaking_service_pb2 as mm
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc

from services.auth import Authenticator
from services.auth.identity import client_key
from services.errors import BadRequest
from services.limits import ConcurrencyCap, client_of, per_minute
from services.match_service.servicer import metadata
from services.matchmaking import logic
from services.matchmaking.logic import Matchmaker
from services.server import Context, Service, Servicer, rpc, rpc_stream


class MatchmakingServicer(Servicer, mm_grpc.MatchmakingServiceServicer):
    service_name = "meeple.v1.MatchmakingService"

    def __init__(self, maker: Matchmaker, auth: Authenticator) -> None:
        self.maker = maker
        self.auth = auth
        self.streams = ConcurrencyCap(maker.settings.watch_streams, "open WatchTicket streams")
        self.creations = per_minute(maker.settings.tickets_per_minute)

    @rpc
    async def CreateTicket(  # noqa: N802 (gRPC method names)
        self, request: mm.CreateTicketRequest, context: Context
    ) -> mm.CreateTicketResponse:
        who = await self.auth.require(context.invocation_metadata())
        client = client_key(who, context.peer())
        self.creations.check(client, "tickets created per client")
        party = None
        if who is not None:
            party = [who, *await self.auth.party_members(request.party_passes, who)]
        return await logic.create_ticket(self.maker, request, client, party)

    @rpc_stream
    async def WatchTicket(  # noqa: N802
        self, request: mm.WatchTicketRequest, context: Context
    ) -> AsyncIterator[mm.WatchTicketResponse]:
        token = metadata(context, logic.TICKET_TOKEN_METADATA)
        with self.streams.hold(client_of(context.peer())):
            async for event in logic.watch_ticket(self.maker, request.ticket_id, token):
                yield event

    @rpc
    async def CancelTicket(  # noqa: N802
        self, request: mm.CancelTicketRequest, context: Context
    ) -> mm.CancelTicketResponse:
        token = metadata(context, logic.TICKET_TOKEN_METADATA)
        ticket = await logic.cancel_ticket(self.maker, request.ticket_id, token)
        return mm.CancelTicketResponse(ticket=ticket)

    @rpc
    async def GetRating(  # noqa: N802
        self, request: mm.GetRatingRequest, context: Context
    ) -> mm.GetRatingResponse:
        player = request.player_id
        if not player:
            who = await self.auth.require(context.invocation_metadata())
            if who is None:
                raise BadRequest("player_id: name the player (identities are off on this server)")
            player = who.player_id
        rating = await logic.rating(self.maker, request.game, player)
        return mm.GetRatingResponse(rating=rating)

    @rpc
    async def ListLeaderboard(  # noqa: N802
        self, request: mm.ListLeaderboardRequest, context: Context
    ) -> mm.ListLeaderboardResponse:
        return await logic.leaderboard(self.maker, request)


def service(maker: Matchmaker, auth: Authenticator) -> Service:
    descriptor = mm.DESCRIPTOR.services_by_name["MatchmakingService"]
    return Service(MatchmakingServicer(maker, auth), descriptor)
