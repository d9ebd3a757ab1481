"""Every service in one process on one port (``meeple up``): rules, AI and
matches, coordination in memory, bots thinking in a process pool so a long
think never blocks the server."""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from wsgiref.simple_server import WSGIServer

import grpc

from services import ai_service, match_service, rules_service
from services.coordination import Coordination, MemoryCoordination
from services.metrics import serve_metrics
from services.server import GRACE_SECONDS, RateLimiter, build_server, start

SERVICE_NAMES = ("rules", "ai", "match")


class App:
    """A server with some or all of the services (all by default);
    ``await app.start()``, later ``await app.stop()``. The match service
    brings the bot workers; bots and AIService share the process pool."""

    def __init__(
        self,
        address: str,
        workers: int = 1,
        coordination: Coordination | None = None,
        services: tuple[str, ...] = SERVICE_NAMES,
        metrics_port: int | None = None,
        rate_limit: tuple[float, float] | None = (500.0, 1000.0),
    ) -> None:
        unknown = set(services) - set(SERVICE_NAMES)
        if unknown or not services:
            raise ValueError(f"services are some of {', '.join(SERVICE_NAMES)}, got {services}")
        self.address = address
        self.workers = workers
        self.services = services
        self.metrics_port = metrics_port
        # Calls a second and burst per client address, across all services:
        # generous for play, a brake on floods. None turns it off.
        self.rate_limiter = RateLimiter(*rate_limit) if rate_limit else None
        self.coordination = coordination or MemoryCoordination()
        # Spawned, not forked: a fork of a process running gRPC threads is unsafe.
        self.executor = ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("spawn")
        )
        self.server: grpc.aio.Server | None = None
        self.port = 0
        self._stop_bots = asyncio.Event()
        self._bots: list[asyncio.Task[None]] = []
        self._metrics: WSGIServer | None = None

    async def start(self) -> int:
        makers = {
            "rules": rules_service.service,
            "ai": lambda: ai_service.service(self.executor),
            "match": lambda: match_service.service(self.coordination),
        }
        services = [makers[name]() for name in self.services]
        for service in services:
            service.servicer.rate_limiter = self.rate_limiter
        self.server, self.port = build_server(services, self.address)
        await start(self.server)
        if self.metrics_port is not None:
            self._metrics = serve_metrics(self.address.rsplit(":", 1)[0], self.metrics_port)
            self.metrics_port = self._metrics.server_port
        if "match" in self.services:
            self._bots = [
                asyncio.create_task(
                    match_service.run_bots(self.coordination, self.executor, self._stop_bots)
                )
                for _ in range(self.workers)
            ]
        return self.port

    async def stop(self, grace: float = GRACE_SECONDS) -> None:
        if self.server is not None:
            await self.server.health.enter_graceful_shutdown()  # type: ignore[attr-defined]
            await self.server.stop(grace)
        if self._metrics is not None:
            self._metrics.shutdown()
        self._stop_bots.set()
        await asyncio.gather(*self._bots)
        self.executor.shutdown(wait=True, cancel_futures=True)
