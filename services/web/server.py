"""The web port: the page at ``/`` (files from ``static/``, built from
``web/``), and the process's services over the Connect protocol and gRPC-Web
at ``/meeple.v1.<Service>/<Method>``, served by hypercorn on the process's
event loop."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from pathlib import Path
from typing import Any

from hypercorn.asyncio import serve
from hypercorn.config import Config

from services.server import GRACE_SECONDS, Service
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
    of a page file return it, anything else is 404."""

    def __init__(
        self,
        services: Sequence[Service],
        files: dict[str, tuple[bytes, str]],
        origins: Sequence[str] = (),
    ) -> None:
        self.services = connect_apps(list(services))
        self.files = files
        self.cors = Cors(origins)

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
        """A service call; from an allowed origin, with the CORS headers
        (a preflight is answered here)."""
        origin = self.cors.allowed(scope)
        if origin is None:
            await app(scope, receive, send)
            return
        if scope["method"] == "OPTIONS":
            headers = [*self.cors.preflight(origin), (b"content-length", b"0")]
            await send({"type": "http.response.start", "status": 204, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        exposing = self.cors.exposing(origin)

        async def send_exposing(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *exposing]}
            await send(message)

        await app(scope, receive, send_exposing)


async def respond(send: Send, status: int, body: bytes, content_type: str) -> None:
    headers = [
        (b"content-type", content_type.encode()),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-cache"),
        *PAGE_HEADERS,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class WebServer:
    """The web port on ``host:port`` (0: any free port; ``port`` is the
    bound one after ``start``); ``origins`` may call the services from
    pages of their own (CORS)."""

    def __init__(
        self,
        services: Sequence[Service],
        host: str,
        port: int,
        files: dict[str, tuple[bytes, str]] | None = None,
        origins: Sequence[str] = (),
    ) -> None:
        self.app = WebApp(services, page_files() if files is None else files, origins)
        self.host = host
        self.port = port
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._listener: socket.socket | None = None

    def bind(self) -> int:
        """Takes the port (``port`` is then the bound one) without serving
        yet, so that a port in use fails before anything else starts
        (OSError); ``start`` binds it if this did not."""
        if self._listener is None:
            self._listener = socket.create_server((self.host.strip("[]"), self.port))
            self.port = self._listener.getsockname()[1]
        return self.port

    async def start(self) -> None:
        config = Config()
        config.accesslog = None
        config.errorlog = log
        config.include_server_header = False
        config.graceful_timeout = GRACE_SECONDS
        self.bind()
        assert self._listener is not None
        with self._listener as listener:
            # hypercorn takes (and later closes) a descriptor of its own
            config.bind = [f"fd://{os.dup(listener.fileno())}"]
        self._listener = None
        serving = serve(self.app, config, shutdown_trigger=self._stop.wait)  # type: ignore[arg-type]
        self._task = asyncio.create_task(serving, name="web port")

    async def stop(self, grace: float) -> None:
        """Stops taking requests; open streams get ``grace`` seconds (a port
        bound but never served is let go)."""
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        if self._task is None:
            return
        self._stop.set()
        try:
            await asyncio.wait_for(self._task, grace + 2.0)
        except TimeoutError:
            log.error("the web port did not stop within %.1f s", grace + 2.0)
