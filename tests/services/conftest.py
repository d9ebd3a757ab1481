"""The all-in-one server (rules, AI and match services, in-memory
coordination, bot workers) on a free port, in a background event loop; the
service tests talk to it over a real gRPC channel."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import grpc
import pytest

from services.app import App


@pytest.fixture(scope="session")
def channel() -> Iterator[grpc.Channel]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    app = App("127.0.0.1:0", workers=2, metrics_port=0)
    port = asyncio.run_coroutine_threadsafe(app.start(), loop).result(timeout=30)
    with grpc.insecure_channel(f"127.0.0.1:{port}") as client:
        client.metrics_url = f"http://127.0.0.1:{app.metrics_port}/metrics"  # type: ignore[attr-defined]
        client.address = f"127.0.0.1:{port}"  # type: ignore[attr-defined]
        yield client
    asyncio.run_coroutine_threadsafe(app.stop(grace=1.0), loop).result(timeout=60)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=10)
