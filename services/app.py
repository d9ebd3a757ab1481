"""Services in one process on one port (``meeple up`` runs them all): rules,
AI and matches, coordination in memory, bots thinking in a pool of worker
processes so a long think never blocks the server, and the background tasks
a match service needs (bot turns, the clock sweeper, the queue gauges)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any
from wsgiref.simple_server import WSGIServer

from services import ai_service, match_service, matchmaking, rules_service
from services.ai_service import AIPool, Priority
from services.background import keep_running
from services.coordination import MemoryCoordination, Store
from services.coordination.redis import RedisCoordination
from services.limits import RateLimiter
from services.match_service import Matches
from services.matchmaking import Matchmaker
from services.metrics import AI_QUEUE_DEPTH, serve_metrics
from services.server import GRACE_SECONDS, Server, Service, build_server
from services.settings import Settings
from services.web.server import WebServer

SERVICE_NAMES = ("rules", "ai", "match", "matchmaking")
GAUGE_SECONDS = 1.0
# A runner waits on the store between decisions: a few per AI worker keep it busy.
RUNNERS_PER_AI_WORKER = 4
TASKS_STOP_SECONDS = 5.0  # each background task checks its stop signal far more often

log = logging.getLogger(__name__)


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
        timeout = self.settings.bot_visibility_timeout
        if coordination is None and redis_url is not None:
            coordination = RedisCoordination(redis_url, visibility_timeout=timeout)
        self.coordination = coordination or MemoryCoordination(visibility_timeout=timeout)
        self.matches = Matches(self.coordination, self.settings)
        self.matchmaker = Matchmaker(self.coordination, self.matches, self.settings)
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

    @property
    def uses_pool(self) -> bool:
        return "ai" in self.services or self.bots

    async def start(self) -> int:
        settings = self.settings
        makers: dict[str, Callable[[], Service]] = {
            "rules": rules_service.service,
            "ai": lambda: ai_service.service(self.pool, settings),
            "match": lambda: match_service.service(self.matches),
            "matchmaking": lambda: matchmaking.service(self.matchmaker),
        }
        services = [makers[name]() for name in self.services]
        if settings.rate_per_second is not None:
            # One bucket per client across all services: generous for play,
            # a brake on floods.
            limiter = RateLimiter(settings.rate_per_second, settings.rate_burst)
            for service in services:
                service.servicer.rate_limiter = limiter
        await self.coordination.start()
        if self.uses_pool:
            await self.pool.start()
        if services:
            self.server = build_server(services, self.address)
            self.port = self.server.port
            await self.server.start()
        if self.web_port is not None:
            host = self.address.rsplit(":", 1)[0]
            self.web = WebServer(services, host, self.web_port, origins=self.web_origins)
            await self.web.start()
            self.web_port = self.web.port
        if self.metrics_port is not None:
            self._metrics = serve_metrics(self.address.rsplit(":", 1)[0], self.metrics_port)
            self.metrics_port = self._metrics.server_port
        if "match" in self.services:
            self._spawn("sweeper", lambda: match_service.run_sweeper(self.matches, self._stop))
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
        if self.web is not None:
            await self.web.stop(grace)
        if self.server is not None:
            await self.server.stop(grace)
        if self._metrics is not None:
            self._metrics.shutdown()
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
        await self.coordination.close()
