"""The AIService servicer. A bot thinks in a worker process, so a long think
never blocks the server's event loop (nor, through the GIL, other calls)."""

from __future__ import annotations

import asyncio
from concurrent.futures import Executor

import grpc
from meeple.v1 import ai_service_pb2 as ai
from meeple.v1 import ai_service_pb2_grpc as ai_grpc
from meeple.v1 import game_pb2 as pb

from services import convert
from services.ai_service.worker import suggest
from services.bot_specs import check_spec
from services.errors import BadRequest
from services.metrics import AI_THINK_SECONDS, bot_label
from services.server import Service, rpc


class AIServicer(ai_grpc.AIServiceServicer):
    service_name = "meeple.v1.AIService"

    def __init__(self, executor: Executor) -> None:
        self.executor = executor

    @rpc
    async def SuggestAction(  # noqa: N802 (gRPC method names)
        self, request: ai.SuggestActionRequest, context: grpc.aio.ServicerContext
    ) -> ai.SuggestActionResponse:
        if not request.bot_spec:
            raise BadRequest("bot_spec: name a bot or a level, e.g. 'hard'")
        check_spec(request.bot_spec)
        loop = asyncio.get_running_loop()
        action_bytes, seconds = await loop.run_in_executor(
            self.executor,
            suggest,
            request.record.SerializeToString(),
            request.bot_spec,
            request.seed,
        )
        game = convert.game_from_config(request.record.config).name
        AI_THINK_SECONDS.labels(game, bot_label(request.bot_spec)).observe(seconds)
        return ai.SuggestActionResponse(
            action=pb.ActionInfo.FromString(action_bytes), think_seconds=seconds
        )


def service(executor: Executor) -> Service:
    """The service, thinking in ``executor`` (a process pool: see services.app)."""
    return Service(AIServicer(executor), ai.DESCRIPTOR.services_by_name["AIService"])
