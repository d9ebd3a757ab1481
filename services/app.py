"""Services in one process on one port (``meeple up`` runs them all): rules,
AI and matches, coordination in memory, bots thinking in a pool of worker
processes so a long think never blocks the server, and the background tasks
a match service needs (bot turns, the clock sweeper, the archiver, the
queue gauges)."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Coroutine
from typing import Any
from urllib.parse import urlsplit, urlunsplit
from wsgiref.simple_server import WSGIServer

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import (
    AuthenticationError,
    AuthorizationError,
    InvalidResponse,
    RedisClusterException,
    RedisError,
    ResponseError,
)
from redis.exceptions import TimeoutError as RedisTimeoutError

from services import ai_service, archive_service, match_service, matchmaking, rules_service
from services.ai_service import AIPool, Priority
from services.archive.config import archive_for
from services.archive.sql import ArchiveUnavailable, SchemaOutOfDate
from services.archive.writer import OUTBOX_SECONDS, run_archive_gauges, run_archiver
from services.auth import Authenticator
from services.auth.guests import key_file_secret
from services.auth.servicer import service as auth_service
from services.background import keep_running
from services.coordination import MemoryCoordination, Store
from services.coordination.redis import RedisCoordination
from services.coordination.redis_client import CLUSTER_SCHEMES
from services.errors import Unavailable
from services.limits import RateLimiter, per_minute
from services.match_service import Matches
from services.matchmaking import Matchmaker
from services.metrics import AI_QUEUE_DEPTH, serve_metrics
from services.server import GRACE_SECONDS, Server, Service, build_server, split_address
from services.settings import Settings
from services.web.server import WebServer

SERVICE_NAMES = ("rules", "ai", "match", "matchmaking", "auth", "archive")
AUTH_KEY = "auth-key"  # the guest signing key's name in the store
GAUGE_SECONDS = 1.0
# A runner waits on the store between decisions: a few per AI worker keep it busy.
RUNNERS_PER_AI_WORKER = 4
TASKS_STOP_SECONDS = 5.0  # each background task checks its stop signal far more often
# At start, Redis answers a ping within this time (no retries: a Redis that
# is down or refuses us is reported at once, not after the retries of a
# running server).
REDIS_CHECK_SECONDS = 3.0

log = logging.getLogger(__name__)


class StartupError(Exception):
    """A start that failed for a reason its operator fixes: a port taken, a
    Redis that cannot be reached or refuses us. ``what`` failed
    (``cannot listen on 127.0.0.1:9464``), ``reason`` says why; ``setting``
    names the App's parameter at fault (``port`` for the gRPC port,
    ``metrics_port``, ``web_port``, ``redis_url``) and ``label`` describes
    it (``metrics port``), so that a command line can name its option."""

    def __init__(self, what: str, reason: str, setting: str = "", label: str = "") -> None:
        super().__init__(what, reason, setting, label)
        self.what = what
        self.reason = reason
        self.setting = setting
        self.label = label

    def line(self, option: str = "") -> str:
        """One line: what failed, the label and ``option`` (what sets it) in
        parentheses, why."""
        about = ", ".join(part for part in (self.label, option) if part)
        return f"{self.what}{f' ({about})' if about else ''}: {self.reason}"

    def __str__(self) -> str:
        return self.line()


PORT_LABELS = {"port": "gRPC port", "web_port": "web port", "metrics_port": "metrics port"}


def cannot_listen(address: str, error: OSError, setting: str) -> StartupError:
    # The errno's own text: socket.create_server appends the address to strerror.
    reason = os.strerror(error.errno).lower() if error.errno else str(error)
    return StartupError(f"cannot listen on {address}", reason, setting, PORT_LABELS[setting])


def redis_place(url: str) -> tuple[str, str]:
    """What a Redis URL names (``Redis`` or ``the Redis Cluster``) and
    where, without its password: ``host:port/db``."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return "Redis", parts.path
    where = f"{parts.hostname or 'localhost'}:{parts.port or 6379}"
    if parts.scheme in CLUSTER_SCHEMES:
        return "the Redis Cluster", where
    return "Redis", where + (parts.path if parts.path not in ("", "/") else "")


def redis_refusal(url: str, error: BaseException) -> StartupError:
    """The StartupError for what a Redis check (or the store's start) raised."""
    kind, where = redis_place(url)
    if isinstance(error, AuthenticationError | AuthorizationError | ResponseError):
        return StartupError(f"{kind} at {where} refused us", str(error), "redis_url")
    if isinstance(error, InvalidResponse):
        return StartupError(f"{where} does not answer as Redis does", str(error), "redis_url")
    if isinstance(error, TimeoutError | RedisTimeoutError):
        reason = f"no answer within {REDIS_CHECK_SECONDS:g} s"
        return StartupError(f"cannot reach {kind} at {where}", reason, "redis_url")
    return StartupError(f"cannot reach {kind} at {where}", str(error), "redis_url")


async def check_redis(url: str, seconds: float = REDIS_CHECK_SECONDS) -> None:
    """Pings the Redis of ``url`` once, on a connection of its own without
    retries, within ``seconds``; StartupError says why it did not answer
    (unreachable, a password it refused, a DB index out of range, not Redis)."""
    options: dict[str, Any] = {
        "retry": Retry(NoBackoff(), 0),
        "socket_timeout": seconds,
        "socket_connect_timeout": seconds,
    }
    parts = urlsplit(url)
    client: Any
    if parts.scheme in CLUSTER_SCHEMES:
        plain = urlunsplit(parts._replace(scheme=CLUSTER_SCHEMES[parts.scheme]))
        client = RedisCluster.from_url(plain, **options)
    else:
        client = aioredis.Redis.from_url(url, **options)
    try:
        await asyncio.wait_for(client.ping(), seconds)
    except (RedisError, RedisClusterException, OSError, TimeoutError) as error:
        raise redis_refusal(url, error) from error
    finally:
        await client.aclose()


class App:
    """Some or all of the services on one port (all by default), and the bot
    runners; ``await app.start()``, later ``await app.stop()``.

    - The match service brings the clock sweeper; matchmaking brings its
      passes and the rater. Bot runners play bot seats
      (``bots``; by default wherever the match service runs); with Redis they
      may run in other processes, as ``meeple worker`` does: no services, only
      bot runners.
    - Bots and AIService share the AI pool.
    - Coordination is in memory, or on Redis with ``redis_url``.
    - With ``web_port``, the same services speak the Connect protocol and
      gRPC-Web on that HTTP port too, beside the web page; pages of
      ``web_origins`` may call them from a browser.
    """

    def __init__(
        self,
        address: str,
        workers: int = 1,
        coordination: Store | None = None,
        services: tuple[str, ...] = SERVICE_NAMES,
        metrics_port: int | None = None,
        settings: Settings | None = None,
        bots: bool | None = None,
        redis_url: str | None = None,
        web_port: int | None = None,
        web_origins: tuple[str, ...] = (),
    ) -> None:
        unknown = set(services) - set(SERVICE_NAMES)
        if unknown:
            raise ValueError(f"services are some of {', '.join(SERVICE_NAMES)}, got {services}")
        self.address = address
        self.services = services
        self.bots = "match" in services if bots is None else bots
        if not services and not self.bots:
            raise ValueError("an app runs at least one service or the bot runners")
        self.metrics_port = metrics_port
        self.web_port = web_port  # the web page and Connect; None: no web port
        self.web: WebServer | None = None
        self.web_origins = web_origins  # other pages' origins that may call (CORS)
        self.settings = settings or Settings()
        timeout, lease = self.settings.bot_visibility_timeout, self.settings.bot_lease
        if coordination is None and redis_url is not None:
            coordination = RedisCoordination(redis_url, visibility_timeout=timeout, lease=lease)
        self.coordination = coordination or MemoryCoordination(
            visibility_timeout=timeout, lease=lease
        )
        # The archive, where a service reads it or the archiver writes it.
        self.archive = archive_for(self.settings) if services else None
        self.matches = Matches(self.coordination, self.settings, archive=self.archive)
        # One budget per client address for CreateMatch and matchmade matches.
        self.match_budget = per_minute(self.settings.matches_per_minute)
        self.matchmaker = Matchmaker(
            self.coordination, self.matches, self.settings, match_budget=self.match_budget
        )
        self.auth = Authenticator(self.settings, self._auth_key)
        self.pool = AIPool(
            workers,
            queue_limit=self.settings.ai_queue_limit,
            max_think_seconds=self.settings.ai_max_think_seconds,
        )
        self.server: Server | None = None
        self.port = 0
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._metrics: WSGIServer | None = None

    async def _auth_key(self, candidate: bytes) -> bytes:
        """The guest signing key: the store's (shared by every replica of a
        Redis), or with the store in memory the data directory's file (so
        that sessions outlive the process); else this process's own."""
        data_dir = self.settings.data_dir
        if data_dir and not isinstance(self.coordination, RedisCoordination):
            try:
                return await asyncio.to_thread(key_file_secret, data_dir)
            except OSError as error:  # a read-only home, say: sessions last this process
                log.warning(
                    "cannot keep the guest signing key in %s (%s): guest sessions end "
                    "with this process",
                    data_dir,
                    error.strerror or error,
                )
        return await self.coordination.shared_secret(AUTH_KEY, candidate)

    @property
    def uses_pool(self) -> bool:
        return "ai" in self.services or self.bots

    async def start(self) -> int:
        """Binds every port first (a port in use fails before anything else
        starts), checks Redis, starts the AI pool, then serves. A known cause
        of failure is a StartupError; whatever fails (or cancels the start),
        what had started is stopped again before the error goes on."""
        try:
            return await self._start()
        except BaseException:
            await self.stop(grace=0)
            raise

    async def _start(self) -> int:
        settings = self.settings
        makers: dict[str, Callable[[], Service]] = {
            "rules": rules_service.service,
            "ai": lambda: ai_service.service(self.pool, settings),
            "match": lambda: match_service.service(self.matches, self.auth, self.match_budget),
            "matchmaking": lambda: matchmaking.service(self.matchmaker, self.auth),
            "auth": lambda: auth_service(self.auth),
            "archive": lambda: archive_service.service(self.matches, self.auth, settings),
        }
        services = [makers[name]() for name in self.services]
        if settings.rate_per_second is not None:
            # One bucket per client across all services: generous for play,
            # a brake on floods.
            limiter = RateLimiter(settings.rate_per_second, settings.rate_burst)
            for service in services:
                service.servicer.rate_limiter = limiter
        self._bind(services)
        await self._start_coordination()
        await self._start_archive()
        if self.services:
            await self.auth.start()
        if self.uses_pool:
            await self.pool.start()
        if self.server is not None:
            await self.server.start()
        if self.web is not None:
            await self.web.start()
        if "match" in self.services:
            self._spawn("sweeper", lambda: match_service.run_sweeper(self.matches, self._stop))
        if self.archive is not None and "match" in self.services:
            archive = self.archive
            self._spawn("archiver", lambda: run_archiver(self.coordination, archive, self._stop))
            self._spawn(
                "archive gauges", lambda: run_archive_gauges(self.coordination, archive, self._stop)
            )
        if "matchmaking" in self.services:
            self._spawn(
                "matchmaker", lambda: matchmaking.run_matchmaker(self.matchmaker, self._stop)
            )
            self._spawn("rater", lambda: matchmaking.run_rater(self.matchmaker, self._stop))
        if self.bots:
            for _ in range(self.pool.workers * RUNNERS_PER_AI_WORKER):
                self._spawn(
                    "bot runner",
                    lambda: match_service.run_bot_turns(self.matches, self.pool, self._stop),
                )
        if self.uses_pool:
            self._spawn("queue gauges", self._sample_queues)
        return self.port

    def _bind(self, services: list[Service]) -> None:
        """Takes the gRPC, web and metrics ports (the metrics one serves at
        once); StartupError names one that is taken."""
        host, port = split_address(self.address)
        numbers = {"port": port if services else 0, "web_port": self.web_port or 0}
        numbers["metrics_port"] = self.metrics_port or 0
        seen: dict[int, str] = {}
        for name, number in numbers.items():
            if number and number in seen:
                reason = f"it is the {PORT_LABELS[seen[number]]} too"
                where = f"cannot listen on {host}:{number}"
                raise StartupError(where, reason, name, PORT_LABELS[name])
            seen[number] = name
        if services:
            try:
                self.server = build_server(services, self.address)
            except OSError as error:
                raise cannot_listen(self.address, error, "port") from error
            self.port = self.server.port
        if self.web_port is not None:
            web = WebServer(
                services,
                host,
                self.web_port,
                origins=self.web_origins,
                body_timeout=self.settings.web_body_timeout,
                idle_timeout=self.settings.web_idle_timeout,
                connections_per_client=self.settings.web_connections,
            )
            try:
                self.web_port = web.bind()
            except OSError as error:
                where = f"{host}:{self.web_port}"
                raise cannot_listen(where, error, "web_port") from error
            self.web = web
        if self.metrics_port is not None:
            try:
                self._metrics = serve_metrics(host, self.metrics_port)
            except OSError as error:
                where = f"{host}:{self.metrics_port}"
                raise cannot_listen(where, error, "metrics_port") from error
            self.metrics_port = self._metrics.server_port

    async def _start_coordination(self) -> None:
        """Starts the store; on Redis, after a quick check that it answers
        (StartupError if not, or if the store's own start fails)."""
        if not isinstance(self.coordination, RedisCoordination):
            await self.coordination.start()
            return
        url = self.coordination.url
        await check_redis(url)
        try:
            await self.coordination.start()
        except (Unavailable, RedisError, RedisClusterException, OSError) as error:
            raise redis_refusal(url, error) from error

    async def _start_archive(self) -> None:
        """Connects to the archive (migrating an SQLite file); where this
        process archives, enables the outbox before any match can end.
        StartupError if the archive cannot be reached or is behind; but an
        SQLite file in the data directory (no MEEPLE_DATABASE_URL) that
        cannot be made only turns the archive off, with a warning."""
        if self.archive is None:
            return
        try:
            if self.settings.database_url is None and self.settings.data_dir:
                await asyncio.to_thread(os.makedirs, self.settings.data_dir, exist_ok=True)
            await self.archive.start()
        except (OSError, ArchiveUnavailable) as error:
            if self.settings.database_url is not None:
                where = f"cannot reach the archive at {self.archive.safe_url}"
                raise StartupError(where, str(error), "database_url") from None
            log.warning(
                "no archive: cannot keep it in %s (%s); finished matches are kept for "
                "MEEPLE_FINISHED_RETENTION only",
                self.settings.data_dir,
                error,
            )
            await self.archive.close()
            self.archive = self.matches.archive = None
            return
        except SchemaOutOfDate as error:
            raise StartupError(
                "the archive's schema is behind", str(error), "database_url"
            ) from None
        if "match" in self.services:
            await self.coordination.enable_outbox(OUTBOX_SECONDS)

    def _spawn(self, name: str, task: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self._tasks.append(asyncio.create_task(task(), name=name))

    async def _sample_queues(self) -> None:
        """Keeps the queue-depth gauges current: bot turns in the job queue
        and the pool's queue, and hints in the pool's queue."""

        async def sample() -> None:
            bots = self.pool.waiting(Priority.BOT_SEAT)
            if self.bots:  # the job queue (shared by every runner: the same number in each)
                bots += await self.coordination.queue_depth()
            AI_QUEUE_DEPTH.labels("bot_seat").set(bots)
            AI_QUEUE_DEPTH.labels("hint").set(self.pool.waiting(Priority.HINT))

        await keep_running("queue gauges", sample, self._stop, GAUGE_SECONDS)

    async def stop(self, grace: float = GRACE_SECONDS) -> None:
        """Stops what started (all of it after ``start``, some after a
        failed start): calls in flight on the ports get ``grace`` seconds."""
        await asyncio.gather(
            *([self.web.stop(grace)] if self.web is not None else []),
            *([self.server.stop(grace)] if self.server is not None else []),
        )
        if self._metrics is not None:
            metrics, self._metrics = self._metrics, None
            await asyncio.to_thread(metrics.shutdown)
            metrics.server_close()
        self._stop.set()
        if self.uses_pool:
            await self.pool.stop()  # a bot runner waiting on a decision stops too
        late: set[asyncio.Task[None]] = set()
        if self._tasks:
            _, late = await asyncio.wait(self._tasks, timeout=TASKS_STOP_SECONDS)
        for task in late:  # a bug, but shutting down must not hang on it
            log.error("background task %s did not stop; cancelling it", task.get_name())
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.archive is not None:
            await self.archive.close()
        await self.coordination.close()
