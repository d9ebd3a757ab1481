"""Servers for the service tests: the all-in-one server (rules, AI and match
services, in-memory coordination, bot runners) on a free port in a
background event loop, talked to over a real gRPC channel; ``serve`` starts
another with its own settings (short clocks, small limits)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.app import App
from services.archive.database import sqlite_url
from services.settings import Settings
from tests.identities import bearer, signed_in_channel, token_for
from tests.postgres_servers import PostgresServer

DEFAULT_PLAYER = "tester"


class Served:
    """A running App and a channel to it. ``channel`` acts as the player
    ``DEFAULT_PLAYER`` (a real token, signed by the app's own key) in calls
    that carry no token of their own; ``plain`` sends none; ``token(p)``
    and ``bearer(p)`` give other players' tokens and metadata."""

    def __init__(self, app: App, loop: asyncio.AbstractEventLoop) -> None:
        self.app = app
        self.loop = loop
        self.address = f"127.0.0.1:{app.port}"
        self.metrics_url = f"http://127.0.0.1:{app.metrics_port}/metrics"
        self.plain = grpc.insecure_channel(self.address)
        self._tokens: dict[str, str] = {}
        self.channel = signed_in_channel(self.plain, lambda: self.token(DEFAULT_PLAYER))

    def token(self, player_id: str, name: str | None = None) -> str:
        """An access token of ``player_id`` (made once per player)."""
        if not self.app.auth.enabled:
            return "identities-are-off"
        if player_id not in self._tokens:
            self._tokens[player_id] = token_for(self.app, player_id, name)
        return self._tokens[player_id]

    def bearer(self, player_id: str) -> tuple[tuple[str, str], ...]:
        return bearer(self.token(player_id))

    def run(self, coroutine: Any, timeout: float = 30) -> Any:
        """Runs ``coroutine`` on the server's event loop and returns its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)


@contextlib.contextmanager
def serving(settings: Settings | None = None, **options: Any) -> Iterator[Served]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    app = App("127.0.0.1:0", metrics_port=0, settings=settings, **options)
    asyncio.run_coroutine_threadsafe(app.start(), loop).result(timeout=30)
    served = Served(app, loop)
    try:
        yield served
    finally:
        served.plain.close()
        stopping = asyncio.run_coroutine_threadsafe(app.stop(grace=0.5), loop)
        try:
            stopping.result(timeout=STOP_SECONDS)
        except TimeoutError:
            raise AssertionError(f"the server did not stop:\n{hung_tasks(loop)}") from None
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=10)


STOP_SECONDS = 15  # the app's own bound on stopping is a few seconds


def hung_tasks(loop: asyncio.AbstractEventLoop) -> str:
    """Where each task of ``loop`` waits, for a failure that says its cause."""
    lines = []
    for task in asyncio.all_tasks(loop):
        chain, awaited = [], task.get_coro()
        while awaited is not None and hasattr(awaited, "cr_frame"):  # coroutines, down to a future
            frame = awaited.cr_frame
            if frame is not None:
                chain.append(f"{frame.f_code.co_name}:{frame.f_lineno}")
            awaited = awaited.cr_await
        lines.append(f"  {task.get_name()}: {' -> '.join(chain)} -> {awaited!r:.120}")
    return "\n".join(sorted(lines))


# The shared server's per-client limits are far above what the suite sends
# from its one address; the limits have tests of their own.
# Bot-only matches play unpaced (tests of the pace ask for one per match).
SUITE_SETTINGS = Settings(
    rate_per_second=10_000.0, rate_burst=10_000.0, matches_per_minute=100_000, bot_pace=0.0
)


@pytest.fixture(scope="session")
def server() -> Iterator[Served]:
    with serving(SUITE_SETTINGS, workers=2) as served:
        yield served


@pytest.fixture(scope="session")
def channel(server: Served) -> grpc.Channel:
    return server.channel


@pytest.fixture
def serve() -> Iterator[Callable[..., Served]]:
    """Starts servers with other settings for one test: ``serve(settings, workers=1)``."""
    with contextlib.ExitStack() as stack:
        yield lambda settings=None, **options: stack.enter_context(serving(settings, **options))


@pytest.fixture(params=["sqlite", "postgresql"])
def archive_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty archive's URL: an SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        yield sqlite_url(tmp_path)
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    with server.database() as url:
        yield url
