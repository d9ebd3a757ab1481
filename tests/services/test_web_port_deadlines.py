"""Deadlines over the web port: Connect's ``connect-timeout-ms`` (milliseconds)
and gRPC-Web's ``grpc-timeout`` (a number and a unit) reach a servicer as
``context.time_remaining()`` in seconds, as a gRPC deadline does, and a call
that outlives its deadline is answered DEADLINE_EXCEEDED at the deadline."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from meeple.v1 import game_pb2 as pb
from meeple.v1 import rules_service_pb2 as rules

from services.rules_service.servicer import RulesServicer
from services.server import Service
from services.settings import Settings
from services.web.server import WebServer
from tests.services.conftest import Served
from tests.services.test_web_port import OTHELLO, TRAILERS, envelop, fetch, unenvelop


class Clocked(RulesServicer):
    """RulesService whose NewGame notes first the time its context says remains."""

    def __init__(self) -> None:
        self.remaining: list[float | None] = []

    async def NewGame(  # noqa: N802 (gRPC method names)
        self, request: rules.NewGameRequest, context: Any
    ) -> rules.NewGameResponse:
        self.remaining.append(context.time_remaining())
        return await super().NewGame(request, context)


@pytest.fixture
def clocked() -> Iterator[tuple[str, Clocked]]:
    """A web port serving only ``Clocked``, on a loop of its own."""
    servicer = Clocked()
    service = Service(servicer, rules.DESCRIPTOR.services_by_name["RulesService"])
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    server = WebServer([service], "127.0.0.1", 0, files={})
    asyncio.run_coroutine_threadsafe(server.start(), loop).result(timeout=10)
    try:
        yield f"http://127.0.0.1:{server.port}", servicer
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(0.2), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)


NEW_GAME = "/meeple.v1.RulesService/NewGame"
TOLERANCE = 0.3  # seconds: the time between the header's arrival and the handler's look


def test_connect_timeout_ms_is_milliseconds(clocked: tuple[str, Clocked]) -> None:
    base, servicer = clocked
    body = json.dumps({"config": OTHELLO}).encode()
    for milliseconds in (2500, 60_000):
        headers = {"content-type": "application/json", "connect-timeout-ms": str(milliseconds)}
        status, _, _ = fetch(base + NEW_GAME, body, headers, "POST")
        assert status == 200
        remaining = servicer.remaining.pop()
        assert remaining is not None
        assert milliseconds / 1000 - TOLERANCE < remaining <= milliseconds / 1000
    status, _, _ = fetch(base + NEW_GAME, body, {"content-type": "application/json"}, "POST")
    assert status == 200
    assert servicer.remaining.pop() is None  # no header: no deadline


@pytest.mark.parametrize(
    ("header", "seconds"), [("2500m", 2.5), ("3S", 3.0), ("2500000u", 2.5), ("1M", 60.0)]
)
def test_grpc_web_timeout_is_read_in_its_unit(
    clocked: tuple[str, Clocked], header: str, seconds: float
) -> None:
    base, servicer = clocked
    request = envelop(
        0, rules.NewGameRequest(config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)).SerializeToString()
    )
    headers = {"content-type": "application/grpc-web+proto", "grpc-timeout": header}
    status, _, _ = fetch(base + NEW_GAME, request, headers, "POST")
    assert status == 200
    remaining = servicer.remaining.pop()
    assert remaining is not None
    assert seconds - TOLERANCE < remaining <= seconds


@pytest.fixture
def ai_web(serve: Callable[..., Served]) -> tuple[str, dict[str, Any]]:
    """A server with one AI worker and a web port, and a record to think on."""
    served = serve(Settings(rate_per_second=None), web_port=0, workers=1)
    base = f"http://127.0.0.1:{served.app.web_port}"
    body = json.dumps({"config": OTHELLO}).encode()
    status, _, raw = fetch(base + NEW_GAME, body, {"content-type": "application/json"}, "POST")
    assert status == 200
    return base, json.loads(raw)["record"]


SUGGEST = "/meeple.v1.AIService/SuggestAction"


def suggest_quickly_afterwards(base: str, record: dict[str, Any]) -> None:
    """The search past its deadline stopped: the only worker answers a small
    suggestion at once."""
    began = time.monotonic()
    body = json.dumps({"record": record, "botSpec": "greedy"}).encode()
    status, _, raw = fetch(base + SUGGEST, body, {"content-type": "application/json"}, "POST")
    assert status == 200, raw
    assert time.monotonic() - began < 2.0


def test_a_connect_call_past_its_deadline_is_deadline_exceeded(
    ai_web: tuple[str, dict[str, Any]],
) -> None:
    base, record = ai_web
    body = json.dumps({"record": record, "botSpec": "mcts:time=10"}).encode()
    headers = {"content-type": "application/json", "connect-timeout-ms": "300"}
    began = time.monotonic()
    status, _, raw = fetch(base + SUGGEST, body, headers, "POST")
    elapsed = time.monotonic() - began
    assert json.loads(raw)["code"] == "deadline_exceeded", raw
    assert status == 504  # Connect's HTTP status for deadline_exceeded
    assert 0.25 < elapsed < 1.0
    suggest_quickly_afterwards(base, record)


def test_a_grpc_web_call_past_its_deadline_is_deadline_exceeded(
    ai_web: tuple[str, dict[str, Any]],
) -> None:
    base, record = ai_web
    request = {"record": record, "botSpec": "mcts:time=10"}
    # gRPC-Web's JSON codec, so the record goes back as NewGame returned it.
    headers = {"content-type": "application/grpc-web+json", "grpc-timeout": "300m"}
    began = time.monotonic()
    status, answer_headers, raw = fetch(
        base + SUGGEST, envelop(0, json.dumps(request).encode()), headers, "POST"
    )
    elapsed = time.monotonic() - began
    assert status == 200
    if "grpc-status" in answer_headers:  # a trailers-only answer
        assert answer_headers["grpc-status"] == "4", answer_headers
    else:
        [(flags, trailers)] = list(unenvelop(raw))
        assert flags == TRAILERS
        assert b"grpc-status:4" in trailers.replace(b" ", b"")  # DEADLINE_EXCEEDED
    assert 0.25 < elapsed < 1.0
    suggest_quickly_afterwards(base, record)
