"""A load test's report (schema ``meeple.loadtest/1``, docs/loadtest.md) as
one self-contained HTML document to share: inline CSS, charts as inline
SVG (services/loadtest/charts.py), no script and nothing fetched when it is
viewed (its Content Security Policy allows nothing but its own styles).

Every string from the report is escaped; values are printed as a person
reads them (never as Python reprs); fields that are null are left out, and
a report without the newer fields (intervals, SLOs, ...) still renders."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime
from typing import Any

from services.loadtest.charts import SPECIAL, figure, timeline

SMALL_SAMPLE = 100  # fewer latency samples than this: flagged as a small sample
PERCENTILES = ("p50_ms", "p95_ms", "p99_ms", "max_ms")

CSS = """
:root { color-scheme: light; --fail: #b00020; --pass: #1b6e20; --warn: #8a5a00; }
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 70rem;
  padding: 1rem 1.5rem 3rem; color: #1a1a1a; background: #fff; }
h1 { margin-bottom: .2rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
caption { text-align: left; font-weight: 600; padding-bottom: .3rem; }
th, td { padding: .2rem .7rem; border-bottom: 1px solid #e3e3e3; text-align: left; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; }
dl.meta dt { font-weight: 600; } dl.meta dd { margin: 0; }
.verdict { font-size: 1.15rem; font-weight: 700; padding: .5rem .8rem; border-radius: 4px; }
.verdict.pass { background: #e6f4e7; color: var(--pass); }
.verdict.fail { background: #fde8eb; color: var(--fail); }
.passed { color: var(--pass); font-weight: 600; } .failed { color: var(--fail); font-weight: 700; }
.warnings { background: #fff6e0; border-left: 4px solid var(--warn); padding: .4rem 1rem; }
.shared { color: var(--warn); font-weight: 600; }
tr.small td { background: #fff9e8; } .note { color: var(--warn); }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(28rem, 1fr)); gap: 1rem; }
figure { margin: 0; border: 1px solid #ddd; border-radius: 4px; padding: .5rem; }
figure > svg { width: 100%; height: auto; display: block; }
figcaption { font-size: .85rem; color: #444; }
svg text { font-size: 11px; fill: #333; } svg .unit { font-size: 12px; }
svg .grid line { stroke: #e5e5e5; } svg .axis { stroke: #666; fill: none; }
svg .line { fill: none; stroke-width: 2; } svg .empty { font-size: 14px; fill: #777; }
ul.legend { list-style: none; display: flex; flex-wrap: wrap; gap: .2rem 1rem; padding: 0;
  margin: .3rem 0; font-size: .85rem; }
ul.legend svg { vertical-align: middle; margin-right: .3rem; }
"""


def e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def number(value: Any, digits: int = 2) -> str:
    """A value as text, escaped: ints with thousands separators, floats rounded."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.{0 if abs(value) >= 1000 else digits}f}"
    return e(value)


def readable(value: Any) -> str | None:
    """A config or server value as escaped text; None when it is null (or all nulls)."""
    if value is None:
        return None
    if isinstance(value, dict):
        shown = [(k, readable(v)) for k, v in value.items()]
        pairs = [
            f"{e(str(k).removesuffix('_ms'))}: {v}" + (" ms" if str(k).endswith("_ms") else "")
            for k, v in shown
            if v is not None
        ]
        return ", ".join(pairs) if pairs else None
    if isinstance(value, list | tuple):
        return ", ".join(readable(v) or "—" for v in value) or "none"
    return number(value)


def when(text: Any) -> str:
    """An ISO timestamp in UTC, as a <time> element (the raw text if it does not parse)."""
    try:
        moment = datetime.fromisoformat(str(text))
    except ValueError:
        return e(text)
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    shown = moment.strftime("%Y-%m-%d %H:%M:%S UTC")
    return f'<time datetime="{e(moment.isoformat())}">{shown}</time>'


def duration(seconds: Any) -> str:
    if not isinstance(seconds, int | float):
        return "—"
    if seconds < 60:
        return f"{number(seconds)} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{number(seconds)} s ({minutes} min {rest} s)"


def table(
    caption: str, head: list[str], rows: list[list[str]], classes: list[str] | None = None
) -> str:
    """A table of escaped cells; a column of numbers alone is right-aligned."""
    numeric = [bool(rows) and all(NUMBER.match(row[i]) for row in rows) for i in range(len(head))]
    cells = "".join(
        f'<th scope="col"{NUM * n}>{e(h)}</th>' for h, n in zip(head, numeric, strict=True)
    )
    body = []
    for index, row in enumerate(rows):
        css = f' class="{classes[index]}"' if classes and classes[index] else ""
        tds = "".join(f"<td{NUM * n}>{cell}</td>" for cell, n in zip(row, numeric, strict=True))
        body.append(f"<tr{css}>{tds}</tr>")
    return (
        f"<table><caption>{e(caption)}</caption><thead><tr>{cells}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )


NUM = ' class="n"'
NUMBER = re.compile(r"^(—|-?[\d,]+(\.\d+)?( ms| s| %)?)$")


def fields(rows: dict[str, Any], caption: str) -> str:
    """Name/value rows of a dict, nulls left out."""
    shown = [[e(k), v] for k, v in ((k, readable(v)) for k, v in rows.items()) if v is not None]
    return table(caption, ["field", "value"], shown) if shown else f"<p>{e(caption)}: nothing.</p>"


def header(report: dict[str, Any]) -> str:
    target = report.get("target") or {}
    config = report.get("config") or {}
    address = target.get("address") or config.get("target") or "in-process meeple up"
    versions = readable(report.get("versions") or {}) or "—"
    meta = [
        ("started", when(report["started_at"]) if report.get("started_at") else "—"),
        ("ended", when(report["ended_at"]) if report.get("ended_at") else "—"),
        ("duration", duration(report.get("duration_s"))),
        ("target", e(address)),
        ("versions", versions),
    ]
    if target.get("in_process"):
        text = target.get("description") or "in-process meeple up (shares the load generator's CPU)"
        meta.insert(4, ("in-process", f'<span class="shared">{e(text)}</span>'))
    elif target.get("description"):
        meta.insert(4, ("about the target", e(target["description"])))
    rows = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in meta)
    return f'<header><h1>meeple loadtest</h1><dl class="meta">{rows}</dl></header>'


def slo_section(report: dict[str, Any]) -> str:
    slos: list[dict[str, Any]] = report.get("slos") or []
    parts = []
    if slos:
        failed = sum(1 for s in slos if not s.get("passed"))
        verdict = (
            f"{failed} of {len(slos)} SLOs failed" if failed else f"All {len(slos)} SLOs passed"
        )
        parts.append(f'<p class="verdict {"fail" if failed else "pass"}">{verdict}</p>')
        rows = []
        for slo in slos:
            unit = f" {e(slo['unit'])}" if slo.get("unit") else ""
            result = (
                '<span class="passed">✔ passed</span>'
                if slo.get("passed")
                else '<span class="failed">✘ failed</span>'
            )
            value, threshold = number(slo.get("value")), number(slo.get("threshold"))
            rows.append([e(slo.get("slo", "")), result, value + unit, threshold + unit])
        parts.append(table("SLO results", ["SLO", "result", "value", "threshold"], rows))
    else:
        parts.append("<p>No SLOs were set for this run.</p>")
    warnings = report.get("warnings") or []
    if warnings:
        items = "".join(f"<li>{e(w)}</li>" for w in warnings)
        parts.append(f'<div class="warnings"><h3>Warnings</h3><ul>{items}</ul></div>')
    return section("slos", "SLO results", "".join(parts))


def latency_names(report: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    names = sorted((report.get("rpcs") or {}).items())
    return names + [(n, report[n]) for n in SPECIAL if report.get(n)]


def latency_table(caption: str, named: list[tuple[str, dict[str, Any]]]) -> str:
    if not named:
        return f"<p>{e(caption)}: no calls.</p>"
    rows, classes = [], []
    for name, figures in named:
        small = (figures.get("count") or 0) < SMALL_SAMPLE
        note = '<span class="note">small sample</span>' if small else ""
        shown = [number(figures.get(p)) for p in ("count", *PERCENTILES)]
        rows.append([e(name), *shown, note])
        classes.append("small" if small else "")
    head = ["name", "count", "p50 (ms)", "p95 (ms)", "p99 (ms)", "max (ms)", "note"]
    return table(caption, head, rows, classes)


def errors_text(errors: dict[str, Any]) -> str:
    return ", ".join(f"{e(code)}: {number(n)}" for code, n in sorted(errors.items())) or "none"


def totals(report: dict[str, Any]) -> str:
    matches, actions = report.get("matches") or {}, report.get("actions") or {}
    generator = report.get("generator") or {}
    rows = [
        ["matches started", number(matches.get("started"))],
        ["matches completed", number(matches.get("completed"))],
        ["matches failed", number(matches.get("failed"))],
        ["matches/s", number(matches.get("per_second"))],
        ["actions", number(actions.get("total"))],
        ["actions/s", number(actions.get("per_second"))],
        ["duration (s)", number(report.get("duration_s"))],
    ]
    if generator:
        rows.append(["generator CPU, mean (%)", number(generator.get("cpu_percent"), 1)])
        rows.append(["generator CPU, max (%)", number(generator.get("cpu_percent_max"), 1)])
        rows.append(["cores", number(generator.get("cores"))])
    codes = [[e(code), number(n)] for code, n in sorted((report.get("errors") or {}).items())]
    body = table("Totals", ["figure", "value"], [[e(k), v] for k, v in rows])
    body += table("Errors by code", ["code", "calls"], codes) if codes else "<p>No errors.</p>"
    return section(
        "totals", "Totals", body + latency_table("Latency by name", latency_names(report))
    )


def per_game(report: dict[str, Any]) -> str:
    games: dict[str, dict[str, Any]] = report.get("per_game") or {}
    rows, details = [], []
    for game, figures in sorted(games.items()):
        matches, actions = figures.get("matches") or {}, figures.get("actions") or {}
        counts = [matches.get(k) for k in ("started", "completed", "failed")]
        counts += [actions.get("total"), actions.get("per_second")]
        counts += [(figures.get("turn") or {}).get(p) for p in ("p50_ms", "p99_ms")]
        errors = errors_text(figures.get("errors") or {})
        rows.append([e(game), *(number(n) for n in counts), errors])
        table_ = latency_table(f"{game} latency by name", latency_names(figures))
        details.append(f"<details><summary>{e(game)}: latency by name</summary>{table_}</details>")
    head = ["game", "started", "completed", "failed", "actions", "actions/s"]
    head += ["turn p50 (ms)", "turn p99 (ms)", "errors"]
    body = table("Per game", head, rows) + "".join(details)
    return section("games", "Per game", body) if games else ""


def charts(report: dict[str, Any]) -> str:
    drawn = timeline(report)
    step = float(report.get("interval_s") or 1.0)
    figures = "".join(figure(chart, n, step) for n, chart in enumerate(drawn))
    body = f'<div class="charts">{figures}</div>' if drawn else "<p>No per-interval samples.</p>"
    return section("over-time", "Over time", body)


def settings(report: dict[str, Any]) -> str:
    config = [[e(k), readable(v) or "—"] for k, v in (report.get("config") or {}).items()]
    body = table("Config", ["option", "value"], config) if config else "<p>No config.</p>"
    server = report.get("server")
    body += (
        fields(server, "Server (its /metrics, during the run)")
        if server
        else "<p>No server figures (no metrics URL).</p>"
    )
    if report.get("identities"):
        body += fields(report["identities"], "Identities")
    return section("config", "Config and server", body)


def section(ident: str, heading: str, body: str) -> str:
    return f'<section aria-labelledby="{ident}"><h2 id="{ident}">{heading}</h2>{body}</section>'


def render(report: dict[str, Any]) -> str:
    """The report as one HTML document (UTF-8 text)."""
    started = report.get("started_at")
    title = "meeple loadtest" + (f" {started}" if started else "")
    body = header(report) + "<main>" + slo_section(report) + totals(report) + per_game(report)
    body += charts(report) + settings(report) + "</main>"
    body += f"<footer><p>Schema {e(report.get('schema', 'unknown'))}.</p></footer>"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8" />'
        '<meta name="viewport" content="width=device-width, initial-scale=1" />'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\" />"
        f"<title>{e(title)}</title><style>{CSS}</style></head><body>{body}</body></html>\n"
    )
