"""The web port: the page at ``/`` (files from ``static/``, built from
``web/``), and the process's services over the Connect protocol and gRPC-Web
at ``/meeple.v1.<Service>/<Method>``, served by hypercorn on the process's
event loop, within bounds on what one client may hold (``bounds``): the
time to send a request, and connections per address."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from pathlib import Path
from typing import Any

from hypercorn.asyncio.tcp_server import TCPServer
from hypercorn.asyncio.worker_context import WorkerContext
from hypercorn.config import Config
from hypercorn.typing import AppWrapper
from hypercorn.utils import repr_socket_addr, wrap_app

from services.server import GRACE_SECONDS, MAX_MESSAGE_BYTES, Service
from services.web.bounds import (
    TOO_MANY_CONNECTIONS,
    ConnectionCap,
    client_address,
    read_ahead,
)
from services.web.connect import connect_apps
from services.web.cors import Cors

STATIC = Path(__file__).parent / "static"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}
# The page loads nothing from elsewhere, and nothing else may frame or script it.
PAGE_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; object-src 'none'; "
        b"base-uri 'none'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]

# What one client may hold of the port (the WebServer's defaults): the time
# for a request's headers to arrive (and for a connection to sit idle between
# requests), the time for its body, and connections open at once per address.
IDLE_TIMEOUT_SECONDS = 5.0
BODY_TIMEOUT_SECONDS = 10.0
CONNECTIONS_PER_CLIENT = 64
# A service call's body is read whole before the call starts: one message in
# its envelope. A larger one is refused by the call (RESOURCE_EXHAUSTED).
READ_AHEAD_BYTES = MAX_MESSAGE_BYTES + 5
# How long a refused connection may take to take its 429, and connections
# cut at the end of a stop's grace to close.
CLOSING_SECONDS = 1.0

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

log = logging.getLogger("meeple.web")


def page_files(folder: Path = STATIC) -> dict[str, tuple[bytes, str]]:
    """The page's files by URL path (``/`` is index.html), read once: a
    request can name only these."""
    files = {}
    for path in sorted(folder.iterdir()) if folder.is_dir() else []:
        content_type = CONTENT_TYPES.get(path.suffix)
        if path.is_file() and content_type is not None:
            files[f"/{path.name}"] = (path.read_bytes(), content_type)
    if "/index.html" in files:
        files["/"] = files["/index.html"]
    return files


class WebApp:
    """An ASGI application: Connect paths go to their service, GET and HEAD
    of a page file return it, anything else is 404. A service call's body
    must arrive within ``body_timeout`` seconds of its headers (else 408)."""

    def __init__(
        self,
        services: Sequence[Service],
        files: dict[str, tuple[bytes, str]],
        origins: Sequence[str] = (),
        body_timeout: float = BODY_TIMEOUT_SECONDS,
    ) -> None:
        if not body_timeout > 0:
            raise ValueError(
                f"the body timeout is a positive number of seconds, got {body_timeout}"
            )
        self.services = connect_apps(list(services))
        self.files = files
        self.cors = Cors(origins)
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] != "http":
            return
        path = scope["path"]
        for prefix, app in self.services.items():
            if path.startswith(prefix):
                await self.call(app, scope, receive, send)
                return
        found = self.files.get(path)
        if found is None or scope["method"] not in ("GET", "HEAD"):
            await respond(send, 404, b"not found\n", "text/plain; charset=utf-8")
            return
        body, content_type = found
        await respond(send, 200, b"" if scope["method"] == "HEAD" else body, content_type)

    async def call(self, app: Any, scope: Scope, receive: Receive, send: Send) -> None:
        """A service call, once its body has arrived (else 408); from an
        allowed origin, with the CORS headers (a preflight is answered here)."""
        origin = self.cors.allowed(scope)
        if origin is not None and scope["method"] == "OPTIONS":
            headers = [*self.cors.preflight(origin), (b"content-length", b"0")]
            await send({"type": "http.response.start", "status": 204, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        exposing = [] if origin is None else self.cors.exposing(origin)

        async def send_exposing(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start" and exposing:
                message = {**message, "headers": [*message.get("headers", []), *exposing]}
            await send(message)

        body = await read_ahead(receive, self.body_timeout, READ_AHEAD_BYTES)
        if body is None:
            log.debug(
                "a request from %s was cut: its body took over %.1f s",
                scope.get("client"),
                self.body_timeout,
            )
            await too_slow(scope, send_exposing, self.body_timeout)
            return
        await app(scope, body.receive, send_exposing)


async def respond(send: Send, status: int, body: bytes, content_type: str) -> None:
    headers = [
        (b"content-type", content_type.encode()),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-cache"),
        *PAGE_HEADERS,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Connection(TCPServer):
    """hypercorn's connection, let go as soon as its client has gone:
    hypercorn's own keeps the socket until its idle timer runs out (up to
    the idle timeout), and so against its address's cap."""

    async def _read_data(self) -> None:
        await super()._read_data()
        await self.idle_task.stop()


async def too_slow(scope: Scope, send: Send, seconds: float) -> None:
    """408 for a request whose body did not arrive in time. Over HTTP/1 the
    connection closes after it (hypercorn closes one whose request was not
    read to its end); over HTTP/2 the stream ends, and the connection, idle
    then, goes at the idle timeout."""
    body = f"the request's body did not arrive within {seconds:g} s\n".encode()
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
    ]
    if scope.get("http_version", "1.1") in ("1.0", "1.1"):
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": 408, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class WebServer:
    """The web port on ``host:port`` (0: any free port; ``port`` is the
    bound one after ``start``); ``origins`` may call the services from
    pages of their own (CORS).

    hypercorn speaks HTTP on each connection; the connections are accepted
    here, so that one client address holds at most
    ``connections_per_client`` at once (None: no cap; one more is answered
    429 and closed at once). A request's headers must arrive within
    ``idle_timeout`` seconds of the connection's start or its previous
    answer (hypercorn's keep-alive timeout: a connection idle that long
    closes), its body within ``body_timeout`` of its headers. An answer,
    such as a stream, may last as long as it needs."""

    def __init__(
        self,
        services: Sequence[Service],
        host: str,
        port: int,
        files: dict[str, tuple[bytes, str]] | None = None,
        origins: Sequence[str] = (),
        *,
        body_timeout: float = BODY_TIMEOUT_SECONDS,
        idle_timeout: float = IDLE_TIMEOUT_SECONDS,
        connections_per_client: int | None = CONNECTIONS_PER_CLIENT,
    ) -> None:
        if not idle_timeout > 0:
            raise ValueError(
                f"the idle timeout is a positive number of seconds, got {idle_timeout}"
            )
        self.app = WebApp(services, page_files() if files is None else files, origins, body_timeout)
        self.host = host
        self.port = port
        self.idle_timeout = idle_timeout
        self.connections = ConnectionCap(connections_per_client)
        self._stop = asyncio.Event()
        self._grace = GRACE_SECONDS
        self._task: asyncio.Task[None] | None = None
        self._listener: socket.socket | None = None
        self._serving: set[asyncio.Task[Any]] = set()
        self._config = self._hypercorn_config()
        self._context = WorkerContext(None)
        self._wrapped: AppWrapper | None = None  # self.app, for hypercorn, from the start

    def _hypercorn_config(self) -> Config:
        config = Config()
        config.accesslog = None
        config.errorlog = log
        config.include_server_header = False
        config.keep_alive_timeout = self.idle_timeout
        return config

    def bind(self) -> int:
        """Takes the port (``port`` is then the bound one) without serving
        yet, so that a port in use fails before anything else starts
        (OSError); ``start`` binds it if this did not."""
        if self._listener is None:
            self._listener = socket.create_server((self.host.strip("[]"), self.port))
            self.port = self._listener.getsockname()[1]
        return self.port

    async def start(self) -> None:
        """Serves the port (bound here if ``bind`` did not) from a task of its own."""
        self.bind()
        listener, self._listener = self._listener, None
        assert listener is not None
        asgi: Any = self.app
        self._wrapped = wrap_app(asgi, self._config.wsgi_max_body_size, "asgi")
        self._task = asyncio.create_task(self._serve(listener), name="web port")

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One connection: hypercorn's, unless its address holds its cap."""
        address = client_address(writer.get_extra_info("peername"))
        if not self.connections.enter(address):
            log.debug(
                "refused a connection from %s: it holds %s", address, self.connections.held(address)
            )
            await refuse(writer)
            return
        no_delay(writer)
        task = asyncio.current_task()
        assert task is not None
        assert self._wrapped is not None
        self._serving.add(task)
        try:
            loop = asyncio.get_running_loop()
            await Connection(self._wrapped, loop, self._config, self._context, {}, reader, writer)
        finally:
            self._serving.discard(task)
            self.connections.leave(address)

    async def _serve(self, listener: socket.socket) -> None:
        """Until ``stop``: then no new connections; requests in progress get
        the grace, idle connections close at once."""
        try:
            server = await asyncio.start_server(
                self._connected, sock=listener, backlog=self._config.backlog
            )
        except BaseException:
            listener.close()
            raise
        where = repr_socket_addr(listener.family, listener.getsockname())
        log.info("Running on http://%s (the web port)", where)
        try:
            await self._stop.wait()
        finally:
            await self._context.terminated.set()
            server.close()
            serving = set(self._serving)
            if serving:
                _, late = await asyncio.wait(serving, timeout=self._grace)
                for task in late:
                    task.cancel()
                if late:
                    await asyncio.wait(late, timeout=CLOSING_SECONDS)

    async def stop(self, grace: float) -> None:
        """Stops taking requests; open streams get ``grace`` seconds (a port
        bound but never served is let go)."""
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        if self._task is None:
            return
        self._grace = grace
        self._stop.set()
        try:
            await asyncio.wait_for(self._task, grace + 2.0)
        except TimeoutError:
            log.error("the web port did not stop within %.1f s", grace + 2.0)


def no_delay(writer: asyncio.StreamWriter) -> None:
    """Turns Nagle's algorithm off, as asyncio does for the TCP sockets it
    recognises: not these, accepted from a listener made with protocol 0, so
    an answer's second write (its body after its head) waited for the
    client's delayed ACK of the first, about 40 ms a call."""
    sock = writer.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


async def refuse(writer: asyncio.StreamWriter) -> None:
    """Answers 429 and closes the connection, giving up on a client that
    does not take the answer within a second."""
    try:
        writer.write(TOO_MANY_CONNECTIONS)
        writer.close()
        await asyncio.wait_for(writer.wait_closed(), CLOSING_SECONDS)
    except (OSError, TimeoutError):
        writer.transport.abort()
