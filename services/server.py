"""What every meeple server shares: the exception-to-status mapping, health,
reflection, message-size limits, a port of its own (never shared with
another process) and graceful shutdown. Each service adds only its
servicer (see ``SERVICES``)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import DecodeError
from google.protobuf.message_factory import GetMessageClass
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from services.errors import BadRequest, clipped, status_of
from services.limits import RateLimiter, client_of
from services.metrics import RPC_HANDLED, RPC_SECONDS

log = logging.getLogger("meeple.server")

MAX_MESSAGE_BYTES = 4 * 1024 * 1024
# A call's metadata, all headers together. gRPC's own default refuses a
# random share of calls between 8 and 16 KiB; one limit for both makes the
# answer depend on the call alone (RESOURCE_EXHAUSTED beyond it).
MAX_METADATA_BYTES = 16 * 1024
MAX_DETAILS_CHARS = 500
# Calls in flight when a server stops get this long (streams are cut then,
# and their clients resume elsewhere): a stop stays well within 5 s.
GRACE_SECONDS = 2.0

T = TypeVar("T")
Request = TypeVar("Request")
Response = TypeVar("Response")
Context = grpc.aio.ServicerContext[Any, Any]
Handler = Callable[[Any, Request, Context], Awaitable[Response]]


class Outcome:
    """The status an RPC ends with (OK unless set)."""

    code = grpc.StatusCode.OK


@functools.cache
def _timer(kind: str, service: str, method: str) -> Any:
    return RPC_SECONDS.labels(kind, service, method)


@functools.cache
def _counter(kind: str, service: str, method: str, code: str) -> Any:
    return RPC_HANDLED.labels(kind, service, method, code)


@contextlib.contextmanager
def measured(kind: str, service: str, method: str) -> Iterator[Outcome]:
    """Counts the RPC by its final status and times it (services.metrics;
    the labelled series are looked up once each)."""
    outcome = Outcome()
    start = time.perf_counter()
    try:
        yield outcome
    finally:
        _timer(kind, service, method).observe(time.perf_counter() - start)
        _counter(kind, service, method, outcome.code.name).inc()


class Servicer:
    """What every servicer declares: its full service name, and the rate
    limit it shares with the other services of its server (None: off)."""

    service_name: str = ""
    rate_limiter: RateLimiter | None = None


def admit(servicer: Servicer, request: object, context: Context) -> None:
    """Refuses what no method should see: a client over its rate limit
    (RESOURCE_EXHAUSTED) or bytes that did not parse (INVALID_ARGUMENT)."""
    if servicer.rate_limiter is not None:
        servicer.rate_limiter.check(client_of(context.peer()), "calls per client")
    check_parsed(request)


def check_parsed(request: object) -> None:
    if isinstance(request, MalformedRequest):
        raise BadRequest(f"the request is not a valid {request.message_name} message")


async def abort(context: Context, outcome: Outcome, method: Any, error: Exception) -> None:
    """Ends the call: a known error with its status and reason; anything else
    is logged and becomes INTERNAL without leaking internals."""
    code = status_of(error)
    if code is None:
        log.error("%s failed", method.__qualname__, exc_info=error)
        code, details = grpc.StatusCode.INTERNAL, "internal error"
    else:
        details = clipped(str(error), MAX_DETAILS_CHARS)  # it must fit in the trailers
    outcome.code = code
    await context.abort(code, details)


def rpc(method: Handler[Request, Response]) -> Handler[Request, Response]:
    """Wraps a servicer method (of a servicer with a ``service_name``): known
    errors become their status with the reason as details; anything else is
    logged and becomes INTERNAL without leaking internals; every call is
    counted and timed."""

    @functools.wraps(method)
    async def wrapper(self: Servicer, request: Request, context: Context) -> Response:
        with measured("unary", self.service_name, method.__name__) as outcome:
            try:
                admit(self, request, context)
                return await method(self, request, context)
            except Exception as error:
                await abort(context, outcome, method, error)
        raise AssertionError("context.abort returned")  # pragma: no cover

    return wrapper


def rpc_stream(
    method: Callable[[Any, Request, Context], AsyncIterator[Response]],
) -> Callable[[Any, Request, Context], AsyncIterator[Response]]:
    """``rpc`` for server-streaming methods (async generators)."""

    @functools.wraps(method)
    async def wrapper(
        self: Servicer, request: Request, context: Context
    ) -> AsyncIterator[Response]:
        with measured("server_stream", self.service_name, method.__name__) as outcome:
            try:
                admit(self, request, context)
                async for response in method(self, request, context):
                    yield response
            except asyncio.CancelledError:
                outcome.code = grpc.StatusCode.CANCELLED  # the client went away
                raise
            except Exception as error:
                await abort(context, outcome, method, error)

    return wrapper


class MalformedRequest:
    """Stands for request bytes that do not parse as the method's message:
    the deserializer returns it instead of raising (which gRPC would turn
    into UNKNOWN), and ``rpc`` answers INVALID_ARGUMENT."""

    def __init__(self, message_name: str) -> None:
        self.message_name = message_name


def safe_deserializer(message_class: Any) -> Callable[[bytes], Any]:
    def deserialize(data: bytes) -> Any:
        try:
            return message_class.FromString(data)
        except DecodeError:
            return MalformedRequest(message_class.DESCRIPTOR.full_name)

    return deserialize


@dataclass(frozen=True)
class Service:
    """A servicer and the service descriptor it implements."""

    servicer: Servicer
    descriptor: ServiceDescriptor

    @property
    def name(self) -> str:
        return self.descriptor.full_name

    def handler(self) -> grpc.GenericRpcHandler:
        """The service's method handlers, with deserializers that never raise."""
        handlers = {}
        for method in self.descriptor.methods:
            request = GetMessageClass(method.input_type)
            response = GetMessageClass(method.output_type)
            make = (
                grpc.unary_stream_rpc_method_handler
                if method.server_streaming
                else grpc.unary_unary_rpc_method_handler
            )
            handlers[method.name] = make(
                getattr(self.servicer, method.name),
                request_deserializer=safe_deserializer(request),
                response_serializer=response.SerializeToString,
            )
        return grpc.method_handlers_generic_handler(self.name, handlers)


@dataclass
class Server:
    """A gRPC server with its services, health and reflection."""

    grpc_server: grpc.aio.Server
    port: int
    health: health.aio.HealthServicer
    names: list[str]
    started: bool = False

    async def start(self) -> None:
        """Starts serving and marks every service SERVING. A cancellation
        (a stop signal during a process's start) waits for grpcio's start to
        finish: cut short, it leaves a server that cannot stop."""
        await uninterrupted(self.grpc_server.start())
        self.started = True
        for name in ["", *self.names]:
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)

    async def stop(self, grace: float) -> None:
        """Reports NOT_SERVING, lets calls in flight finish for ``grace``
        seconds, stops; the port is free again (also for a server built but
        never started: grpcio lets go of a port only when a started server
        stops, so it is started, NOT_SERVING, and stopped at once)."""
        await self.health.enter_graceful_shutdown()
        if not self.started:
            await uninterrupted(self.grpc_server.start())
            self.started = True
            grace = 0
        await uninterrupted(self.grpc_server.stop(grace))


async def uninterrupted(step: Awaitable[T]) -> T:
    """Awaits ``step`` to its end even if the caller is cancelled meanwhile
    (the cancellation is raised after it)."""
    task = asyncio.ensure_future(step)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        await task
        raise


def build_server(services: Sequence[Service], address: str) -> Server:
    """A server with ``services``, health (each service SERVING once
    started) and reflection, listening on ``address`` (port 0 picks a free
    one); not started yet. A port another socket holds is refused
    (OSError with the reason): grpcio would otherwise share it with
    SO_REUSEPORT, two servers on one port."""
    refused = bind_error(address)
    if refused is not None:
        raise refused
    server = grpc.aio.server(
        options=[
            ("grpc.so_reuseport", 0),
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_metadata_size", MAX_METADATA_BYTES),
            ("grpc.absolute_max_metadata_size", MAX_METADATA_BYTES),
        ]
    )
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = [service.name for service in services]
    server.add_generic_rpc_handlers(tuple(service.handler() for service in services))
    reflection.enable_server_reflection(
        [*names, health.SERVICE_NAME, reflection.SERVICE_NAME], server
    )
    try:
        port = server.add_insecure_port(address)
    except RuntimeError:  # grpcio's "Failed to bind to address"
        port = 0
    if port == 0:
        raise bind_error(address) or OSError(f"grpcio could not bind {address}")
    return Server(server, port, health_servicer, names)


def split_address(address: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) as the host and the port."""
    host, _, port = address.rpartition(":")
    try:
        return host.strip("[]"), int(port)
    except ValueError:
        raise ValueError(f"an address is HOST:PORT, got {address!r}") from None


def bind_error(address: str) -> OSError | None:
    """Why ``address`` cannot be listened on (taken, or not an address of
    this machine), found by binding it as a server does; None when it can,
    and for port 0 (any free port)."""
    host, port = split_address(address)
    if port == 0:
        return None
    try:
        found = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except OSError as error:
        return OSError(error.errno, error.strerror)
    for family, kind, protocol, _, where in found:
        with socket.socket(family, kind, protocol) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(where)
            except OSError as error:
                return OSError(error.errno, error.strerror)
    return None
