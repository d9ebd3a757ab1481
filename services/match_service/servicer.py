"""The MatchService servicer: check the request and the client's limits,
read the tokens, call the match logic."""

from __future__ import annotations

from collections.abc import AsyncIterator

from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc

from services.auth import Authenticator
from services.auth.identity import client_key
from services.errors import BadRequest
from services.limits import ConcurrencyCap, RateLimiter, client_of, per_minute
from services.match_service import listing, logic
from services.match_service.logic import Matches
from services.server import Context, Service, Servicer, rpc, rpc_stream

MATCH_ID_CHARS = 64


def metadata(context: Context, key: str) -> str | None:
    for name, value in context.invocation_metadata() or ():
        if name == key:
            return str(value)
    return None


def match_id_of(match_id: str) -> str:
    if not match_id or len(match_id) > MATCH_ID_CHARS:
        raise BadRequest("match_id: the id CreateMatch returned")
    return match_id


class MatchServicer(Servicer, ms_grpc.MatchServiceServicer):
    service_name = "meeple.v1.MatchService"

    def __init__(
        self, matches: Matches, auth: Authenticator, creations: RateLimiter | None = None
    ) -> None:
        """``creations``: matches per client (its identity, or its address
        without one); the matchmaker's matchmade matches spend the same
        budget when it is given to both (as App does); by default one of
        its own."""
        self.matches = matches
        self.auth = auth
        settings = matches.settings
        if creations is None:  # (a RateLimiter with no buckets yet is falsy)
            creations = per_minute(settings.matches_per_minute)
        self.creations = creations
        self.streams = ConcurrencyCap(settings.watch_streams, "open WatchMatch streams")

    @rpc
    async def CreateMatch(  # noqa: N802 (gRPC method names)
        self, request: ms.CreateMatchRequest, context: Context
    ) -> ms.CreateMatchResponse:
        who = await self.auth.require(context.invocation_metadata())
        self.creations.check(client_key(who, context.peer()), "matches created per client")
        return await logic.create_match(self.matches, request)

    @rpc
    async def JoinMatch(  # noqa: N802
        self, request: ms.JoinMatchRequest, context: Context
    ) -> ms.JoinMatchResponse:
        match_id_of(request.match_id)
        who = await self.auth.require(context.invocation_metadata())
        owner = metadata(context, logic.OWNER_TOKEN_METADATA)
        return await logic.join_match(self.matches, request, owner, who)

    @rpc
    async def SubmitAction(  # noqa: N802
        self, request: ms.SubmitActionRequest, context: Context
    ) -> ms.SubmitActionResponse:
        return await logic.submit_action(
            self.matches,
            match_id_of(request.match_id),
            None,
            metadata(context, logic.SEAT_TOKEN_METADATA),
            request.expected_ply,
            request.actions,
        )

    @rpc
    async def GetMatch(  # noqa: N802
        self, request: ms.GetMatchRequest, context: Context
    ) -> ms.GetMatchResponse:
        return await logic.get_match(self.matches, match_id_of(request.match_id))

    @rpc_stream
    async def WatchMatch(  # noqa: N802
        self, request: ms.WatchMatchRequest, context: Context
    ) -> AsyncIterator[ms.WatchMatchResponse]:
        match_id = match_id_of(request.match_id)
        with self.streams.hold(client_of(context.peer())):
            async for event in logic.watch(self.matches, match_id, request.from_ply):
                yield event

    @rpc
    async def Resign(  # noqa: N802
        self, request: ms.ResignRequest, context: Context
    ) -> ms.ResignResponse:
        match = await logic.resign(
            self.matches,
            match_id_of(request.match_id),
            metadata(context, logic.SEAT_TOKEN_METADATA),
        )
        return ms.ResignResponse(match=match)

    @rpc
    async def ListMatches(  # noqa: N802
        self, request: ms.ListMatchesRequest, context: Context
    ) -> ms.ListMatchesResponse:
        return await listing.list_matches(self.matches, request)


def service(matches: Matches, auth: Authenticator, creations: RateLimiter | None = None) -> Service:
    return Service(
        MatchServicer(matches, auth, creations), ms.DESCRIPTOR.services_by_name["MatchService"]
    )
