"""``meeple up`` as a user runs it: a real process that serves gRPC and the
web port, reports healthy, and stops gracefully on SIGTERM."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

MEEPLE = Path(sys.executable).with_name("meeple")


def start(*args: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(MEEPLE), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={"COLUMNS": "200", "PATH": str(MEEPLE.parent), **env},
    )


def refused(*args: str) -> subprocess.CompletedProcess[str]:
    """A command line that must be refused as a usage error (exit 2)."""
    result = subprocess.run(
        [str(MEEPLE), *args],
        capture_output=True,
        text=True,
        env={"COLUMNS": "200", "PATH": str(MEEPLE.parent)},
        timeout=30,
    )
    assert result.returncode == 2, result.stderr
    return result


def test_meeple_up_serves_and_stops_on_sigterm(tmp_path: Path) -> None:
    process = start(
        "up", "--port", "0", "--metrics-port", "0", "--web-port", "0",
        "--data-dir", str(tmp_path),
    )  # fmt: skip
    try:
        assert process.stdout is not None
        # Log lines may come first (stderr is merged: the new archive's migration).
        line = process.stdout.readline()
        while line and "listening on" not in line:
            line = process.stdout.readline()
        port = re.search(
            r"^meeple rules, AI, match, matchmaking, auth and archive services "
            r"listening on 127\.0\.0\.1:(\d+), coordination in memory$",
            line,
        )
        assert port, line
        web = re.search(r"web page: (http://127\.0\.0\.1:\d+/)", process.stdout.readline())
        assert web, "no web page address"
        archive = f"archive: sqlite:///{tmp_path.absolute()}/archive.sqlite3\n"
        assert process.stdout.readline() == archive
        assert "metrics: http://127.0.0.1:" in process.stdout.readline()
        new_game = urllib.request.Request(
            web.group(1) + "meeple.v1.RulesService/NewGame",
            data=json.dumps({"config": {"kind": "GAME_KIND_OTHELLO"}}).encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(new_game, timeout=10) as answer:
            assert json.loads(answer.read())["view"]["scores"] == [2, 2]
        with urllib.request.urlopen(web.group(1), timeout=10) as answer:  # the page, at /
            assert answer.headers["content-type"] == "text/html; charset=utf-8"
            page = answer.read().decode()
        assert '<script type="module" src="app.js"></script>' in page
        with urllib.request.urlopen(web.group(1) + "app.js", timeout=10) as answer:
            assert b"meeple-seat-token" in answer.read()  # the bundle that calls the services
        with grpc.insecure_channel(f"127.0.0.1:{port.group(1)}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            response = health.Check(health_pb2.HealthCheckRequest(), timeout=10)
            assert response.status == health_pb2.HealthCheckResponse.SERVING
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
        assert time.monotonic() - started < 30
        assert "shutting down" in process.stdout.read()
    finally:
        process.kill()


def test_meeple_serve_runs_several_services_on_one_port() -> None:
    process = start("serve", "rules", "ai", "--port", "0", "--metrics-port", "0")
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        port = re.search(r"rules and ai services listening on 127\.0\.0\.1:(\d+)", line)
        assert port, line
        with grpc.insecure_channel(f"127.0.0.1:{port.group(1)}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            for name in ("meeple.v1.RulesService", "meeple.v1.AIService"):
                response = health.Check(health_pb2.HealthCheckRequest(service=name), timeout=10)
                assert response.status == health_pb2.HealthCheckResponse.SERVING
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()


def test_meeple_serve_refuses_unknown_or_repeated_services() -> None:
    for services in (["chess"], ["rules", "rules"]):
        result = refused("serve", *services)
        assert "give each of rules, ai, match, matchmaking, auth, archive at most once" in (
            result.stderr
        )


def test_web_origins_come_from_the_environment_and_bad_ones_are_refused() -> None:
    games = "https://games.example.com"
    process = start(
        "serve", "rules", "--port", "0", "--metrics-port", "0", "--web-port", "0",
        MEEPLE_WEB_ORIGINS=f"{games}, http://localhost:5173",
    )  # fmt: skip
    try:
        assert process.stdout is not None
        process.stdout.readline()
        web = re.search(r"web page: (http://127\.0\.0\.1:\d+/)", process.stdout.readline())
        assert web, "no web page address"
        preflight = urllib.request.Request(
            web.group(1) + "meeple.v1.RulesService/NewGame",
            headers={"origin": games, "access-control-request-method": "POST"},
            method="OPTIONS",
        )
        with urllib.request.urlopen(preflight, timeout=10) as answer:
            assert answer.status == 204
            assert answer.headers["access-control-allow-origin"] == games
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()
    result = refused("up", "--web-origins", "games.example.com")
    assert "an origin is * or scheme://host[:port]" in result.stderr
