"""The web port, spoken to as a browser would, in raw HTTP: the services over
the Connect protocol (JSON and binary, unary and server streaming) and
gRPC-Web, with the same errors, limits and tokens as the gRPC port; and the
page's files, with nothing else reachable."""

from __future__ import annotations

import asyncio
import json
import struct
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import pytest
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import rules_service_pb2 as rules
from meeple.v1 import rules_service_pb2_grpc as rules_grpc

from services.settings import Settings
from services.web.cors import parse_origins
from services.web.server import WebServer, page_files
from tests.services.conftest import Served

OTHELLO = {"kind": "GAME_KIND_OTHELLO"}
HUMAN = {"kind": "SEAT_KIND_HUMAN"}
END_STREAM = 0x02  # Connect: the end-of-stream message
TRAILERS = 0x80  # gRPC-Web: the trailers frame


def fetch(
    url: str, body: bytes | None = None, headers: dict[str, str] | None = None, method: str = "GET"
) -> tuple[int, dict[str, str], bytes]:
    """The status, the headers (names lowercased) and the body of any answer."""
    request = urllib.request.Request(url, data=body, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, {k.lower(): v for k, v in answer.headers.items()}, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


class Web:
    """Calls to the web port, as ``player`` (None: with no token; an
    ``authorization`` header of a call's own replaces the player's)."""

    def __init__(self, served: Served, player: str | None = "tester") -> None:
        self.served = served
        self.player = player
        self.base = f"http://127.0.0.1:{served.app.web_port}"

    def authorization(self, player: str) -> str:
        return f"Bearer {self.served.token(player)}"

    def request(
        self, path: str, body: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        mine = {"authorization": self.authorization(self.player)} if self.player else {}
        headers = {"content-type": content_type, **mine, **(headers or {})}
        return fetch(self.base + path, body, headers, "POST")

    def call(self, method: str, message: dict, **headers: str) -> tuple[int, dict]:  # type: ignore[type-arg]
        """A Connect unary call in JSON: the HTTP status and the JSON body."""
        status, _, body = self.request(
            f"/meeple.v1.{method}", json.dumps(message).encode(), "application/json", headers
        )
        return status, json.loads(body)

    def stream(self, method: str, message: dict, **headers: str) -> list[tuple[int, dict]]:  # type: ignore[type-arg]
        """A Connect server-streaming call in JSON: each enveloped message's flags and JSON."""
        envelope = envelop(0, json.dumps(message).encode())
        status, _, body = self.request(
            f"/meeple.v1.{method}", envelope, "application/connect+json", headers
        )
        assert status == 200
        return [(flags, json.loads(data)) for flags, data in unenvelop(body)]


def envelop(flags: int, data: bytes) -> bytes:
    return struct.pack(">BI", flags, len(data)) + data


def unenvelop(body: bytes) -> Iterator[tuple[int, bytes]]:
    while body:
        flags, length = struct.unpack(">BI", body[:5])
        yield flags, body[5 : 5 + length]
        body = body[5 + length :]


@pytest.fixture
def web(serve: Callable[..., Served]) -> Web:
    # Bot-only matches unpaced: the streams' tests watch them to the end.
    settings = Settings(rate_per_second=None, matches_per_minute=10_000, bot_pace=0.0)
    return Web(serve(settings, web_port=0))


def test_a_unary_call_in_json_returns_exact_values(web: Web) -> None:
    status, body = web.call("RulesService/NewGame", {"config": OTHELLO})
    assert status == 200
    view = body["view"]
    assert view["phase"] == "GAME_PHASE_SEAT_TO_ACT"
    assert view["seatToAct"] == 0
    assert view["scores"] == [2, 2]
    assert view["grid"]["colours"] == ["black", "white"]
    assert view["grid"]["cells"][27:29] == [1, 0]  # d4 white, e4 black


def test_json_answers_are_compact_and_unknown_fields_are_ignored(web: Web) -> None:
    request = json.dumps({"config": OTHELLO, "comment": "from a newer client"}).encode()
    status, _, raw = web.request("/meeple.v1.RulesService/NewGame", request, "application/json")
    assert status == 200
    assert b"\n " not in raw  # one line: no indentation
    assert json.loads(raw)["view"]["scores"] == [2, 2]


def test_a_malformed_json_request_gets_a_short_reason(web: Web) -> None:
    """protobuf's JSON parser quotes the offending value whole; the error
    quotes a prefix of its reason."""
    for config in ({"rolit": {"players": "9" * 10_000}}, [1, 2, 3], {"kind": "X" * 10_000}):
        status, body = web.call("RulesService/NewGame", {"config": config})
        assert (status, body["code"]) == (400, "invalid_argument"), body
        assert len(body["message"]) < 300, body["message"]
    status, body = web.call("RulesService/NewGame", {"config": [1, 2, 3]})
    assert body["message"].startswith("the request is not a valid NewGameRequest message: ")


def test_a_unary_call_in_binary_protobuf(web: Web) -> None:
    request = rules.NewGameRequest(config=pb.GameConfig(kind=pb.GAME_KIND_ROLIT))
    status, headers, body = web.request(
        "/meeple.v1.RulesService/NewGame", request.SerializeToString(), "application/proto"
    )
    assert status == 200
    assert headers["content-type"] == "application/proto"
    answer = rules.NewGameResponse.FromString(body)
    assert answer.view.grid.colours == ["red", "yellow", "green", "blue"]


def test_errors_carry_the_grpc_code_and_reason(web: Web) -> None:
    status, body = web.call("RulesService/NewGame", {"config": {}})
    assert (status, body["code"]) == (400, "invalid_argument")
    assert "config.kind" in body["message"]
    status, body = web.call("MatchService/GetMatch", {"matchId": "nope"})
    assert (status, body["code"]) == (404, "not_found")
    status, _, raw = web.request(
        "/meeple.v1.RulesService/NewGame", b"\xff\xff", "application/proto"
    )
    assert (status, json.loads(raw)["code"]) == (400, "invalid_argument")


def test_a_seat_is_played_with_its_token_in_a_header(web: Web) -> None:
    _, created = web.call("MatchService/CreateMatch", {"config": OTHELLO, "seats": [HUMAN] * 2})
    match_id = created["match"]["matchId"]
    _, joined = web.call("MatchService/JoinMatch", {"matchId": match_id, "seat": 0})
    web.call("MatchService/JoinMatch", {"matchId": match_id, "seat": 1})
    move = {"matchId": match_id, "expectedPly": 0, "actions": [{"board": {"square": 19}}]}  # d3
    status, body = web.call("MatchService/SubmitAction", move)
    assert (status, body["code"]) == (401, "unauthenticated")
    status, body = web.call(
        "MatchService/SubmitAction", move, **{"meeple-seat-token": joined["seatToken"]}
    )
    assert status == 200
    assert body["applied"][0]["notation"] == "d3"
    illegal = {**move, "expectedPly": 1, "actions": [{"board": {"square": 0}}]}  # a1
    status, body = web.call(
        "MatchService/SubmitAction", illegal, **{"meeple-seat-token": joined["seatToken"]}
    )
    assert (status, body["code"]) == (400, "failed_precondition")  # not seat 0's turn, or a1


def test_watch_match_streams_to_the_end(web: Web) -> None:
    bots = [{"kind": "SEAT_KIND_BOT", "botSpec": "random"}] * 2
    _, created = web.call("MatchService/CreateMatch", {"config": OTHELLO, "seats": bots})
    messages = web.stream("MatchService/WatchMatch", {"matchId": created["match"]["matchId"]})
    *events, (last_flags, end) = messages
    assert last_flags == END_STREAM
    assert end == {}  # no error
    assert "snapshot" in events[0][1]
    assert "ended" in events[-1][1]
    plies = [e.get("ply", 0) for _, e in events if "action" in e]  # JSON omits a zero
    assert plies == list(range(len(plies)))


def test_a_stream_error_ends_the_stream_with_its_code(web: Web) -> None:
    [(flags, end)] = web.stream("MatchService/WatchMatch", {"matchId": "nope"})
    assert flags == END_STREAM
    assert end["error"]["code"] == "not_found"


def test_grpc_web_unary(web: Web) -> None:
    request = rules.NewGameRequest(config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO))
    status, _, body = web.request(
        "/meeple.v1.RulesService/NewGame",
        envelop(0, request.SerializeToString()),
        "application/grpc-web+proto",
    )
    assert status == 200
    (message_flags, message), (trailer_flags, trailers) = list(unenvelop(body))
    assert (message_flags, trailer_flags) == (0, TRAILERS)
    assert rules.NewGameResponse.FromString(message).view.scores == [2, 2]
    assert b"grpc-status:0" in trailers.replace(b" ", b"")


def test_grpc_web_streams_watch_match_and_ends_with_its_status(web: Web) -> None:
    bots = [ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec="random")] * 2
    created = ms.CreateMatchRequest(config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO), seats=bots)
    status, _, body = web.request(
        "/meeple.v1.MatchService/CreateMatch",
        envelop(0, created.SerializeToString()),
        "application/grpc-web+proto",
    )
    [(_, message), _] = list(unenvelop(body))
    match_id = ms.CreateMatchResponse.FromString(message).match.match_id
    watch = ms.WatchMatchRequest(match_id=match_id)
    status, _, body = web.request(
        "/meeple.v1.MatchService/WatchMatch",
        envelop(0, watch.SerializeToString()),
        "application/grpc-web+proto",
    )
    assert status == 200
    *messages, (trailer_flags, trailers) = list(unenvelop(body))
    assert trailer_flags == TRAILERS
    assert b"grpc-status:0" in trailers.replace(b" ", b"")
    events = [ms.WatchMatchResponse.FromString(data) for flags, data in messages if flags == 0]
    assert len(events) == len(messages)
    assert events[0].WhichOneof("event") == "snapshot"
    assert events[-1].WhichOneof("event") == "ended"
    plies = [e.ply for e in events if e.WhichOneof("event") == "action"]
    assert plies == list(range(len(plies)))

    # A stream that fails ends with the status in its trailers.
    status, _, body = web.request(
        "/meeple.v1.MatchService/WatchMatch",
        envelop(0, ms.WatchMatchRequest(match_id="nope").SerializeToString()),
        "application/grpc-web+proto",
    )
    assert status == 200
    [(trailer_flags, trailers)] = list(unenvelop(body))
    assert trailer_flags == TRAILERS
    assert b"grpc-status:5" in trailers.replace(b" ", b"")  # NOT_FOUND


def test_the_web_port_speaks_grpc_over_http2_too(web: Web) -> None:
    """connectrpc's third protocol, for clients that reach only the web
    port (behind an HTTP/2 ingress): a grpcio channel calls it."""
    port = web.base.rsplit(":", 1)[1]
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = rules_grpc.RulesServiceStub(channel)
        request = rules.NewGameRequest(config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO))
        assert list(stub.NewGame(request, timeout=10).view.scores) == [2, 2]
        with pytest.raises(grpc.RpcError) as info:
            stub.NewGame(rules.NewGameRequest(config=pb.GameConfig()), timeout=10)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "config.kind" in (info.value.details() or "")


def test_the_rate_limit_is_shared_with_the_grpc_port(serve: Callable[..., Served]) -> None:
    served = serve(Settings(rate_per_second=1.0, rate_burst=3.0), web_port=0)
    web = Web(served)
    codes = [web.call("RulesService/NewGame", {"config": OTHELLO})[0] for _ in range(5)]
    assert codes[:3] == [200, 200, 200]
    assert codes[3:] == [429, 429]  # resource_exhausted


def test_only_the_page_files_are_served(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<!doctype html><title>meeple</title>")
    (tmp_path / "app.js").write_text("console.log(1)")
    (tmp_path / "notes.txt").write_text("not served")
    files = page_files(tmp_path)
    assert sorted(files) == ["/", "/app.js", "/index.html"]

    async def scenario() -> list[tuple[int, dict[str, str], bytes]]:
        server = WebServer([], "127.0.0.1", 0, files)
        await server.start()
        answers = [
            await asyncio.to_thread(fetch, f"http://127.0.0.1:{server.port}{path}")
            for path in ("/", "/app.js", "/notes.txt", "/../index.html", "/%2e%2e/etc/passwd")
        ]
        await server.stop(0.5)
        return answers

    # In a thread of its own: the browser tests leave an event loop running in
    # this one (Playwright's sync API).
    with ThreadPoolExecutor(1) as thread:
        page, script, *refused = thread.submit(asyncio.run, scenario()).result(timeout=30)
    assert page[0] == 200
    assert page[1]["content-type"] == "text/html; charset=utf-8"
    assert "default-src 'self'" in page[1]["content-security-policy"]
    assert page[2].startswith(b"<!doctype html>")
    assert (script[0], script[1]["content-type"]) == (200, "text/javascript; charset=utf-8")
    assert [answer[0] for answer in refused] == [404, 404, 404]


def test_watch_ticket_streams_the_assignment(web: Web) -> None:
    """Two single-player tickets of Othello meet: each stream, read over
    Connect, ends with the assignment and that player's seat token."""
    tickets = []
    for player in ("ann", "bob"):
        status, created = web.call(
            "MatchmakingService/CreateTicket",
            {"config": OTHELLO, "playerIds": [player]},
            authorization=web.authorization(player),
        )
        assert status == 200
        tickets.append(created)

    def watch(created: dict) -> list[tuple[int, dict]]:  # type: ignore[type-arg]
        return web.stream(
            "MatchmakingService/WatchTicket",
            {"ticketId": created["ticket"]["ticketId"]},
            **{"meeple-ticket-token": created["ticketToken"]},
        )

    # Both watched at once: only tickets with an open WatchTicket are seated.
    with ThreadPoolExecutor(len(tickets)) as pool:
        streams = list(pool.map(watch, tickets))
    for messages in streams:
        *events, (flags, end) = messages
        assert (flags, end) == (END_STREAM, {})
        assigned = events[-1][1]["assigned"]
        assert assigned["matchId"]
        assert assigned["seats"][0]["seatToken"]


def cross_origin(base: str, origin: str, method: str = "POST") -> tuple[int, dict[str, str]]:
    """A browser's call to NewGame from a page of ``origin`` (or its
    preflight, with OPTIONS): the status and the headers, lowercased."""
    headers = {"origin": origin, "content-type": "application/json"}
    if method == "OPTIONS":
        headers["access-control-request-method"] = "POST"
        headers["access-control-request-headers"] = "content-type,meeple-seat-token"
    body = json.dumps({"config": OTHELLO}).encode() if method == "POST" else None
    status, answer_headers, _ = fetch(
        base + "/meeple.v1.RulesService/NewGame", body, headers, method
    )
    return status, answer_headers


def test_pages_of_allowed_origins_may_call_and_no_others(serve: Callable[..., Served]) -> None:
    games = "https://games.example.com"
    served = serve(web_port=0, web_origins=(games, "http://localhost:5173"))
    base = f"http://127.0.0.1:{served.app.web_port}"

    status, headers = cross_origin(base, games, "OPTIONS")
    assert status == 204
    assert headers["access-control-allow-origin"] == games
    assert headers["vary"] == "origin"
    assert "POST" in headers["access-control-allow-methods"]
    allowed = {h.strip() for h in headers["access-control-allow-headers"].split(",")}
    assert {"content-type", "connect-protocol-version", "meeple-seat-token"} <= allowed
    status, headers = cross_origin(base, games)
    assert status == 200
    assert headers["access-control-allow-origin"] == games
    assert "grpc-status" in headers["access-control-expose-headers"]

    # Another origin gets an answer its browser will not hand to the page.
    for method in ("OPTIONS", "POST"):
        status, headers = cross_origin(base, "https://evil.example.com", method)
        assert "access-control-allow-origin" not in headers, method


def test_no_origin_is_allowed_unless_configured_and_star_allows_any(
    serve: Callable[..., Served], web: Web
) -> None:
    _, headers = cross_origin(web.base, "https://games.example.com")
    assert "access-control-allow-origin" not in headers
    served = serve(web_port=0, web_origins=("*",))
    _, headers = cross_origin(f"http://127.0.0.1:{served.app.web_port}", "https://any.example")
    assert headers["access-control-allow-origin"] == "*"
    assert "origin" not in headers.get("vary", "").lower()  # the same answer for any


def test_origins_are_scheme_host_and_port() -> None:
    assert parse_origins(" https://a.example , http://localhost:5173/ ") == (
        "https://a.example",
        "http://localhost:5173",
    )
    assert parse_origins("*") == ("*",)
    assert parse_origins("") == ()
    for bad in ("a.example", "ftp://a.example", "https://a.example/play", "https://"):
        with pytest.raises(ValueError, match="scheme://host"):
            parse_origins(bad)
