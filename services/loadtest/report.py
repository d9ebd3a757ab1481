"""What a load test records and reports: latencies in HDR histograms (never
averages), counts, errors by code, and the server's own figures scraped
from its /metrics. ``Report.to_json`` writes the stable schema described in
docs/loadtest.md (``"schema": "meeple.loadtest/1"``)."""

from __future__ import annotations

import collections
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
from hdrh.histogram import HdrHistogram

SCHEMA = "meeple.loadtest/1"
T = TypeVar("T")


def histogram() -> HdrHistogram:
    """Microseconds from 1 µs to 10 minutes, three significant digits."""
    return HdrHistogram(1, 600_000_000, 3)


def summary(values: HdrHistogram) -> dict[str, float | int]:
    """Count and percentiles in milliseconds."""
    if values.get_total_count() == 0:
        return {"count": 0, "p50_ms": 0.0, "p95_ms": 0.0, "p99_ms": 0.0, "max_ms": 0.0}
    return {
        "count": values.get_total_count(),
        "p50_ms": values.get_value_at_percentile(50) / 1000,
        "p95_ms": values.get_value_at_percentile(95) / 1000,
        "p99_ms": values.get_value_at_percentile(99) / 1000,
        "max_ms": values.get_max_value() / 1000,
    }


@dataclass
class Recorder:
    """Counts and latencies of one run, filled in as it goes."""

    began: float = field(default_factory=time.monotonic)
    rpcs: dict[str, HdrHistogram] = field(
        default_factory=lambda: collections.defaultdict(histogram)
    )
    errors: collections.Counter[str] = field(default_factory=collections.Counter)
    assignment: HdrHistogram = field(default_factory=histogram)
    lag: HdrHistogram = field(default_factory=histogram)
    matches_started: int = 0
    matches_completed: int = 0
    matches_failed: int = 0
    actions: int = 0  # actions the matches played, as their final plies count them
    plies_by_match: dict[str, int] = field(default_factory=dict)

    async def timed(self, name: str, call: Awaitable[T]) -> T:
        """Awaits ``call`` (an RPC named ``name``), recording its latency or its error code."""
        start = time.perf_counter()
        try:
            result = await call
        except grpc.aio.AioRpcError as error:
            self.errors[error.code().name] += 1
            raise
        self.rpcs[name].record_value(max(1, round((time.perf_counter() - start) * 1e6)))
        return result

    def record(self, values: HdrHistogram, seconds: float) -> None:
        values.record_value(max(1, round(seconds * 1e6)))

    def finished(self, match_id: str, plies: int) -> None:
        """A match ended after ``plies`` actions (counted once, however many
        of our clients watched it)."""
        if match_id not in self.plies_by_match:
            self.matches_completed += 1
            self.plies_by_match[match_id] = plies
            self.actions += plies

    @property
    def elapsed(self) -> float:
        return max(1e-9, time.monotonic() - self.began)


@dataclass
class Report:
    config: dict[str, Any]
    recorder: Recorder
    duration: float
    server: dict[str, Any] | None
    identities: dict[str, Any] | None = None  # how the players were made

    def to_json(self) -> dict[str, Any]:
        r = self.recorder
        return {
            "schema": SCHEMA,
            "config": self.config,
            "duration_s": round(self.duration, 3),
            "matches": {
                "started": r.matches_started,
                "completed": r.matches_completed,
                "failed": r.matches_failed,
                "per_second": r.matches_completed / self.duration,
            },
            "actions": {"total": r.actions, "per_second": r.actions / self.duration},
            "rpcs": {name: summary(values) for name, values in sorted(r.rpcs.items())},
            "assignment": summary(r.assignment) if r.assignment.get_total_count() else None,
            "spectator_lag": summary(r.lag) if r.lag.get_total_count() else None,
            "errors": dict(sorted(r.errors.items())),
            "server": self.server,
            "identities": self.identities,
        }
