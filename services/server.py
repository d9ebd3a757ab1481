"""What every meeple server shares: the exception-to-status mapping, health,
reflection, message-size limits, startup and graceful shutdown on SIGTERM.
Each service adds only its servicer (see ``SERVICES``)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from services.errors import KNOWN, status_of
from services.metrics import RPC_HANDLED, RPC_SECONDS

log = logging.getLogger("meeple.server")

MAX_MESSAGE_BYTES = 4 * 1024 * 1024
GRACE_SECONDS = 5.0

Request = TypeVar("Request")
Response = TypeVar("Response")
Handler = Callable[[Any, Request, grpc.aio.ServicerContext], Awaitable[Response]]


class Outcome:
    """The status an RPC ends with (OK unless set)."""

    code = grpc.StatusCode.OK


@contextlib.contextmanager
def measured(kind: str, service: str, method: str) -> Iterator[Outcome]:
    """Counts the RPC by its final status and times it (services.metrics)."""
    outcome = Outcome()
    start = time.perf_counter()
    try:
        yield outcome
    finally:
        RPC_SECONDS.labels(kind, service, method).observe(time.perf_counter() - start)
        RPC_HANDLED.labels(kind, service, method, outcome.code.name).inc()


def rpc(method: Handler[Request, Response]) -> Handler[Request, Response]:
    """Wraps a servicer method (of a servicer with a ``service_name``): known
    errors become their status with the reason as details; anything else is
    logged and becomes INTERNAL without leaking internals; every call is
    counted and timed."""

    @functools.wraps(method)
    async def wrapper(self: Any, request: Request, context: grpc.aio.ServicerContext) -> Response:
        with measured("unary", self.service_name, method.__name__) as outcome:
            try:
                return await method(self, request, context)
            except KNOWN as error:
                outcome.code = status_of(error)
                await context.abort(outcome.code, str(error))
            except Exception:
                log.exception("%s failed", method.__qualname__)
                outcome.code = grpc.StatusCode.INTERNAL
                await context.abort(outcome.code, "internal error")
        raise AssertionError("context.abort returned")  # pragma: no cover

    return wrapper


def rpc_stream(
    method: Callable[[Any, Request, grpc.aio.ServicerContext], AsyncIterator[Response]],
) -> Callable[[Any, Request, grpc.aio.ServicerContext], AsyncIterator[Response]]:
    """``rpc`` for server-streaming methods (async generators)."""

    @functools.wraps(method)
    async def wrapper(
        self: Any, request: Request, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[Response]:
        with measured("server_stream", self.service_name, method.__name__) as outcome:
            try:
                async for response in method(self, request, context):
                    yield response
            except asyncio.CancelledError:
                outcome.code = grpc.StatusCode.CANCELLED  # the client went away
                raise
            except KNOWN as error:
                outcome.code = status_of(error)
                await context.abort(outcome.code, str(error))
            except Exception:
                log.exception("%s failed", method.__qualname__)
                outcome.code = grpc.StatusCode.INTERNAL
                await context.abort(outcome.code, "internal error")

    return wrapper


@dataclass(frozen=True)
class Service:
    """A servicer and how to register it."""

    name: str  # the full name, e.g. "meeple.v1.RulesService"
    servicer: Any
    register: Callable[[Any, grpc.aio.Server], None]


def build_server(services: Sequence[Service], address: str) -> tuple[grpc.aio.Server, int]:
    """A server with ``services``, health (each service SERVING) and
    reflection, listening on ``address`` (port 0 picks a free one); returns
    it (not started) and the port."""
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ]
    )
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = [service.name for service in services]
    for service in services:
        service.register(service.servicer, server)
    reflection.enable_server_reflection(
        [*names, health.SERVICE_NAME, reflection.SERVICE_NAME], server
    )
    port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    server.health = health_servicer  # type: ignore[attr-defined]
    server.service_names = names  # type: ignore[attr-defined]
    return server, port


async def start(server: grpc.aio.Server) -> None:
    """Starts ``server`` and marks its services SERVING."""
    await server.start()
    health_servicer = server.health  # type: ignore[attr-defined]
    for name in ["", *server.service_names]:  # type: ignore[attr-defined]
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)


async def wait_for_signal() -> None:
    """Returns on SIGTERM or SIGINT (Ctrl-C)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
