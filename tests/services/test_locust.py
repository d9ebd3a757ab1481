"""The Locust users (services/loadtest/locust) as a user runs them: a real
``meeple up`` in its own process, then a headless Locust master and two
workers on loopback, each in its own process, with the shipped locustfile;
Locust's JSON stats are read at the end. Every match started completes
(the server counted the same matches finished), the turns reported are the
plies the matches reported, and nothing failed. The same for matchmaking,
on a server with identities off, and the options: in the web UI, and a
wrong one refused at once.

This process never imports Locust (importing it patches the standard
library with gevent): only ``services.loadtest.locust``, which does not."""

from __future__ import annotations

import collections
import importlib.util
import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from services.loadtest.locust import LOCUSTFILE
from services.loadtest.locust.gevent_grpc import address
from services.loadtest.locust.options import Options
from services.loadtest.players import GAMES, SEATS
from services.loadtest.scrape import scrape, total
from tests.e2e.processes import MANY_SIGN_INS, Meeple

pytestmark = pytest.mark.slow

LOCUST = Path(sys.executable).with_name("locust")
# One address makes the whole load, and each player plays far more than a
# person would: the target's per-client and per-player limits are raised.
LOAD_LIMITS = {
    **MANY_SIGN_INS,
    "MEEPLE_RATE_PER_SECOND": "off",
    "MEEPLE_MATCHES_PER_MINUTE": "1000000",
    "MEEPLE_WATCH_STREAMS": "1000000",
    "MEEPLE_TICKETS_PER_MINUTE": "1000000",
    "MEEPLE_OPEN_TICKETS": "100000",
}
RUN_TIME = "6s"
# Matches in flight at the end of the run time finish: Locust waits for
# them this long (a match here takes about a second at most).
STOP_TIMEOUT = "60"
WAIT_SECONDS = 90  # the most a Locust run may take here, start to end


@dataclass
class Target:
    server: Meeple
    metrics_url: str

    @property
    def host(self) -> str:
        return f"grpc://{self.server.address}"

    def matches_finished(self) -> float:
        samples = scrape(self.metrics_url)
        assert samples is not None, f"no metrics at {self.metrics_url}"
        return total(samples, "meeple_match_finished_total")


def start_target(tmp: Path, **env: str) -> Target:
    server = Meeple(
        "up", "--port", "0", "--web-port", "0", "--metrics-port", "0", "--data-dir", str(tmp),
        env={**LOAD_LIMITS, **env},
    )  # fmt: skip
    metrics = server.wait_for(r"metrics: (\S+)", 30).group(1)
    return Target(server, metrics)


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    served = start_target(tmp_path_factory.mktemp("meeple-up"))
    try:
        yield served
    finally:
        served.server.stop()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Locust:
    """``locust -f LOCUSTFILE ARGS`` in its own process, its output in files."""

    def __init__(self, name: str, cwd: Path, *args: str) -> None:
        self.name = name
        self.out = (cwd / f"{name}.out").open("w")
        self.err_path = cwd / f"{name}.err"
        self.err = self.err_path.open("w")
        self.process = subprocess.Popen(
            [str(LOCUST), "-f", str(LOCUSTFILE), *args],
            cwd=cwd,
            stdout=self.out,
            stderr=self.err,
            stdin=subprocess.DEVNULL,
            text=True,
        )

    def wait(self, seconds: float) -> int | None:
        try:
            return self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.out.close()
        self.err.close()

    def log(self) -> str:
        self.err.flush()
        return f"--- {self.name} (exit {self.process.poll()}):\n" + "".join(
            self.err_path.read_text().splitlines(keepends=True)[-40:]
        )


Stats = dict[tuple[str, str], dict[str, Any]]


def stats_of(path: Path) -> Stats:
    """Locust's --json-file stats by (request type, name)."""
    return {(row["method"], row["name"]): row for row in json.loads(path.read_text())}


def distributed(target: Target, tmp: Path, users: int, *args: str) -> Stats:
    """A headless master and two workers, ``users`` users for RUN_TIME; the
    stats, once the master exited 0 (no failure, no error)."""
    port = free_port()
    master = Locust(
        "master", tmp, "--master", "--master-bind-host", "127.0.0.1",
        "--master-bind-port", str(port), "--expect-workers", "2",
        "--expect-workers-max-wait", "30", "--headless", "-u", str(users), "-r", str(users),
        "-t", RUN_TIME, "--stop-timeout", STOP_TIMEOUT, "--host", target.host,
        "--json-file", "stats", "--only-summary", *args,
    )  # fmt: skip
    worker = ("--worker", "--master-host", "127.0.0.1", "--master-port", str(port))
    workers = [Locust(f"worker-{n}", tmp, *worker) for n in (1, 2)]
    processes = [master, *workers]
    try:
        code = master.wait(WAIT_SECONDS)
        logs = "\n".join(process.log() for process in processes)
        assert code is not None, f"the master did not end in {WAIT_SECONDS} s:\n{logs}"
        assert code == 0, f"the master exited {code} (failures or errors):\n{logs}"
        for worker in workers:  # the master's quit ends them
            assert worker.wait(30) is not None, f"{worker.name} did not end:\n{logs}"
        return stats_of(tmp / "stats.json")
    finally:
        for process in processes:
            process.stop()


def count(stats: Stats, kind: str, name: str | None = None) -> int:
    return sum(
        row["num_requests"]
        for (method, named), row in stats.items()
        if method == kind and (name is None or named == name)
    )


def check_common(stats: Stats, finished: float) -> dict[str, int]:
    """No failure; every turn reported is a ply of a match reported; the
    server finished the matches reported. The matches, by game."""
    failures = {key: row["num_failures"] for key, row in stats.items() if row["num_failures"]}
    assert failures == {}
    matches = {name: row for (kind, name), row in stats.items() if kind == "match"}
    assert set(matches) <= set(GAMES)
    by_game = {name: row["num_requests"] for name, row in matches.items()}
    assert sum(by_game.values()) > 0
    plies = sum(row["total_content_length"] for row in matches.values())
    assert count(stats, "turn") == plies
    turns = collections.Counter(name.split()[0] for (kind, name) in stats if kind == "turn")
    assert set(turns) <= set(GAMES)
    assert sum(by_game.values()) == finished  # the server saw the same matches end
    assert count(stats, "grpc", "RefreshSession") == 0
    return by_game


def test_master_and_two_workers_play_every_match_to_its_end(target: Target, tmp_path: Path) -> None:
    """Two users of each: server bots, client bots, spectators; every game."""
    before = target.matches_finished()
    stats = distributed(target, tmp_path, 6, "--meeple-games", "all",
                        "ServerBotsUser", "ClientBotsUser", "SpectatorUser")  # fmt: skip
    matches = check_common(stats, target.matches_finished() - before)
    assert sum(matches.values()) == count(stats, "grpc", "CreateMatch")
    # Each of our moves is one action event, one turn of ours.
    submitted = sum(count(stats, "turn", f"{game} ours") for game in GAMES)
    assert submitted == count(stats, "grpc", "SubmitAction") > 0
    assert sum(count(stats, "turn", f"{game} bot") for game in GAMES) > 0
    assert count(stats, "grpc", "JoinMatch") > 0
    # Guests signed in as each user started: one a server-bots user, one a
    # seat of the largest game (Rolit's four) a client-bots user.
    assert count(stats, "grpc", "SignInGuest") == 2 * 1 + 2 * SEATS["rolit"]
    assert count(stats, "grpc", "ListMatches") > 0
    assert count(stats, "spectate") > 0  # live matches were watched


def test_matchmaking_users_play_every_seat_they_are_given(target: Target, tmp_path: Path) -> None:
    before = target.matches_finished()
    stats = distributed(target, tmp_path, 4, "--meeple-games", "othello,rolit",
                        "MatchmakingUser")  # fmt: skip
    matches = check_common(stats, target.matches_finished() - before)
    tickets = count(stats, "grpc", "CreateTicket")
    assert count(stats, "grpc", "WatchTicket") == tickets  # each assigned
    # One player per ticket, every seat of every match a ticket of ours.
    assert sum(n * SEATS[game] for game, n in matches.items()) == tickets
    assert count(stats, "grpc", "CreateMatch") == 0
    assert 0 < count(stats, "grpc", "SubmitAction") <= count(stats, "turn")
    assert count(stats, "grpc", "SignInGuest") == 4 * SEATS["rolit"]


def test_without_identities_the_users_play_without_tokens(tmp_path: Path) -> None:
    """One process (no --master): on a server with identities off, no
    guest signs in, and matches are played all the same."""
    served = start_target(tmp_path / "server", MEEPLE_AUTH="off")
    try:
        before = served.matches_finished()
        run = Locust(
            "local", tmp_path, "--headless", "-u", "2", "-r", "2", "-t", "3s",
            "--stop-timeout", STOP_TIMEOUT, "--host", served.server.address,
            "--json-file", "stats", "--only-summary", "--meeple-games", "othello",
            "ClientBotsUser", "MatchmakingUser",
        )  # fmt: skip
        try:
            code = run.wait(WAIT_SECONDS)
            assert code == 0, run.log()
        finally:
            run.stop()
        stats = stats_of(tmp_path / "stats.json")
        check_common(stats, served.matches_finished() - before)
        assert count(stats, "grpc", "SignInGuest") == 0
        assert count(stats, "grpc", "CreateTicket") > 0
    finally:
        served.server.stop()


def test_the_options_are_in_the_web_ui(tmp_path: Path) -> None:
    port = free_port()
    web = Locust("web", tmp_path, "--web-host", "127.0.0.1", "--web-port", str(port),
                 "--host", "127.0.0.1:50051")  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as answer:
                    page = answer.read().decode()
                break
            except OSError:
                assert web.process.poll() is None, web.log()
                assert time.monotonic() < deadline, f"no web UI on {port}:\n{web.log()}"
                time.sleep(0.2)
        for option in ("meeple_games", "meeple_bot_spec", "meeple_match_timeout"):
            assert option in page, option
    finally:
        web.stop()


def test_a_wrong_option_stops_locust_at_once_saying_which(tmp_path: Path) -> None:
    run = Locust("wrong", tmp_path, "--headless", "-u", "1", "-t", "5s",
                 "--host", "127.0.0.1:1", "--meeple-games", "chess")  # fmt: skip
    try:
        assert run.wait(30) not in (None, 0), run.log()
        assert "--meeple-games is some of rolit,othello,volleyball,volta" in run.log()
    finally:
        run.stop()


def test_the_options_and_the_host_as_read() -> None:
    assert Options.of(None).games == tuple(GAMES)
    parsed = type("Parsed", (), {"meeple_games": "Othello, rolit|othello", "meeple_bot_spec": ""})
    options = Options.of(parsed())
    assert options.games == ("othello", "rolit")
    assert options.bot_spec == "random"
    with pytest.raises(ValueError, match="--meeple-games"):
        Options.of(type("Parsed", (), {"meeple_games": " , "})())
    bad = type("Parsed", (), {"meeple_match_timeout": "0"})
    with pytest.raises(ValueError, match="--meeple-match-timeout"):
        Options.of(bad())
    assert address("grpc://10.0.0.5:50051/") == address("10.0.0.5:50051") == "10.0.0.5:50051"
    for wrong in (None, "", "http://x:1/path", "host-without-port"):
        with pytest.raises(ValueError, match="--host"):
            address(wrong)


def test_the_locustfile_is_found_and_its_folder_shadows_no_module() -> None:
    """``meeple loadtest locustfile`` and ``python -m services.loadtest.locust``
    print the locustfile; Locust puts its folder first on sys.path while
    loading it, so no module there may share a name with one importable from
    elsewhere."""
    meeple = Path(sys.executable).with_name("meeple")
    for command in (
        [str(meeple), "loadtest", "locustfile"],
        [sys.executable, "-m", "services.loadtest.locust"],
    ):
        printed = subprocess.run(
            command, capture_output=True, text=True, timeout=30, check=True
        ).stdout.strip()
        assert Path(printed) == LOCUSTFILE, command
    assert LOCUSTFILE.is_file()
    for module in LOCUSTFILE.parent.glob("*.py"):
        if not module.name.startswith("_"):
            assert importlib.util.find_spec(module.stem) is None, module.name
