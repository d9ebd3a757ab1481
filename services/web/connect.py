"""The services' own servicers over the Connect protocol and gRPC-Web, for
browsers: each method of a service's descriptor becomes a connectrpc
endpoint that calls the same servicer method as gRPC does, with a context
that gives what the servicers read of a gRPC one (the client's address,
metadata, the deadline) and turns an abort into a Connect error with the
same code and reason. Limits, validation, metrics and errors are therefore
those of the gRPC port."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any, NoReturn

import grpc
from connectrpc.code import Code
from connectrpc.codec import Codec
from connectrpc.compat import google_protobuf_binary_codec
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.json_format import MessageToJson, Parse, ParseError
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from services.errors import clipped
from services.server import MAX_MESSAGE_BYTES, Service

# gRPC's codes as Connect's (they differ only in spelling).
CONNECT_CODES: dict[grpc.StatusCode, Code] = {
    code: Code.CANCELED if code is grpc.StatusCode.CANCELLED else Code(code.name.lower())
    for code in grpc.StatusCode
    if code is not grpc.StatusCode.OK
}

# How much of protobuf's reason for refusing a JSON request an error quotes.
JSON_REASON_CHARS = 160


class CompactJSONCodec(Codec[Message, Any]):
    """Protobuf's JSON mapping on one line (connectrpc's own codec indents
    it, which triples a board's size). Unknown fields are ignored, as the
    Connect implementations do, for clients built on newer protos."""

    def name(self) -> str:
        return "json"

    def encode(self, message: Message) -> bytes:
        return MessageToJson(message, indent=None).encode()

    def decode(self, data: bytes | bytearray, message_class: type[Any]) -> Any:
        """The message, or INVALID_ARGUMENT with protobuf's reason cut short
        (it may quote the client's input at any length)."""
        message = message_class()
        try:
            return Parse(bytes(data), message, ignore_unknown_fields=True)
        except (ParseError, ValueError, TypeError) as error:
            reason = clipped(str(error), JSON_REASON_CHARS)
            name = message.DESCRIPTOR.name
            raise ConnectError(
                Code.INVALID_ARGUMENT, f"the request is not a valid {name} message: {reason}"
            ) from error


class ConnectCallContext:
    """What a servicer reads of its gRPC context, for a Connect call."""

    def __init__(self, context: RequestContext[Any, Any]) -> None:
        self._context = context

    def peer(self) -> str:
        """The client as gRPC names it (``ipv4:HOST:PORT``, ``ipv6:[HOST]:PORT``),
        so that the limits per client address hold across both ports."""
        host, _, port = (self._context.client_address or "unknown:0").rpartition(":")
        return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return tuple(self._context.request_headers.items())

    def time_remaining(self) -> float | None:
        remaining = self._context.timeout_ms
        return None if remaining is None else remaining / 1000

    async def abort(self, code: grpc.StatusCode, details: str) -> NoReturn:
        raise ConnectError(CONNECT_CODES[code], details)


def _endpoint(service: Service, method: MethodDescriptor) -> Any:
    """A unary or server-streaming connectrpc endpoint (their classes are
    not exported, hence Any)."""
    handler = getattr(service.servicer, method.name)  # declared by the descriptor
    info: MethodInfo[Any, Any] = MethodInfo(
        name=method.name,
        service_name=service.name,
        input=GetMessageClass(method.input_type),
        output=GetMessageClass(method.output_type),
        idempotency_level=IdempotencyLevel.UNKNOWN,
        stream_type=StreamType.SERVER_STREAM if method.server_streaming else StreamType.UNARY,
    )
    if method.server_streaming:

        def stream(request: Any, context: RequestContext[Any, Any]) -> AsyncIterator[Any]:
            return handler(request, ConnectCallContext(context))  # type: ignore[no-any-return]

        return Endpoint.server_stream(method=info, function=stream)

    async def unary(request: Any, context: RequestContext[Any, Any]) -> Any:
        return await handler(request, ConnectCallContext(context))

    return Endpoint.unary(method=info, function=unary)


class ConnectService(ConnectASGIApplication[Service]):
    """One service's methods at ``/<package>.<Service>/<Method>``."""

    def __init__(self, service: Service) -> None:
        self._path = f"/{service.name}"
        super().__init__(
            service=service,
            endpoints=lambda served: {
                f"/{served.name}/{method.name}": _endpoint(served, method)
                for method in served.descriptor.methods
            },
            read_max_bytes=MAX_MESSAGE_BYTES,
            codecs=[google_protobuf_binary_codec(), CompactJSONCodec()],
        )

    @property
    def path(self) -> str:
        return self._path


def connect_apps(services: list[Service]) -> Mapping[str, ConnectService]:
    """Each service's Connect application by its path prefix."""
    apps = [ConnectService(service) for service in services]
    return {f"{app.path}/": app for app in apps}
