"""Starting and stopping ``meeple`` as an operator does (issue 21): a start
that fails says why in one line on stderr (exit code 2, no traceback), a
port is never shared with another process, SIGINT and SIGTERM stop a
process at any moment, ``meeple health`` checks one from outside, and the
logs can be JSON lines.

Real processes (``tests.e2e.processes``), each wait bounded by a few
seconds beyond the start itself, so that a failure says its cause."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import os
import queue
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import IO

import grpc
import pytest
from meeple.v1 import match_service_pb2 as ms

from services.app import App, StartupError
from services.client import MeepleClient
from services.logs import configure_logging
from services.server import build_server
from tests.e2e.processes import MEEPLE, Meeple
from tests.redis_servers import RedisServer, free_port

QUIET = {"MEEPLE_LOG_LEVEL": "WARNING"}
# Starting the interpreter and importing the services takes a second or two
# (more on a busy machine); every bound below is on top of that.
START_SECONDS = 20
STOP_SECONDS = 5


def environment(env: dict[str, str] | None = None) -> dict[str, str]:
    path = f"{MEEPLE.parent}:{os.environ.get('PATH', '')}"
    return {"PATH": path, "COLUMNS": "300", **(env or {})}


def refused(*args: str, env: dict[str, str] | None = None, seconds: float = START_SECONDS) -> str:
    """Runs ``meeple ARGS`` that must not start: exit code 2 within
    ``seconds``, and one line on stderr with no traceback, which it returns."""
    try:
        done = subprocess.run(
            [str(MEEPLE), *args],
            capture_output=True,
            text=True,
            env=environment(env),
            timeout=seconds,
        )
    except subprocess.TimeoutExpired as expired:
        raise AssertionError(f"meeple {' '.join(args)} still ran after {seconds} s") from expired
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("meeple: "), lines
    return lines[0]


@contextmanager
def held_port() -> Iterator[int]:
    """A loopback port another socket listens on."""
    with socket.create_server(("127.0.0.1", 0)) as holder:
        yield holder.getsockname()[1]


def stop(process: Meeple, signum: signal.Signals = signal.SIGTERM) -> float:
    """Signals a running meeple; it must exit with 0 within STOP_SECONDS.
    Returns the seconds it took."""
    started = time.monotonic()
    process.process.send_signal(signum)
    try:
        code = process.process.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        raise AssertionError(f"still running {STOP_SECONDS} s after {signum.name}") from None
    assert code == 0, process.output()
    return time.monotonic() - started


# --- a start that fails ---------------------------------------------------------


def test_a_second_server_on_a_held_grpc_port_is_refused() -> None:
    first = Meeple("serve", "rules", "--port", "0", "--metrics-port", "0", env=QUIET)
    try:
        port = first.address.rsplit(":", 1)[1]
        line = refused("serve", "rules", "--port", port, "--metrics-port", "0")
        assert line == (
            f"meeple: cannot listen on 127.0.0.1:{port} (gRPC port, --port / MEEPLE_PORT): "
            "address already in use"
        )
    finally:
        stop(first)


def test_grpc_servers_do_not_share_a_port() -> None:
    """grpcio's SO_REUSEPORT would let a second server bind a port a first
    one serves; build_server refuses it."""

    async def two_servers() -> None:
        first = build_server([], "127.0.0.1:0")
        await first.start()
        try:
            with pytest.raises(OSError, match=r"[Aa]ddress already in use"):
                build_server([], f"127.0.0.1:{first.port}")
        finally:
            await first.stop(0)

    asyncio.run(two_servers())


def test_a_metrics_port_in_use_is_named() -> None:
    with held_port() as port:
        line = refused("serve", "rules", "--port", "0", "--metrics-port", str(port))
    assert line == (
        f"meeple: cannot listen on 127.0.0.1:{port} (metrics port, --metrics-port / "
        "MEEPLE_METRICS_PORT): address already in use"
    )


def test_a_web_port_in_use_is_named() -> None:
    with held_port() as port:
        args = ["serve", "rules", "--port", "0", "--metrics-port", "0", "--web-port", str(port)]
        line = refused(*args)
    assert line == (
        f"meeple: cannot listen on 127.0.0.1:{port} (web port, --web-port / MEEPLE_WEB_PORT): "
        "address already in use"
    )


def test_a_failed_start_lets_go_of_what_it_had_taken() -> None:
    async def failing_start(metrics_port: int) -> int:
        app = App("127.0.0.1:0", services=("rules",), metrics_port=0, web_port=metrics_port)
        with pytest.raises(StartupError) as raised:
            await app.start()
        assert raised.value.setting == "web_port"
        return app.port

    with held_port() as port:
        grpc_port = asyncio.run(failing_start(port))
    assert grpc_port
    with socket.create_server(("127.0.0.1", grpc_port)):  # free again
        pass


def test_redis_down_is_one_line_within_seconds() -> None:
    closed = free_port()
    started = time.monotonic()
    line = refused("worker", "--metrics-port", "0", "--redis", f"redis://127.0.0.1:{closed}/0")
    assert line.startswith(
        f"meeple: cannot reach Redis at 127.0.0.1:{closed}/0 (--redis / MEEPLE_REDIS_URL): "
    ), line
    assert "Connect" in line or "refused" in line, line
    # The start itself takes a second or two; the runtime retries took ~7 s more.
    assert time.monotonic() - started < START_SECONDS


def test_a_redis_db_index_out_of_range_is_one_line(redis_server: RedisServer) -> None:
    url = f"redis://127.0.0.1:{redis_server.port}/99"
    line = refused("serve", "match", "--port", "0", "--metrics-port", "0", "--redis", url)
    assert line == (
        f"meeple: Redis at 127.0.0.1:{redis_server.port}/99 refused us "
        "(--redis / MEEPLE_REDIS_URL): DB index is out of range"
    )


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        (
            ["serve", "rules"],
            {"MEEPLE_WAITING_TTL": "abc"},
            "meeple: MEEPLE_WAITING_TTL must be a number, got 'abc'",
        ),
        (["up", "--port", "abc"], {}, "meeple: Invalid value for '--port'"),
        (["up", "--web-origins", "example.com"], {}, "meeple: --web-origins / MEEPLE_WEB_ORIGINS"),
        (["worker"], {}, "meeple: a worker needs --redis URL"),
        (["serve", "rules"], {"MEEPLE_LOG_LEVEL": "LOUD"}, "meeple: MEEPLE_LOG_LEVEL: "),
        (["serve", "rules"], {"MEEPLE_LOG_FORMAT": "xml"}, "meeple: MEEPLE_LOG_FORMAT: "),
    ],
)
def test_a_bad_setting_or_option_is_one_line(
    args: list[str], env: dict[str, str], expected: str
) -> None:
    assert refused(*args, env=env).startswith(expected)


# --- signals ---------------------------------------------------------------------


class Starting:
    """``meeple ARGS`` in a session of its own (as a terminal's job), its
    stdout and stderr collected apart, as they come."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            [str(MEEPLE), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environment(env),
            start_new_session=True,
        )
        self.out: list[str] = []
        self.err: list[str] = []
        self._err: queue.Queue[str] = queue.Queue()
        assert self.process.stdout is not None
        assert self.process.stderr is not None
        for stream, lines in ((self.process.stdout, self.out), (self.process.stderr, self.err)):
            threading.Thread(target=self._drain, args=(stream, lines), daemon=True).start()

    def _drain(self, stream: IO[str], lines: list[str]) -> None:
        for line in stream:
            lines.append(line)
            if lines is self.err:
                self._err.put(line)

    def wait_for_stderr(self, text: str, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                if text in self._err.get(timeout=min(remaining, 0.2)):
                    return
            except queue.Empty:
                if self.process.poll() is not None:
                    break
        raise AssertionError(f"no {text!r} on stderr within {seconds} s:\n{self.output()}")

    def children(self) -> list[int]:
        """The process's child processes (its AI workers)."""
        return [int(pid) for pid in ps("-o", "pid=", "--ppid", str(self.process.pid)).split()]

    def ended_within(self, seconds: float) -> int:
        try:
            return self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
            raise AssertionError(f"still running {seconds} s later:\n{self.output()}") from None

    def output(self) -> str:
        time.sleep(0.1)  # the last lines
        return "".join(self.out) + "--- stderr:\n" + "".join(self.err)

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


UP = ["up", "--port", "0", "--metrics-port", "0", "--web-port", "0", "--workers", "2"]
CATCHING = "SIGINT or SIGTERM stops it from now on"  # a DEBUG line


def test_sigint_in_the_first_moments_of_the_start_stops_it() -> None:
    process = Starting(*UP, env={"MEEPLE_LOG_LEVEL": "DEBUG"})
    try:
        # The interpreter's own start, before meeple's code runs, is not
        # meeple's to handle: wait until it catches signals, at least 0.3 s.
        process.wait_for_stderr(CATCHING, START_SECONDS)
        time.sleep(max(0.0, process.started + 0.3 - time.monotonic()))
        assert not any("listening on" in line for line in process.out), "started already"
        process.process.send_signal(signal.SIGINT)
        assert process.ended_within(STOP_SECONDS) == 0, process.output()
        assert "Traceback" not in process.output(), process.output()
        assert not any("listening on" in line for line in process.out), process.output()
    finally:
        process.kill()


def test_ctrl_c_while_the_ai_workers_start_stops_them_by_their_parent() -> None:
    """A terminal's Ctrl-C reaches the whole process group: the AI worker
    processes ignore it, even while they start, and the parent stops them."""
    process = Starting(*UP, env=QUIET)
    try:
        deadline = time.monotonic() + START_SECONDS
        while len(workers := process.children()) < 2:
            assert time.monotonic() < deadline, f"no AI workers:\n{process.output()}"
            assert process.process.poll() is None, process.output()
            time.sleep(0.01)
        os.killpg(process.process.pid, signal.SIGINT)
        assert process.ended_within(STOP_SECONDS) == 0, process.output()
        assert "Traceback" not in process.output(), process.output()
        for pid in workers:  # gone, or a zombie that its new parent reaps
            assert ps("-o", "stat=", "-p", str(pid)).strip() in ("", "Z"), pid
    finally:
        process.kill()


def ps(*args: str) -> str:
    """What ``ps ARGS`` prints (nothing when no process matches)."""
    return subprocess.run(["ps", *args], capture_output=True, text=True, timeout=10).stdout


def test_sigterm_after_the_start_stops_it_with_a_watcher_connected() -> None:
    """A server always has watchers (WatchMatch never ends by itself): they
    get the grace period, and the stop still takes under 5 s."""
    process = Meeple(*UP, env=QUIET)
    try:
        with MeepleClient(process.address) as client:
            client.sign_in_guest("tester")
            match = client.create_match("othello", ["human", "human"]).match
            events = client.matches.WatchMatch(ms.WatchMatchRequest(match_id=match.match_id))
            assert next(events).HasField("snapshot")
            watching = threading.Thread(target=lambda: list(events_until_cut(events)), daemon=True)
            watching.start()
            stop(process, signal.SIGTERM)
        assert "shutting down" in process.output()
        assert "Traceback" not in process.output()
    finally:
        process.kill()


def events_until_cut(events: Iterator[object]) -> Iterator[object]:
    with contextlib.suppress(grpc.RpcError):
        yield from events


# --- several processes on one machine; health ---------------------------------------


def health(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """``meeple health ARGS``: its exit code and its one line of output."""
    done = subprocess.run(
        [str(MEEPLE), "health", *args],
        capture_output=True,
        text=True,
        env=environment(env),
        timeout=START_SECONDS,
    )
    lines = (done.stdout + done.stderr).splitlines()
    assert len(lines) == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    return done.returncode, lines[0]


def test_two_workers_with_metrics_port_0_run_side_by_side(redis_server: RedisServer) -> None:
    with ExitStack() as stack:
        workers = []
        for _ in range(2):
            worker = Meeple("worker", "--metrics-port", "0", "--redis", redis_server.url, env=QUIET)
            stack.callback(worker.kill)
            workers.append(worker)
        urls = [
            "http://127.0.0.1:{}/metrics".format(
                worker.wait_for(r"metrics: http://[^:]+:(\d+)/metrics", 5).group(1)
            )
            for worker in workers
        ]
        assert urls[0] != urls[1]
        for url in urls:
            with urllib.request.urlopen(url, timeout=5) as answer:
                assert answer.status == 200
            code, line = health("--http", url)
            assert (code, line) == (0, f"{url}: 200 OK")
        for worker in workers:
            stop(worker)


def test_health_of_a_server_and_of_a_closed_port() -> None:
    server = Meeple("serve", "rules", "--port", "0", "--metrics-port", "0", env=QUIET)
    try:
        address = server.address
        assert health(address) == (0, f"{address}: SERVING")
        port = address.rsplit(":", 1)[1]
        assert health(env={"MEEPLE_PORT": port}) == (0, f"{address}: SERVING")
        rules = "meeple.v1.RulesService"
        assert health(address, "--service", rules) == (0, f"{address} {rules}: SERVING")
        assert health(address, "--service", "nope") == (1, f"{address} nope: no such service")
    finally:
        stop(server)
    started = time.monotonic()
    code, line = health(f"127.0.0.1:{free_port()}")
    assert code == 1, line
    assert "UNAVAILABLE" in line, line
    assert time.monotonic() - started < START_SECONDS
    code, line = health("--http", f"http://127.0.0.1:{free_port()}/metrics")
    assert code == 1, line


# --- logs ----------------------------------------------------------------------------


def test_json_logs_are_one_object_a_line() -> None:
    server = Meeple(
        "serve", "rules", "--port", "0", "--metrics-port", "0", "--web-port", "0",
        env={"MEEPLE_LOG_FORMAT": "json"},
    )  # fmt: skip
    try:
        server.wait_for(r"^\{.*Running on", 5)
        logged = [json.loads(line) for line in server.lines if line.startswith("{")]
        assert logged, server.output()
        for entry in logged:
            assert {"time", "level", "logger", "message"} <= entry.keys(), entry
        assert any(entry["logger"] == "meeple.web" for entry in logged), logged
    finally:
        stop(server)


@pytest.fixture
def root_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for handler in root.handlers[:]:
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)


@pytest.mark.usefixtures("root_logging")
def test_log_fields_in_json_and_text() -> None:
    stream = io.StringIO()
    configure_logging("info", "json", stream)
    log = logging.getLogger("meeple.match")
    fields = {"match_id": "m-1", "reason": "timeout", "message": "clash", "plies": 12}
    log.info("match ended", extra={"fields": fields})
    log.debug("not at INFO")
    (line,) = stream.getvalue().splitlines()
    entry = json.loads(line)
    assert entry["message"] == "match ended"
    assert (entry["level"], entry["logger"]) == ("INFO", "meeple.match")
    assert entry["time"].endswith("Z")
    assert (entry["match_id"], entry["reason"], entry["plies"]) == ("m-1", "timeout", 12)
    assert entry["field.message"] == "clash"

    stream = io.StringIO()
    configure_logging("INFO", "text", stream)
    log.info("match ended", extra={"fields": {"match_id": "m-1", "reason": "ran out"}})
    log.info("no fields")
    first, second = stream.getvalue().splitlines()
    assert first.endswith(' INFO meeple.match: match ended match_id=m-1 reason="ran out"')
    assert second.endswith(" INFO meeple.match: no fields")
    with pytest.raises(ValueError, match="log format"):
        configure_logging("INFO", "xml", stream)
