"""What a client may hold of the web port, over real sockets on loopback: a
request's headers must arrive within the idle timeout and its body within
the body timeout (a slowloris trickling either is cut off, answered 408 when
its headers were read, and its connection closed); one client address holds
at most so many connections at once (one more is answered 429 and closed);
well-behaved clients, and long responses such as WatchMatch, are unaffected."""

from __future__ import annotations

import http.client
import json
import select
import socket
import struct
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, suppress
from typing import Any

import h2.config
import h2.connection
import h2.events
import pytest

from services import match_service, rules_service
from services.settings import Settings
from services.web.bounds import ConnectionCap, client_address
from services.web.server import WebServer
from tests.services.conftest import Served
from tests.services.test_web_port import OTHELLO, envelop

NEW_GAME = "/meeple.v1.RulesService/NewGame"
NEW_GAME_BODY = json.dumps({"config": OTHELLO}).encode()


class Port:
    """A WebServer with small limits, on a running App's event loop (its
    match service is the App's, so a gRPC or Connect call can move a match)."""

    def __init__(self, served: Served, **limits: Any) -> None:
        self.served = served
        services = [
            rules_service.service(),
            match_service.service(served.app.matches, served.app.auth),
        ]
        self.server = WebServer(services, "127.0.0.1", 0, files={}, **limits)
        served.run(self.server.start())
        self.port = self.server.port

    def stop(self) -> None:
        self.served.run(self.server.stop(0.2))

    def connect(self, source: str = "127.0.0.1") -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), 5, (source, 0))

    def call(self, sock: socket.socket | None = None) -> int:
        """A NewGame over Connect on ``sock`` (a new connection if None): the status."""
        owned = sock is None
        sock = self.connect() if sock is None else sock
        try:
            sock.sendall(request_head(len(NEW_GAME_BODY)) + NEW_GAME_BODY)
            answer = http.client.HTTPResponse(sock)
            answer.begin()
            answer.read()
            return answer.status
        finally:
            if owned:
                sock.close()


@pytest.fixture
def web_port(serve: Callable[..., Served]) -> Iterator[Callable[..., Port]]:
    """``web_port(body_timeout=1.0, ...)``: a web port with those limits."""
    served = serve(Settings(rate_per_second=None), services=("rules", "match"), bots=False)
    with ExitStack() as stack:

        def start(**limits: Any) -> Port:
            port = Port(served, **limits)
            stack.callback(port.stop)
            return port

        yield start


def request_head(length: int, path: str = NEW_GAME) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
        f"content-length: {length}\r\n\r\n"
    ).encode()


def trickle(sock: socket.socket, every: float, within: float) -> tuple[float | None, bytes]:
    """Sends one byte every ``every`` s until the server closes the
    connection, or for ``within`` s: how long it stayed open (None: still
    open), and what the server answered meanwhile."""
    began = time.monotonic()
    answered = b""
    while (elapsed := time.monotonic() - began) < within:
        readable, _, _ = select.select([sock], [], [], every)
        try:
            if readable:
                data = sock.recv(65536)
                if not data:
                    return elapsed, answered
                answered += data
            else:
                sock.sendall(b" ")
        except (ConnectionResetError, BrokenPipeError):
            return time.monotonic() - began, answered
    return None, answered


def listen(sock: socket.socket, within: float) -> tuple[float | None, bytes]:
    """Sends nothing, reads what comes for ``within`` s: when the server
    closed the connection (None: not yet) and what it answered."""
    began = time.monotonic()
    answered = b""
    while (left := within - (time.monotonic() - began)) > 0:
        readable, _, _ = select.select([sock], [], [], left)
        if not readable:
            break
        try:
            data = sock.recv(65536)
        except ConnectionResetError:
            data = b""
        if not data:
            return time.monotonic() - began, answered
        answered += data
    return None, answered


def read_until(stream: http.client.HTTPResponse, needle: bytes, within: float) -> bytes:
    """What a streamed answer sends until ``needle`` (AssertionError after ``within`` s)."""
    began, read = time.monotonic(), b""
    while needle not in read:
        assert time.monotonic() - began < within, read
        read += stream.read1()
    return read


def test_a_body_trickled_past_the_body_timeout_is_answered_408_and_closed(
    web_port: Callable[..., Port],
) -> None:
    port = web_port(body_timeout=1.0)
    with port.connect() as sock:
        sock.sendall(request_head(10_000) + b"{")
        open_for, answered = trickle(sock, every=0.2, within=4.0)
    assert open_for is not None, "a trickled body held its connection open"
    assert 0.8 < open_for < 1.8
    assert answered.startswith(b"HTTP/1.1 408 "), answered
    assert port.call() == 200  # the port still answers


def test_headers_trickled_past_the_idle_timeout_are_closed(
    web_port: Callable[..., Port],
) -> None:
    port = web_port(idle_timeout=1.0)
    with port.connect() as sock:
        sock.sendall(b"POST " + NEW_GAME.encode() + b" HTTP/1.1\r\nx-slow: ")
        open_for, answered = trickle(sock, every=0.2, within=4.0)
    assert open_for is not None, "trickled headers held their connection open"
    assert 0.8 < open_for < 1.8
    assert answered == b""
    with port.connect() as sock:  # an idle connection likewise
        open_for, _ = listen(sock, within=4.0)
    assert open_for is not None
    assert 0.8 < open_for < 1.8


def test_a_slow_http2_stream_is_cut_and_its_connection_closed_once_idle(
    web_port: Callable[..., Port],
) -> None:
    """gRPC over HTTP/2 (prior knowledge) with a trickled request message:
    the stream is answered 408 at the body timeout; the connection, idle
    then, closes at the idle timeout."""
    port = web_port(body_timeout=1.0, idle_timeout=1.0)
    connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    connection.initiate_connection()
    headers = [
        (":method", "POST"),
        (":scheme", "http"),
        (":authority", "127.0.0.1"),
        (":path", NEW_GAME),
        ("content-type", "application/grpc"),
        ("te", "trailers"),
    ]
    connection.send_headers(1, headers)
    connection.send_data(1, struct.pack(">BI", 0, 1000))  # a message of 1000 bytes, to come
    with port.connect() as sock:
        sock.sendall(connection.data_to_send())
        began = time.monotonic()
        status, ended, closed = None, None, None
        while closed is None and time.monotonic() - began < 5.0:
            readable, _, _ = select.select([sock], [], [], 0.2)
            if not readable:
                if ended is None:
                    connection.send_data(1, b"x")
                    sock.sendall(connection.data_to_send())
                continue
            data = sock.recv(65536)
            if not data:
                closed = time.monotonic() - began
                break
            for event in connection.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived):
                    status = dict(event.headers)[b":status"]
                elif isinstance(event, (h2.events.StreamEnded, h2.events.StreamReset)):
                    ended = time.monotonic() - began
            sock.sendall(connection.data_to_send())
    assert status == b"408"
    assert ended is not None
    assert 0.8 < ended < 1.8
    assert closed is not None
    assert ended < closed < ended + 1.8


def test_connections_beyond_the_cap_per_address_are_refused_at_once(
    web_port: Callable[..., Port],
) -> None:
    port = web_port(connections_per_client=8, idle_timeout=30.0)
    with ExitStack() as stack:
        held = [stack.enter_context(port.connect()) for _ in range(8)]
        time.sleep(0.2)  # the server has accepted all eight
        with port.connect() as over:
            open_for, answered = listen(over, within=2.0)
        assert open_for is not None, "a ninth connection from one address was held"
        assert open_for < 0.5
        assert answered == b"" or answered.startswith(b"HTTP/1.1 429 "), answered
        try:  # another address is not affected
            other = stack.enter_context(port.connect("127.0.0.2"))
        except OSError:
            pass  # no 127.0.0.2 here
        else:
            assert port.call(other) == 200
        assert [port.call(sock) for sock in held] == [200] * 8  # the eight still work
        held.pop().close()
        time.sleep(0.2)
        held.append(stack.enter_context(port.connect()))  # the freed place is taken again
        assert port.call(held[-1]) == 200


def test_well_behaved_clients_are_unaffected(web_port: Callable[..., Port]) -> None:
    """Many short connections in turn, beyond the cap in all (each closes
    before the next), and requests on one kept-alive connection."""
    port = web_port(connections_per_client=4, body_timeout=1.0, idle_timeout=1.0)
    assert [port.call() for _ in range(20)] == [200] * 20
    with port.connect() as sock:
        statuses = []
        for _ in range(3):
            statuses.append(port.call(sock))
            time.sleep(0.5)  # within the idle timeout
        assert statuses == [200] * 3


def test_answers_are_not_held_back_by_nagle(web_port: Callable[..., Port]) -> None:
    """An answer goes out in several writes (head, body); with Nagle's
    algorithm on, a later one waits for the client's delayed ACK of the
    first, about 40 ms on Linux: each call of a page took that long."""
    port = web_port()
    with port.connect() as sock:
        port.call(sock)
        took = []
        for _ in range(10):
            began = time.perf_counter()
            assert port.call(sock) == 200
            took.append(time.perf_counter() - began)
    assert sorted(took)[len(took) // 2] < 0.02, took


def test_a_body_larger_than_a_message_is_still_resource_exhausted(
    web_port: Callable[..., Port],
) -> None:
    port = web_port(body_timeout=5.0)
    body = b'{"config": {"kind": "' + b"x" * (4 * 1024 * 1024) + b'"}}'
    with port.connect() as sock:
        sock.settimeout(10)
        with suppress(ConnectionResetError, BrokenPipeError):  # refused before it was all sent
            sock.sendall(request_head(len(body)) + body)
        answer = http.client.HTTPResponse(sock)
        answer.begin()
        assert (answer.status, json.loads(answer.read())["code"]) == (429, "resource_exhausted")


def test_a_stream_outlives_the_request_timeouts(web_port: Callable[..., Port]) -> None:
    """WatchMatch over Connect: its request is read at once; the answer then
    streams for longer than both timeouts, and the next event still comes."""
    port = web_port(body_timeout=0.5, idle_timeout=0.5)

    def call(method: str, message: dict[str, Any], **headers: str) -> dict[str, Any]:
        connection = http.client.HTTPConnection("127.0.0.1", port.port, timeout=5)
        connection.request(
            "POST",
            f"/meeple.v1.MatchService/{method}",
            json.dumps(message).encode(),
            {
                "content-type": "application/json",
                "authorization": f"Bearer {port.served.token('tester')}",
                **headers,
            },
        )
        answer = connection.getresponse()
        assert answer.status == 200
        called: dict[str, Any] = json.loads(answer.read())
        connection.close()
        return called

    human = {"kind": "SEAT_KIND_HUMAN"}
    created = call("CreateMatch", {"config": OTHELLO, "seats": [human, human]})
    match_id = created["match"]["matchId"]
    seat = call("JoinMatch", {"matchId": match_id, "seat": 0})["seatToken"]
    call("JoinMatch", {"matchId": match_id, "seat": 1})

    watch = http.client.HTTPConnection("127.0.0.1", port.port, timeout=5)
    watch.request(
        "POST",
        "/meeple.v1.MatchService/WatchMatch",
        envelop(0, json.dumps({"matchId": match_id}).encode()),
        {"content-type": "application/connect+json"},
    )
    stream = watch.getresponse()
    assert stream.status == 200
    read_until(stream, b"snapshot", within=5.0)
    time.sleep(1.5)  # three times either timeout
    move = {"matchId": match_id, "expectedPly": 0, "actions": [{"board": {"square": 19}}]}
    call("SubmitAction", move, **{"meeple-seat-token": seat})
    read_until(stream, b'"d3"', within=5.0)
    watch.close()


def test_the_cap_counts_per_address() -> None:
    cap = ConnectionCap(2)
    assert [cap.enter("10.0.0.1") for _ in range(3)] == [True, True, False]
    assert cap.enter("10.0.0.2")
    cap.leave("10.0.0.1")
    assert cap.held("10.0.0.1") == 1
    assert cap.enter("10.0.0.1")
    assert ConnectionCap(None).enter("10.0.0.1")
    with pytest.raises(ValueError, match="at least 1"):
        ConnectionCap(0)
    # A peer's port does not matter, and IPv4 mapped into IPv6 is IPv4.
    assert client_address(("127.0.0.1", 5)) == client_address(("::ffff:127.0.0.1", 6, 0, 0))
    assert client_address(("::1", 7, 0, 0)) == "::1"


def test_the_settings_reach_the_web_port(serve: Callable[..., Served]) -> None:
    """MEEPLE_WEB_BODY_TIMEOUT, _IDLE_TIMEOUT and _CONNECTIONS set the
    bounds of the web port that App starts."""
    settings = Settings(web_body_timeout=1.5, web_idle_timeout=2.5, web_connections=3)
    web = serve(settings, web_port=0).app.web
    assert web is not None
    assert (web.app.body_timeout, web.idle_timeout, web.connections.limit) == (1.5, 2.5, 3)
    environ = {"MEEPLE_WEB_BODY_TIMEOUT": "1.5", "MEEPLE_WEB_CONNECTIONS": "3"}
    assert Settings.from_env(environ) == Settings(web_body_timeout=1.5, web_connections=3)
