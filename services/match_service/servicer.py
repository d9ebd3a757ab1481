"""The MatchService servicer: read the token, call the match logic."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc

from services.coordination import Coordination
from services.errors import BadRequest
from services.match_service import logic
from services.server import Service, rpc, rpc_stream

WATCH_POLL_SECONDS = 1.0


def seat_token(context: grpc.aio.ServicerContext) -> str | None:
    for key, value in context.invocation_metadata() or ():
        if key == logic.SEAT_TOKEN_METADATA:
            return str(value)
    return None


def match_id_of(match_id: str) -> str:
    if not match_id or len(match_id) > 64:
        raise BadRequest("match_id: the id CreateMatch returned")
    return match_id


class MatchServicer(ms_grpc.MatchServiceServicer):
    service_name = "meeple.v1.MatchService"

    def __init__(self, coordination: Coordination) -> None:
        self.coordination = coordination

    @rpc
    async def CreateMatch(  # noqa: N802 (gRPC method names)
        self, request: ms.CreateMatchRequest, context: grpc.aio.ServicerContext
    ) -> ms.CreateMatchResponse:
        return ms.CreateMatchResponse(match=await logic.create_match(self.coordination, request))

    @rpc
    async def JoinMatch(  # noqa: N802
        self, request: ms.JoinMatchRequest, context: grpc.aio.ServicerContext
    ) -> ms.JoinMatchResponse:
        match_id_of(request.match_id)
        return await logic.join_match(self.coordination, request)

    @rpc
    async def SubmitAction(  # noqa: N802
        self, request: ms.SubmitActionRequest, context: grpc.aio.ServicerContext
    ) -> ms.SubmitActionResponse:
        return await logic.submit_action(
            self.coordination,
            match_id_of(request.match_id),
            None,
            seat_token(context),
            request.expected_ply,
            request.actions,
        )

    @rpc
    async def GetMatch(  # noqa: N802
        self, request: ms.GetMatchRequest, context: grpc.aio.ServicerContext
    ) -> ms.GetMatchResponse:
        return await logic.get_match(self.coordination, match_id_of(request.match_id))

    @rpc_stream
    async def WatchMatch(  # noqa: N802
        self, request: ms.WatchMatchRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[ms.WatchMatchResponse]:
        match_id = match_id_of(request.match_id)
        await logic.load(self.coordination, match_id)  # NOT_FOUND before streaming
        index = request.from_ply
        while True:
            raws = await self.coordination.wait_events(match_id, index, WATCH_POLL_SECONDS)
            for raw in raws:
                event = ms.WatchMatchResponse.FromString(raw)
                yield event
                index += 1
                if event.HasField("ended"):
                    return
            if not raws:
                data = await logic.load(self.coordination, match_id)
                if data.status == ms.MATCH_STATUS_FINISHED and index > data.ply:
                    return  # the client has seen the end already

    @rpc
    async def Resign(  # noqa: N802
        self, request: ms.ResignRequest, context: grpc.aio.ServicerContext
    ) -> ms.ResignResponse:
        match = await logic.resign(
            self.coordination, match_id_of(request.match_id), seat_token(context)
        )
        return ms.ResignResponse(match=match)


def service(coordination: Coordination) -> Service:
    return Service(MatchServicer(coordination), ms.DESCRIPTOR.services_by_name["MatchService"])
