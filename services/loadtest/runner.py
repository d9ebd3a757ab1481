"""A load test's run: matches started closed-loop (``concurrency`` in
flight) or open-loop (``rate`` a second, still at most ``concurrency`` in
flight), for a number of matches or a duration, with live progress, and the
report at the end. It talks to the target through the public API only; by
default it starts ``meeple up`` in-process as the target. Its players are
made before the load starts (``identities``): the server's figures and the
run's duration cover the load alone."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass

import grpc
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc
from rich.console import Console
from rich.live import Live
from rich.table import Table

from services.loadtest import scrape
from services.loadtest.identities import JWT_ALGORITHMS, JwtKey, players_for
from services.loadtest.players import GAMES, Client, play, players_per_match
from services.loadtest.report import Recorder, Report, summary
from services.settings import Settings

MODES = ("server", "client")
DRAIN_SECONDS = 300.0  # after the last start, how long matches in flight may take


@dataclass(frozen=True)
class LoadConfig:
    target: str | None  # host:port; None starts meeple up in-process
    metrics: str | None  # the target's /metrics URL, if known
    games: tuple[str, ...]
    matches: int | None
    concurrency: int
    rate: float | None
    duration: float | None
    bots: str  # "server" or "client"
    bot_spec: str
    matchmaking: bool
    spectators: int
    seed: int
    # Simulated players (identities); None: enough for ``concurrency``
    # matches at once.
    players: int | None = None
    # The studio provider's test key to mint the players' tokens with;
    # None: guests sign in.
    jwt_key: str | None = None
    jwt_kid: str | None = None
    jwt_issuer: str | None = None
    jwt_audience: str | None = None
    jwt_algorithm: str = "RS256"

    def __post_init__(self) -> None:
        unknown = set(self.games) - set(GAMES)
        if unknown or not self.games:
            raise ValueError(f"games are some of {', '.join(GAMES)}, got {', '.join(self.games)}")
        if self.bots not in MODES:
            raise ValueError(f"bots is server or client, got {self.bots!r}")
        if self.matchmaking and self.bots != "client":
            raise ValueError("--matchmaking seats the load test's own players: use --bots client")
        if self.concurrency < 1 or self.spectators < 0:
            raise ValueError("concurrency is at least 1, spectators at least 0")
        if self.rate is not None and not self.rate > 0:
            raise ValueError(f"rate must be > 0 matches a second, got {self.rate}")
        if self.matches is None and self.duration is None:
            raise ValueError("give --matches, --duration or both")
        least = self.players_per_match
        if self.players is not None and self.players < least:
            raise ValueError(f"--players: a match of these games takes {least}, got {self.players}")
        self._check_jwt()

    def _check_jwt(self) -> None:
        named = {
            "--jwt-kid": self.jwt_kid,
            "--jwt-issuer": self.jwt_issuer,
            "--jwt-audience": self.jwt_audience,
        }
        if self.jwt_key is None:
            given = [option for option, value in named.items() if value]
            if given:
                raise ValueError(f"{', '.join(given)} go with --jwt-key (the provider's test key)")
            return
        missing = [option for option, value in named.items() if not value]
        if missing:
            raise ValueError(f"--jwt-key needs {', '.join(missing)} too: what its tokens name")
        if self.jwt_algorithm not in JWT_ALGORITHMS:
            raise ValueError(
                f"--jwt-algorithm is one of {', '.join(JWT_ALGORITHMS)}, got {self.jwt_algorithm!r}"
            )
        if self.target is None:
            raise ValueError(
                "--jwt-key needs --target: a server whose MEEPLE_AUTH_JWKS_URL serves the key's "
                "public half (the in-process meeple up knows no provider)"
            )

    @property
    def jwt(self) -> JwtKey | None:
        if self.jwt_key is None:
            return None
        return JwtKey(
            self.jwt_key,
            self.jwt_kid or "",
            self.jwt_issuer or "",
            self.jwt_audience or "",
            self.jwt_algorithm,
        )

    @property
    def players_per_match(self) -> int:
        return max(players_per_match(game, self.mode) for game in self.games)

    @property
    def player_count(self) -> int:
        """The players to make: enough that no match waits for one."""
        if self.players is not None:
            return self.players
        return self.concurrency * self.players_per_match

    @property
    def mode(self) -> str:
        return "matchmaking" if self.matchmaking else self.bots


@contextlib.asynccontextmanager
async def target(config: LoadConfig) -> AsyncIterator[tuple[str, str | None]]:
    """The address (and metrics URL) to load: the given one, or a ``meeple
    up`` started here with limits that let one client load it."""
    if config.target is not None:
        yield config.target, config.metrics
        return
    from services.app import App  # the in-process target only

    # One client address makes all the load, and each player plays far
    # more than a person would: no per-address or per-player limit applies.
    settings = Settings(
        rate_per_second=None,
        matches_per_minute=10**9,
        watch_streams=10**6,
        tickets_per_minute=10**9,
        open_tickets=10**6,
        web_connections=10**6,
        guest_signins_per_minute=10**9,
    )
    app = App("127.0.0.1:0", workers=2, metrics_port=0, settings=settings)
    await app.start()
    try:
        yield f"127.0.0.1:{app.port}", f"http://127.0.0.1:{app.metrics_port}/metrics"
    finally:
        await app.stop(grace=1.0)


async def run(config: LoadConfig, console: Console | None = None) -> Report:
    """The run's report; SetupError (before any load) when the players'
    identities cannot be made."""
    async with target(config) as (address, metrics_url):
        recorder = Recorder()
        channel = grpc.aio.insecure_channel(address)
        try:
            players = await players_for(channel, config.player_count, recorder, config.jwt)
        except BaseException:
            await channel.close()
            raise
        if console is not None:
            console.print(f"players: {players.detail}", highlight=False)
        before = await asyncio.to_thread(scrape.scrape, metrics_url) if metrics_url else None
        recorder.began = time.monotonic()  # the load begins
        client = Client(
            ms_grpc.MatchServiceStub(channel),
            mm_grpc.MatchmakingServiceStub(channel),
            recorder,
            config.bot_spec,
            config.spectators,
            config.seed,
            players,
        )
        with Live(progress(recorder), console=console, refresh_per_second=4) as live:
            ticker = asyncio.create_task(refresh(live, recorder))
            try:
                await drive(config, client)
            finally:
                ticker.cancel()
                live.update(progress(recorder))
        await channel.close()
        duration = recorder.elapsed
        after = await asyncio.to_thread(scrape.scrape, metrics_url) if metrics_url else None
        server = scrape.figures(before, after) if before and after else None
    return Report(asdict(config), recorder, duration, server, players.to_json())


async def drive(config: LoadConfig, client: Client) -> None:
    slots = asyncio.Semaphore(config.concurrency)
    games = itertools.cycle(config.games)
    stop_at = None if config.duration is None else time.monotonic() + config.duration
    running: set[asyncio.Task[None]] = set()

    async def one(game: str) -> None:
        try:
            await play(client, game, config.mode)
        finally:
            slots.release()

    for index in itertools.count():
        if config.matches is not None and index >= config.matches:
            break
        if stop_at is not None and time.monotonic() >= stop_at:
            break
        await slots.acquire()
        task = asyncio.create_task(one(next(games)))
        running.add(task)
        task.add_done_callback(running.discard)
        if config.rate is not None:
            await asyncio.sleep(1 / config.rate)
    if running:
        await asyncio.wait(running, timeout=DRAIN_SECONDS)


async def refresh(live: Live, recorder: Recorder) -> None:
    while True:
        await asyncio.sleep(0.25)
        live.update(progress(recorder))


def progress(recorder: Recorder) -> Table:
    elapsed = recorder.elapsed
    table = Table(title=f"meeple loadtest, {elapsed:.1f} s", show_header=False)
    table.add_row(
        "matches",
        f"{recorder.matches_completed} done / {recorder.matches_started} started, "
        f"{recorder.matches_failed} failed",
    )
    table.add_row("actions/s", f"{recorder.actions / elapsed:.1f}")
    submit = summary(recorder.rpcs["SubmitAction"]) if "SubmitAction" in recorder.rpcs else None
    if submit:
        table.add_row(
            "SubmitAction",
            f"p50 {submit['p50_ms']:.1f} ms, p99 {submit['p99_ms']:.1f} ms",
        )
    errors = ", ".join(f"{code} {n}" for code, n in sorted(recorder.errors.items())) or "none"
    table.add_row("errors", errors)
    return table


def report_tables(report: Report) -> list[Table]:
    """The report as tables to print."""
    data = report.to_json()
    totals = Table(title="meeple loadtest report")
    totals.add_column("")
    totals.add_column("value", justify="right")
    matches, actions = data["matches"], data["actions"]
    totals.add_row("duration", f"{data['duration_s']:.1f} s")
    totals.add_row(
        "matches", f"{matches['completed']} of {matches['started']} ({matches['failed']} failed)"
    )
    totals.add_row("matches/s", f"{matches['per_second']:.2f}")
    totals.add_row("actions/s", f"{actions['per_second']:.1f}")
    totals.add_row("errors", ", ".join(f"{k} {v}" for k, v in data["errors"].items()) or "none")
    if data["identities"]:
        who = data["identities"]
        totals.add_row("players", f"{who['players']} ({who['source']})")
    latencies = Table(title="latency (client side, ms)")
    for column in ("", "count", "p50", "p95", "p99", "max"):
        latencies.add_column(column, justify="left" if not column else "right")
    rows = dict(data["rpcs"])
    if data["assignment"]:
        rows["time to assignment"] = data["assignment"]
    if data["spectator_lag"]:
        rows["spectator lag"] = data["spectator_lag"]
    for name, stats in rows.items():
        latencies.add_row(
            name,
            str(stats["count"]),
            *(f"{stats[key]:.2f}" for key in ("p50_ms", "p95_ms", "p99_ms", "max_ms")),
        )
    tables = [totals, latencies]
    if data["server"]:
        server = Table(title="server (scraped from /metrics)")
        server.add_column("")
        server.add_column("value", justify="right")
        for key, value in data["server"].items():
            server.add_row(key, str(value))
        tables.append(server)
    return tables
