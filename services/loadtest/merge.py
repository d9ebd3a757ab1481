"""``meeple loadtest merge``: the reports of several load generators that
ran side by side, as one report. Counts add up; latencies merge through
their HDR histograms, so every percentile is what one run over all the
samples would give; intervals line up on the wall clock. What cannot add
up (each run's config, target, server figures and identities) is kept per
run under ``sources``."""

from __future__ import annotations

import collections
from typing import Any

from services.loadtest.recorder import Interval, Tally
from services.loadtest.report import (
    SCHEMA,
    interval_json,
    iso,
    read_tally,
    tally_json,
    unix,
    versions,
    warnings,
)


class MergeError(ValueError):
    """The reports cannot be merged (the message says why)."""


def merge(reports: list[dict[str, Any]]) -> dict[str, Any]:
    if not reports:
        raise MergeError("no reports to merge")
    for number, report in enumerate(reports, 1):
        if report.get("schema") != SCHEMA:
            raise MergeError(f"report {number} is not {SCHEMA} (schema {report.get('schema')!r})")
        if "histograms" not in report:
            raise MergeError(f"report {number} has no histograms: written before they were kept")
    interval_s = reports[0]["interval_s"]
    if any(report["interval_s"] != interval_s for report in reports):
        raise MergeError("the reports' intervals differ: run every generator with one --interval")
    began = min(unix(report["started_at"]) for report in reports)
    ended = max(unix(report["ended_at"]) for report in reports)
    duration = max(1e-9, ended - began)

    total = Tally()
    games: dict[str, Tally] = collections.defaultdict(Tally)
    intervals: dict[int, Interval] = {}
    for report in reports:
        read_tally(report, total)
        for game, part in report["per_game"].items():
            read_tally(part, games[game])
        for part in report["intervals"]:
            key = round(part["start"] / interval_s)
            interval = intervals.setdefault(key, Interval())
            read_tally(part, interval)
            flying, cpu = part["matches_in_flight"], part["cpu_percent"]
            interval.matches_in_flight = added(interval.matches_in_flight, flying)
            interval.cpu_percent = highest(interval.cpu_percent, cpu)

    series = [
        interval_json(key, interval, interval_s, began)
        for key, interval in sorted(intervals.items())
    ]
    data: dict[str, Any] = {
        "schema": SCHEMA,
        "started_at": iso(began),
        "ended_at": iso(ended),
        "versions": versions(common(r["versions"].get("server") for r in reports)),
        "target": target_of(reports),
        "config": reports[0]["config"],
        "duration_s": round(duration, 3),
        **tally_json(total, duration),
        "per_game": {game: tally_json(tally, duration) for game, tally in sorted(games.items())},
        "interval_s": interval_s,
        "intervals": series,
        "generator": generators(reports),
        "server": None,
        "identities": None,
        "sources": [
            {
                key: report.get(key)
                for key in (
                    "started_at",
                    "ended_at",
                    "versions",
                    "target",
                    "config",
                    "generator",
                    "server",
                    "identities",
                )
            }
            for report in reports
        ],
    }
    data["warnings"] = warnings(data)
    data["slos"] = []
    return data


def added(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else a + b


def highest(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


def common(values: Any) -> Any:
    """The one value all share, or None."""
    distinct = set(values)
    return distinct.pop() if len(distinct) == 1 else None


def target_of(reports: list[dict[str, Any]]) -> dict[str, Any]:
    addresses = sorted({r["target"]["address"] for r in reports})
    in_process = any(r["target"]["in_process"] for r in reports)
    return {
        "address": ", ".join(addresses),
        "in_process": in_process,
        "description": f"{len(reports)} load generators' reports, merged",
    }


def generators(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """The busiest generator's CPU, and how many there were."""
    parts = [r["generator"] for r in reports]
    means = [g["cpu_percent"] for g in parts if g["cpu_percent"] is not None]
    peaks = [g["cpu_percent_max"] for g in parts if g["cpu_percent_max"] is not None]
    return {
        "cpu_percent": max(means) if means else None,
        "cpu_percent_max": max(peaks) if peaks else None,
        "cores": sum(g["cores"] or 0 for g in parts),
        "count": sum(g.get("count", 1) for g in parts),
    }
