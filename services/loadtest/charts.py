"""Line charts of a load test's intervals as inline SVG, for its HTML report
(services/loadtest/html.py): no script, no fonts, nothing fetched.

``timeline(report)`` picks the charts out of a report's ``intervals``
(throughput, latency per name, errors by code, matches in flight, the
generator's CPU); ``figure(chart, number, interval_s)`` draws one as a
``<figure>`` whose ``<svg role="img">`` is named by its ``<title>``. A line
breaks where a value is missing (a null, or an interval with no sample) and
an isolated value is drawn as a dot."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Point = tuple[float, float | None]  # seconds since start, value (None: no sample)


@dataclass(frozen=True)
class Series:
    label: str
    points: Sequence[Point]  # in time order


@dataclass(frozen=True)
class Chart:
    title: str  # the svg's accessible name
    caption: str
    unit: str  # of the y axis
    series: Sequence[Series]
    y_top: float = 0.0  # the y axis reaches at least this (100 for a percentage)
    whole: bool = False  # counts: no ticks between whole numbers


WIDTH, HEIGHT = 640, 260
LEFT, RIGHT, TOP, BOTTOM = 60, 16, 12, 42
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"]
DASHES = ["", "7 3", "2 2", "9 3 2 3"]
SPECIAL = ("turn", "assignment", "spectator_lag")  # latency names that are not RPCs


def ticks(top: float, count: int = 5, whole: bool = False) -> list[float]:
    """Round tick values from 0 to at least ``top`` (1 when there is nothing to show)."""
    top = top if top > 0 and math.isfinite(top) else 1.0
    magnitude = 10 ** math.floor(math.log10(top / count))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if top / (m * magnitude) <= count)
    step = max(step, 1) if whole else step
    return [round(i * step, 9) for i in range(math.ceil(top / step - 1e-9) + 1)]


def label(value: float) -> str:
    if abs(value) >= 10_000:
        return f"{value / 1000:g}k"
    return f"{value:,.6g}"


def segments(points: Sequence[Point], gap: float) -> list[list[tuple[float, float]]]:
    """Runs of consecutive values, broken at a missing one or a jump in time."""
    runs: list[list[tuple[float, float]]] = []
    last_t: float | None = None
    for t, value in points:
        if value is None or not math.isfinite(value):
            last_t = None
            continue
        if last_t is None or t - last_t > gap:
            runs.append([])
        runs[-1].append((t, value))
        last_t = t
    return runs


def figure(chart: Chart, number: int, interval_s: float) -> str:
    """One chart as a ``<figure>``: axes with ticks and units, a legend, a caption."""
    ident = f"chart-{number}"
    values = [v for s in chart.series for _, v in s.points if v is not None and math.isfinite(v)]
    times = [t for s in chart.series for t, _ in s.points]
    xs = ticks(max([*times, interval_s]))
    ys = ticks(max([*values, chart.y_top]), whole=chart.whole)
    width, height = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(t: float) -> float:
        return round(LEFT + width * t / xs[-1], 1)

    def y(v: float) -> float:
        return round(TOP + height * (1 - v / ys[-1]), 1)

    parts = [
        f'<svg role="img" viewBox="0 0 {WIDTH} {HEIGHT}" aria-labelledby="{ident}-title"'
        f' aria-describedby="{ident}-desc">',
        f'<title id="{ident}-title">{html.escape(chart.title)}</title>',
        f'<desc id="{ident}-desc">{html.escape(describe(chart))}</desc>',
        '<g class="grid">',
        *(f'<line x1="{LEFT}" x2="{LEFT + width}" y1="{y(v)}" y2="{y(v)}" />' for v in ys),
        "</g>",
        '<g class="ticks">',
        *(f'<text x="{LEFT - 6}" y="{y(v) + 4}" text-anchor="end">{label(v)}</text>' for v in ys),
        *(
            f'<text x="{x(t)}" y="{TOP + height + 16}" text-anchor="middle">{label(t)}</text>'
            for t in xs
        ),
        "</g>",
        f'<path class="axis" d="M{LEFT},{TOP}V{TOP + height}H{LEFT + width}" />',
        f'<text class="unit" x="{LEFT + width / 2}" y="{HEIGHT - 6}" text-anchor="middle">'
        "seconds since start (s)</text>",
        f'<text class="unit" transform="translate(14 {TOP + height / 2}) rotate(-90)"'
        f' text-anchor="middle">{html.escape(chart.unit)}</text>',
    ]
    for index, series in enumerate(chart.series):
        color, dash = COLORS[index % len(COLORS)], DASHES[index % len(DASHES)]
        style = f'stroke="{color}"' + (f' stroke-dasharray="{dash}"' if dash else "")
        for run in segments(series.points, gap=interval_s * 1.5):
            if len(run) == 1:
                ((t, v),) = run
                parts.append(f'<circle cx="{x(t)}" cy="{y(v)}" r="3" fill="{color}" />')
            else:
                line = " ".join(f"{x(t)},{y(v)}" for t, v in run)
                parts.append(f'<polyline class="line" {style} points="{line}" />')
    if not values:
        parts.append(
            f'<text class="empty" x="{LEFT + width / 2}" y="{TOP + height / 2}"'
            ' text-anchor="middle">no samples</text>'
        )
    parts.append("</svg>")
    return (
        f'<figure id="{ident}">'
        + "".join(parts)
        + legend(chart)
        + f"<figcaption>{html.escape(chart.caption)}</figcaption></figure>"
    )


def legend(chart: Chart) -> str:
    items = []
    for index, series in enumerate(chart.series):
        color, dash = COLORS[index % len(COLORS)], DASHES[index % len(DASHES)]
        items.append(
            '<li><svg aria-hidden="true" width="28" height="10">'
            f'<line x1="0" x2="28" y1="5" y2="5" stroke="{color}" stroke-width="2.5"'
            f' stroke-dasharray="{dash or "none"}" /></svg>{html.escape(series.label)}</li>'
        )
    return f'<ul class="legend">{"".join(items)}</ul>'


def describe(chart: Chart) -> str:
    """The chart in words: each series' range and its last value."""
    words = []
    for series in chart.series:
        values = [v for _, v in series.points if v is not None]
        if values:
            words.append(
                f"{series.label}: {label(min(values))} to {label(max(values))} {chart.unit},"
                f" last {label(values[-1])}"
            )
        else:
            words.append(f"{series.label}: no samples")
    return "; ".join(words) + "."


def timeline(report: dict[str, Any]) -> list[Chart]:
    """The charts of a report's intervals (none without intervals)."""
    intervals: list[dict[str, Any]] = report.get("intervals") or []
    if not intervals:
        return []
    step = float(report.get("interval_s") or 1.0)
    every = f"per {label(step)} s interval"

    def series(name: str, value: Any) -> Series:
        return Series(name, [(float(i["t"]), value(i)) for i in intervals])

    def rate(key: str) -> Any:
        return lambda i: (i.get(key) or 0) / step

    failures = any(i.get("matches_failed") for i in intervals)
    charts = [
        Chart(
            "Actions per second over time",
            f"Actions the completed matches played, per second, {every}.",
            "actions/s",
            [series("actions/s", rate("actions"))],
        ),
        Chart(
            "Matches per second over time",
            f"Matches started, completed (and failed, if any), per second, {every}.",
            "matches/s",
            [
                series("completed/s", rate("matches_completed")),
                series("started/s", rate("matches_started")),
            ]
            + [series("failed/s", rate("matches_failed"))] * failures,
        ),
    ]
    names = {name for i in intervals for name in i.get("latency") or {}}
    ordered = sorted(names - set(SPECIAL)) + [name for name in SPECIAL if name in names]
    for name in ordered:

        def latency(key: str, name: str = name) -> Any:
            def value(i: dict[str, Any]) -> float | None:
                figures = (i.get("latency") or {}).get(name) or {}
                return figures.get(key) if figures.get("count") else None

            return value

        percentiles = [series(p, latency(f"{p}_ms")) for p in ("p50", "p95", "p99")]
        if any(v is not None for s in percentiles for _, v in s.points):
            charts.append(
                Chart(
                    f"{name} latency over time",
                    f"Client-side {name} latency percentiles (HDR histograms), {every}.",
                    "ms",
                    percentiles,
                )
            )
    codes = sorted({code for i in intervals for code in i.get("errors") or {}})
    charts.append(
        Chart(
            "Errors per interval over time",
            f"Calls that ended with each status code, {every}."
            + ("" if codes else " No call returned an error."),
            "errors",
            [series(c, lambda i, c=c: (i.get("errors") or {}).get(c, 0)) for c in codes]
            or [series("all codes", lambda i: 0)],
            whole=True,
        )
    )
    charts.append(
        Chart(
            "Matches in flight over time",
            f"Matches started and not yet ended, {every}.",
            "matches",
            [series("in flight", lambda i: i.get("matches_in_flight"))],
            whole=True,
        )
    )
    cores = (report.get("generator") or {}).get("cores")
    charts.append(
        Chart(
            "Generator CPU over time",
            f"CPU use of the load generator's process, {every}"
            + (f" ({cores} cores)" if cores else "")
            + "; when it runs high, the generator itself may limit the load."
            + " A gap: no sample.",
            "CPU %",
            [series("generator CPU", lambda i: i.get("cpu_percent"))],
            y_top=100.0,
        )
    )
    return charts
