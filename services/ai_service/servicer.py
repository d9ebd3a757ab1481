"""The AIService servicer: admission control, then the AI pool. A bot
thinks in a worker process, so a long think never blocks the server; a call
that goes away (cancelled, or past its deadline) stops its search."""

from __future__ import annotations

from meeple.v1 import ai_service_pb2 as ai
from meeple.v1 import ai_service_pb2_grpc as ai_grpc
from meeple.v1 import game_pb2 as pb

from services.ai_service.pool import AIPool, Priority, QueueFull
from services.ai_service.worker import RECORD
from services.bot_specs import check_spec
from services.convert import check_record_length, check_rules_version, game_from_config
from services.errors import BadRequest
from services.limits import CapReached, ConcurrencyCap, client_of
from services.metrics import AI_REJECTED, AI_THINK_SECONDS, bot_label
from services.server import Context, Service, Servicer, rpc
from services.settings import Settings


class AIServicer(Servicer, ai_grpc.AIServiceServicer):
    service_name = "meeple.v1.AIService"

    def __init__(self, pool: AIPool, settings: Settings) -> None:
        self.pool = pool
        self.in_flight = ConcurrencyCap(settings.ai_calls_per_client, "AI calls in flight")

    @rpc
    async def SuggestAction(  # noqa: N802 (gRPC method names)
        self, request: ai.SuggestActionRequest, context: Context
    ) -> ai.SuggestActionResponse:
        if not request.bot_spec:
            raise BadRequest("bot_spec: name a bot or a level, e.g. 'hard'")
        game = game_from_config(request.record.config)
        check_spec(game, request.bot_spec)
        check_record_length(game, len(request.record.history))
        check_rules_version(game, request.record.rules_version)
        try:
            with self.in_flight.hold(client_of(context.peer())):
                thought = await self.pool.think(
                    (RECORD, request.record.SerializeToString()),
                    request.bot_spec,
                    request.seed,
                    priority=Priority.HINT,
                    timeout=context.time_remaining(),
                )
        except QueueFull:
            AI_REJECTED.labels("queue_full").inc()
            raise
        except CapReached:
            AI_REJECTED.labels("client_cap").inc()
            raise
        AI_THINK_SECONDS.labels(game.name, bot_label(request.bot_spec)).observe(thought.seconds)
        return ai.SuggestActionResponse(
            action=pb.ActionInfo.FromString(thought.action), think_seconds=thought.seconds
        )


def service(pool: AIPool, settings: Settings) -> Service:
    """The service, thinking in ``pool``."""
    return Service(AIServicer(pool, settings), ai.DESCRIPTOR.services_by_name["AIService"])
