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
from collections.abc import AsyncIterator, Callable
from dataclasses import asdict, dataclass
from typing import Any

import grpc
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc
from rich.console import Console
from rich.live import Live

from services.loadtest import scrape, stages
from services.loadtest.identities import JWT_ALGORITHMS, JwtKey, players_for
from services.loadtest.players import GAMES, play, players_per_match
from services.loadtest.recorder import Recorder
from services.loadtest.report import Report
from services.loadtest.stages import Stage
from services.loadtest.tables import progress, progress_line
from services.loadtest.watching import Client
from services.settings import Settings

MODES = ("server", "client")
DRAIN_SECONDS = 300.0  # after the last start, how long matches in flight may take
LINE_SECONDS = 5.0  # progress when the output is not a terminal: a line this often


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
    stages: tuple[Stage, ...] = ()  # ramp stages (start rates), instead of rate and duration
    interval_s: float = 1.0  # the report's time series: one point per interval

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
        if self.stages and (self.rate is not None or self.duration is not None):
            raise ValueError("--stages sets the rate and the duration: drop --rate and --duration")
        if self.matches is None and self.duration is None and not self.stages:
            raise ValueError("give --matches, --duration, --stages or a combination")
        if not 0.1 <= self.interval_s <= 3600:
            raise ValueError(f"--interval is 0.1 to 3600 seconds, got {self.interval_s}")
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


@dataclass(frozen=True)
class Target:
    address: str
    metrics: str | None  # its /metrics URL(s)
    in_process: bool

    def to_json(self) -> dict[str, Any]:
        where = (
            "meeple up in the load generator's own process (shares its event loop and CPU)"
            if self.in_process
            else "a server of its own (--target)"
        )
        return {"address": self.address, "in_process": self.in_process, "description": where}


@contextlib.asynccontextmanager
async def target(config: LoadConfig) -> AsyncIterator[Target]:
    """The server to load: the given one, or a ``meeple up`` started here
    with limits that let one client load it."""
    if config.target is not None:
        yield Target(config.target, config.metrics, in_process=False)
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
        metrics = f"http://127.0.0.1:{app.metrics_port}/metrics"
        yield Target(f"127.0.0.1:{app.port}", metrics, in_process=True)
    finally:
        await app.stop(grace=1.0)


async def run(config: LoadConfig, console: Console | None = None) -> Report:
    """The run's report; SetupError (before any load) when the players'
    identities cannot be made."""
    async with target(config) as server:
        recorder = Recorder(interval_s=config.interval_s)
        channel = grpc.aio.insecure_channel(server.address)
        try:
            players = await players_for(channel, config.player_count, recorder, config.jwt)
        except BaseException:
            await channel.close()
            raise
        if console is not None:
            console.print(f"target: {server.to_json()['description']}", highlight=False)
            console.print(f"players: {players.detail}", highlight=False)
        before = await scraped(server.metrics)
        recorder.start()  # the load begins
        client = Client(
            ms_grpc.MatchServiceStub(channel),
            mm_grpc.MatchmakingServiceStub(channel),
            recorder,
            config.bot_spec,
            config.spectators,
            config.seed,
            players,
        )
        sampler = asyncio.create_task(sample(recorder))
        try:
            await shown(drive(config, client), recorder, console)
        finally:
            sampler.cancel()
            recorder.stop()
        await channel.close()
        after = await settled(server.metrics)
        figures = scrape.figures(before, after) if before and after else None
        version = scrape.version(after) if after else None
    return Report(asdict(config), recorder, server.to_json(), figures, players.to_json(), version)


async def scraped(metrics: str | None) -> scrape.Samples | None:
    return await asyncio.to_thread(scrape.scrape, metrics) if metrics else None


async def settled(metrics: str | None, patience: float = 3.0) -> scrape.Samples | None:
    """The last scrape, once the server's queue gauges caught up with the
    end of the load (they are sampled every second or so)."""
    deadline = time.monotonic() + patience
    while True:
        samples = await scraped(metrics)
        if samples is None or scrape.queue_depth(samples) == 0 or time.monotonic() > deadline:
            return samples
        await asyncio.sleep(0.25)


async def sample(recorder: Recorder) -> None:
    """Closes each interval just after its end (in flight, CPU)."""
    step = recorder.interval_s
    while True:
        now = recorder.now()
        await asyncio.sleep((now // step + 1) * step - now + 0.001)
        recorder.sample()


async def shown(load: Any, recorder: Recorder, console: Console | None) -> None:
    """Runs ``load`` with its progress shown: a live table on a terminal,
    else a line every few seconds (a CI log)."""
    if console is None:
        await load
        return
    if console.is_terminal:
        with Live(progress(recorder), console=console, refresh_per_second=4) as live:
            await every(0.25, load, lambda: live.update(progress(recorder)))
        console.print()
        return

    def say() -> None:
        console.print(progress_line(recorder), highlight=False)

    await every(LINE_SECONDS, load, say)
    say()
    console.print()


async def every(seconds: float, work: Any, show: Callable[[], None]) -> None:
    task = asyncio.ensure_future(work)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=seconds)
            if done:
                task.result()
                return
            show()
    finally:
        task.cancel()


async def drive(config: LoadConfig, client: Client) -> None:
    slots = asyncio.Semaphore(config.concurrency)
    games = itertools.cycle(config.games)
    began = time.monotonic()
    schedule = stages.starts(config.stages) if config.stages else None
    if schedule is not None:
        stop_at: float | None = began + stages.total_seconds(config.stages)
    else:
        stop_at = None if config.duration is None else began + config.duration
    running: set[asyncio.Task[None]] = set()

    async def one(game: str) -> None:
        try:
            await play(client, game, config.mode)
        finally:
            slots.release()

    for index in itertools.count():
        if config.matches is not None and index >= config.matches:
            break
        if schedule is not None:
            if index >= len(schedule):
                break
            await asyncio.sleep(max(0.0, began + schedule[index] - time.monotonic()))
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
