"""``--csv DIR``: a report as CSV files for a spreadsheet or a plotting
tool (docs/loadtest.md lists their columns):

- ``latency.csv``: per latency name (and per game), count and percentiles;
- ``intervals.csv``: per interval, its throughput, matches, CPU and errors;
- ``interval_latency.csv``: per interval and latency name, rate and percentiles;
- ``errors.csv``: per interval and status code, the calls that ended with it.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from services.loadtest.report import latencies

PERCENTILES = ("p50_ms", "p95_ms", "p99_ms", "max_ms")


def write(data: dict[str, Any], directory: Path) -> list[Path]:
    """The files written, in ``directory`` (made if missing)."""
    directory.mkdir(parents=True, exist_ok=True)
    interval_s = data["interval_s"]
    files = {
        "latency.csv": [
            ("game", "name", "count", *PERCENTILES),
            *(
                (game, name, stats["count"], *(stats[p] for p in PERCENTILES))
                for game, part in [("all", data), *data["per_game"].items()]
                for name, stats in latencies(part).items()
            ),
        ],
        "intervals.csv": [
            (
                "t",
                "start",
                "actions_per_s",
                "matches_started",
                "matches_completed",
                "matches_failed",
                "matches_in_flight",
                "errors",
                "cpu_percent",
            ),
            *(
                (
                    i["t"],
                    i["start"],
                    round(i["actions"] / interval_s, 3),
                    i["matches_started"],
                    i["matches_completed"],
                    i["matches_failed"],
                    blank(i["matches_in_flight"]),
                    sum(i["errors"].values()),
                    blank(i["cpu_percent"]),
                )
                for i in data["intervals"]
            ),
        ],
        "interval_latency.csv": [
            ("t", "name", "count", "per_s", *PERCENTILES),
            *(
                (
                    i["t"],
                    name,
                    stats["count"],
                    round(stats["count"] / interval_s, 3),
                    *(stats[p] for p in PERCENTILES),
                )
                for i in data["intervals"]
                for name, stats in i["latency"].items()
            ),
        ],
        "errors.csv": [
            ("t", "code", "count"),
            *((i["t"], code, n) for i in data["intervals"] for code, n in i["errors"].items()),
        ],
    }
    written = []
    for name, rows in files.items():
        path = directory / name
        with path.open("w", newline="") as out:
            csv.writer(out).writerows(rows)
        written.append(path)
    return written


def blank(value: Any) -> Any:
    return "" if value is None else value
