"""A real gRPC server on a free port, in a background event loop, for the
service tests; clients talk to it over a real channel."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import grpc
import pytest

from services import ai_service, rules_service
from services.server import build_server, start


@pytest.fixture(scope="session")
def channel() -> Iterator[grpc.Channel]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def boot() -> tuple[grpc.aio.Server, int]:
        services = [rules_service.service(), ai_service.service(workers=1)]
        server, port = build_server(services, "127.0.0.1:0")
        await start(server)
        return server, port

    server, port = asyncio.run_coroutine_threadsafe(boot(), loop).result(timeout=30)
    with grpc.insecure_channel(f"127.0.0.1:{port}") as client:
        yield client
    asyncio.run_coroutine_threadsafe(server.stop(None), loop).result(timeout=30)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=10)
