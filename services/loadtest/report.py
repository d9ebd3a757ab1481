"""A load test's report: the stable JSON schema of docs/loadtest.md
(``"schema": "meeple.loadtest/1"``), built from a run's ``Recorder`` or, for
``merge``, back from reports. Every latency is carried twice: as
percentiles to read, and as its encoded HDR histogram, so reports of
several generators merge without loss."""

from __future__ import annotations

import importlib.metadata
import os
import platform
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import grpc
from hdrh.histogram import HdrHistogram

from services.loadtest.recorder import (
    ASSIGNMENT,
    NOT_RPCS,
    SPECTATOR_LAG,
    TURN,
    Interval,
    Recorder,
    Tally,
)

SCHEMA = "meeple.loadtest/1"
SMALL_SAMPLE = 100  # fewer samples than this: p99 is the max, or next to it
BUSY_CPU_PERCENT = 85.0  # the generator above this may be the bottleneck
LATENCY_KEYS = {TURN: "turn", ASSIGNMENT: "assignment", SPECTATOR_LAG: "spectator_lag"}


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


def encode(values: HdrHistogram) -> str:
    return bytes(values.encode()).decode("ascii")


def decode(text: str) -> HdrHistogram:
    return HdrHistogram.decode(text.encode("ascii"))


def iso(wall: float) -> str:
    return datetime.fromtimestamp(wall, UTC).isoformat(timespec="milliseconds")


def unix(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def tally_json(tally: Tally, duration: float) -> dict[str, Any]:
    """The figures of one tally: the run's, or one game's."""
    latency = dict(sorted(tally.latency.items()))
    data: dict[str, Any] = {
        "matches": {
            "started": tally.matches_started,
            "completed": tally.matches_completed,
            "failed": tally.matches_failed,
            "per_second": tally.matches_completed / duration,
        },
        "actions": {"total": tally.actions, "per_second": tally.actions / duration},
        "rpcs": {name: summary(v) for name, v in latency.items() if name not in NOT_RPCS},
    }
    for name, key in LATENCY_KEYS.items():
        values = latency.get(name)
        data[key] = summary(values) if values is not None and values.get_total_count() else None
    data["errors"] = dict(sorted(tally.errors.items()))
    data["histograms"] = {name: encode(values) for name, values in latency.items()}
    return data


def interval_json(key: int, interval: Interval, interval_s: float, began: float) -> dict[str, Any]:
    start = key * interval_s
    latency = sorted(interval.latency.items())
    return {
        "t": round(start - began, 3),
        "start": start,
        "matches_started": interval.matches_started,
        "matches_completed": interval.matches_completed,
        "matches_failed": interval.matches_failed,
        "matches_in_flight": interval.matches_in_flight,
        "actions": interval.actions,
        "errors": dict(sorted(interval.errors.items())),
        "cpu_percent": interval.cpu_percent,
        "latency": {name: summary(values) for name, values in latency},
        "histograms": {name: encode(values) for name, values in latency},
    }


def read_tally(data: dict[str, Any], tally: Tally) -> Tally:
    """``tally`` with the counts and histograms of a ``tally_json`` (or
    ``interval_json``) added: the reverse of writing them."""
    for name, text in data["histograms"].items():
        tally.latency[name].add(decode(text))
    tally.errors.update(data["errors"])
    if "matches" in data:  # a run's or a game's
        matches = data["matches"]
        tally.matches_started += matches["started"]
        tally.matches_completed += matches["completed"]
        tally.matches_failed += matches["failed"]
        tally.actions += data["actions"]["total"]
    else:  # an interval's
        tally.matches_started += data["matches_started"]
        tally.matches_completed += data["matches_completed"]
        tally.matches_failed += data["matches_failed"]
        tally.actions += data["actions"]
    return tally


def versions(server: str | None) -> dict[str, str | None]:
    return {
        "meeple": importlib.metadata.version("meeple"),
        "python": platform.python_version(),
        "grpcio": grpc.__version__,
        "server": server,
    }


def generator(intervals: list[dict[str, Any]]) -> dict[str, Any]:
    """The load generator's CPU over the run (percent of one core)."""
    cpu = [i["cpu_percent"] for i in intervals if i["cpu_percent"] is not None]
    return {
        "cpu_percent": round(sum(cpu) / len(cpu), 1) if cpu else None,
        "cpu_percent_max": max(cpu) if cpu else None,
        "cores": os.cpu_count(),
        "count": 1,
    }


@dataclass
class Report:
    config: dict[str, Any]
    recorder: Recorder
    target: dict[str, Any]  # address, in_process, description
    server: dict[str, Any] | None
    identities: dict[str, Any] | None = None  # how the players were made
    server_version: str | None = None

    def to_json(self) -> dict[str, Any]:
        r = self.recorder
        duration = r.elapsed
        began = r.began if r.began is not None else r.now()
        intervals = [
            interval_json(key, interval, r.interval_s, began)
            for key, interval in sorted(r.intervals.items())
        ]
        data: dict[str, Any] = {
            "schema": SCHEMA,
            "started_at": iso(began),
            "ended_at": iso(began + duration),
            "versions": versions(self.server_version),
            "target": self.target,
            "config": self.config,
            "duration_s": round(duration, 3),
            **tally_json(r.total, duration),
            "per_game": {
                game: tally_json(tally, duration) for game, tally in sorted(r.games.items())
            },
            "interval_s": r.interval_s,
            "intervals": intervals,
            "generator": generator(intervals),
            "server": self.server,
            "identities": self.identities,
        }
        data["warnings"] = warnings(data)
        data["slos"] = []
        return data


def latencies(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every latency of a report (or a game's part), by name."""
    named = dict(data["rpcs"])
    for name, key in LATENCY_KEYS.items():
        if data.get(key):
            named[name] = data[key]
    return named


def warnings(data: dict[str, Any]) -> list[str]:
    """What makes a report's figures less than they look."""
    found = []
    if data["target"].get("in_process"):
        found.append(
            "the target is meeple up in this process: it shares the load generator's "
            "event loop and CPU, so latencies include both (give --target for a server "
            "of its own)"
        )
    busy = [i for i in data["intervals"] if (i["cpu_percent"] or 0) > BUSY_CPU_PERCENT]
    if busy:
        peak = max(i["cpu_percent"] for i in busy)
        found.append(
            f"the load generator's CPU was above {BUSY_CPU_PERCENT:.0f}% of a core in "
            f"{len(busy)} of {len(data['intervals'])} intervals (peak {peak:.0f}%): it may "
            "be the bottleneck, not the server; spread the load over more generators "
            "(Locust's workers, docs/locust.md)"
        )
    small = [
        f"{name} ({stats['count']})"
        for name, stats in latencies(data).items()
        if 0 < stats["count"] < SMALL_SAMPLE
    ]
    if small:
        found.append(
            f"fewer than {SMALL_SAMPLE} samples: {', '.join(small)}; their p99 is the "
            "max or next to it"
        )
    return found
