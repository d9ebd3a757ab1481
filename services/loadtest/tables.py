"""A load test on the terminal: its progress while it runs, and its report
(one run's or merged ones', from the report's JSON) as tables."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from services.loadtest.recorder import Recorder
from services.loadtest.report import SMALL_SAMPLE, latencies, summary


def _submit(recorder: Recorder) -> str | None:
    values = recorder.total.latency.get("SubmitAction")
    if values is None or not values.get_total_count():
        return None
    stats = summary(values)
    return f"p50 {stats['p50_ms']:.1f} ms, p99 {stats['p99_ms']:.1f} ms"


def _errors(errors: dict[str, int]) -> str:
    return ", ".join(f"{code} {n}" for code, n in sorted(errors.items())) or "none"


def progress(recorder: Recorder) -> Table:
    """The live table on a terminal."""
    t = recorder.total
    table = Table(title=f"meeple loadtest, {recorder.elapsed:.1f} s", show_header=False)
    table.add_row(
        "matches",
        f"{t.matches_completed} done / {t.matches_started} started, "
        f"{t.matches_failed} failed, {recorder.in_flight} in flight",
    )
    table.add_row("actions/s", f"{t.actions / recorder.elapsed:.1f}")
    if submit := _submit(recorder):
        table.add_row("SubmitAction", submit)
    table.add_row("errors", _errors(t.errors))
    return table


def progress_line(recorder: Recorder) -> str:
    """One line of progress, for output that is not a terminal."""
    t = recorder.total
    parts = [
        f"{recorder.elapsed:6.1f} s",
        f"matches {t.matches_completed}/{t.matches_started} done",
        f"{recorder.in_flight} in flight",
        f"{t.matches_failed} failed",
        f"{t.actions / recorder.elapsed:.1f} actions/s",
    ]
    if submit := _submit(recorder):
        parts.append(f"SubmitAction {submit}")
    parts.append(f"errors {_errors(t.errors)}")
    return "loadtest: " + ", ".join(parts)


def _latency_table(title: str, named: dict[str, dict[str, Any]]) -> Table:
    table = Table(title=title, caption=f"* fewer than {SMALL_SAMPLE} samples: p99 is near the max")
    for column in ("", "count", "p50", "p95", "p99", "max"):
        table.add_column(column, justify="left" if not column else "right")
    for name, stats in named.items():
        small = " *" if stats["count"] < SMALL_SAMPLE else ""
        table.add_row(
            name,
            f"{stats['count']}{small}",
            *(f"{stats[key]:.2f}" for key in ("p50_ms", "p95_ms", "p99_ms", "max_ms")),
        )
    return table


def _server_value(value: Any) -> str:
    if isinstance(value, dict):
        if value and all(v is None for v in value.values()):
            return "no samples"
        parts = [
            f"{key.removesuffix('_ms')} {'no samples' if v is None else v}"
            + (" ms" if key.endswith("_ms") and v is not None else "")
            for key, v in value.items()
        ]
        return ", ".join(parts) or "none"
    return str(value)


def report_tables(data: dict[str, Any]) -> list[Table]:
    """The report as tables to print."""
    totals = Table(title="meeple loadtest report")
    totals.add_column("")
    totals.add_column("value", justify="right")
    matches, actions = data["matches"], data["actions"]
    totals.add_row("started", data["started_at"])
    totals.add_row("duration", f"{data['duration_s']:.1f} s")
    totals.add_row("target", f"{data['target']['address']}: {data['target']['description']}")
    totals.add_row(
        "matches", f"{matches['completed']} of {matches['started']} ({matches['failed']} failed)"
    )
    totals.add_row("matches/s", f"{matches['per_second']:.2f}")
    totals.add_row("actions/s", f"{actions['per_second']:.1f}")
    totals.add_row("errors", _errors(data["errors"]))
    cpu = data["generator"]
    if cpu["cpu_percent"] is not None:
        totals.add_row(
            "generator CPU",
            f"{cpu['cpu_percent']:.0f}% of a core (peak {cpu['cpu_percent_max']:.0f}%)",
        )
    if data["identities"]:
        who = data["identities"]
        totals.add_row("players", f"{who['players']} ({who['source']})")
    tables = [totals, _latency_table("latency (client side, ms)", latencies(data))]
    if len(data["per_game"]) > 1:
        tables.append(_games_table(data["per_game"]))
    if data["server"]:
        server = Table(title="server (scraped from /metrics)")
        server.add_column("")
        server.add_column("value", justify="right")
        for key, value in data["server"].items():
            server.add_row(key.replace("_", " "), _server_value(value))
        tables.append(server)
    if data["slos"]:
        slos = Table(title="SLOs")
        for column in ("", "value", "result"):
            slos.add_column(column, justify="left" if not column else "right")
        for verdict in data["slos"]:
            value = "none" if verdict["value"] is None else f"{verdict['value']}{verdict['unit']}"
            if verdict["detail"]:
                value += f" ({verdict['detail']})"
            slos.add_row(verdict["slo"], value, "passed" if verdict["passed"] else "FAILED")
        tables.append(slos)
    return tables


def _games_table(per_game: dict[str, dict[str, Any]]) -> Table:
    table = Table(title="per game")
    for column in ("", "matches", "failed", "actions/s", "turn p50", "turn p99", "errors"):
        table.add_column(column, justify="left" if not column else "right")
    for game, part in per_game.items():
        turn = part["turn"]
        table.add_row(
            game,
            str(part["matches"]["completed"]),
            str(part["matches"]["failed"]),
            f"{part['actions']['per_second']:.1f}",
            "-" if turn is None else f"{turn['p50_ms']:.2f} ms",
            "-" if turn is None else f"{turn['p99_ms']:.2f} ms",
            _errors(part["errors"]),
        )
    return table
