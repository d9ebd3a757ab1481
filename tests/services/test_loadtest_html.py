"""``meeple loadtest --html``'s document (services/loadtest/html.py) on
reports made by hand: well-formed, self-contained (nothing it would fetch),
every chart present and named, hostile strings from the report escaped,
empty, one-interval and CPU-less reports drawn; and once in Debian's
chromium, offline: no request but the file's own, no console or page error,
the charts and the SLO table found by role."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from services.loadtest.charts import ticks
from services.loadtest.html import render
from tests.web.conftest import expect_chart, offline_file


def figures(count: int, p50: float = 1.0) -> dict[str, Any]:
    return {"count": count, "p50_ms": p50, "p95_ms": p50 * 2, "p99_ms": p50 * 3, "max_ms": p50 * 4}


def interval(t: float, cpu: float | None = 50.0, **latency: dict[str, Any]) -> dict[str, Any]:
    return {
        "t": t,
        "start": 1796232460.0 + t,
        "matches_started": 4,
        "matches_completed": 2,
        "matches_in_flight": 2,
        "actions": 120,
        "errors": {"UNAVAILABLE": 1} if t == 2.0 else {},
        "cpu_percent": cpu,
        "latency": latency
        or {"SubmitAction": figures(50), "turn": figures(20, 5.0), "CreateMatch": figures(4)},
        "histograms": {"SubmitAction": "HISTFAAAAA=="},
    }


def report() -> dict[str, Any]:
    """A run of two games over five intervals, with a gap (3 and 4 are missing)
    and a CPU sample missing; one SLO passed and one failed."""
    rpcs = {"CreateMatch": figures(100), "SubmitAction": figures(6012), "WatchMatch": figures(40)}
    game = {
        "matches": {"started": 50, "completed": 50, "failed": 0},
        "actions": {"total": 3006, "per_second": 244.4},
        "rpcs": rpcs,
        "turn": figures(3000, 5.0),
        "errors": {},
    }
    return {
        "schema": "meeple.loadtest/1",
        "started_at": "2026-12-02T18:00:00.000+00:00",
        "ended_at": "2026-12-02T18:00:12.300+00:00",
        "versions": {"meeple": "0.1.0", "python": "3.11.7", "grpcio": "1.85.1", "server": None},
        "target": {
            "address": "127.0.0.1:50051",
            "in_process": True,
            "description": "in-process meeple up (shares the load generator's process and CPU)",
        },
        "config": {"target": None, "games": ["othello", "rolit"], "matches": 100, "rate": None},
        "duration_s": 12.3,
        "matches": {"started": 100, "completed": 100, "failed": 0, "per_second": 8.1},
        "actions": {"total": 6012, "per_second": 488.8},
        "rpcs": rpcs,
        "turn": figures(6000, 5.0),
        "assignment": None,
        "spectator_lag": None,
        "errors": {"UNAVAILABLE": 1},
        "per_game": {"othello": game, "rolit": copy.deepcopy(game)},
        "interval_s": 1.0,
        "intervals": [
            interval(0.0),
            interval(1.0, cpu=None),
            interval(2.0),
            interval(5.0),
            interval(6.0),
        ],
        "generator": {"cpu_percent": 61.0, "cpu_percent_max": 92.5, "cores": 2},
        "histograms": {"SubmitAction": "HISTFAAAAA=="},
        "slos": [
            {
                "slo": "SubmitAction.p99<50ms",
                "value": 3.0,
                "threshold": 50.0,
                "unit": "ms",
                "passed": True,
            },
            {
                "slo": "turn.p99<10ms",
                "value": 15.0,
                "threshold": 10.0,
                "unit": "ms",
                "passed": False,
            },
        ],
        "warnings": ["generator CPU above 85% in 1 of 5 intervals"],
        "server": {
            "rpcs_by_code": {"OK": 100},
            "submit_action": {"p50_ms": None, "p99_ms": None},
            "ai_think": {"p50_ms": 0.5, "p99_ms": 1.0},
            "matches_finished": 100,
            "ai_queue_depth": 0.0,
            "ai_dead_letters": None,
        },
        "identities": None,
    }


TITLES = [
    "Actions per second over time",
    "Matches per second over time",
    "CreateMatch latency over time",
    "SubmitAction latency over time",
    "turn latency over time",
    "Errors per interval over time",
    "Matches in flight over time",
    "Generator CPU over time",
]


def parse(document: str) -> ET.Element:
    """The document as XML: it is written well-formed (no named entities)."""
    assert document.startswith("<!DOCTYPE html>\n")
    return ET.fromstring(document.removeprefix("<!DOCTYPE html>\n"))


def text(element: ET.Element) -> str:
    return "".join(element.itertext())


def charts(root: ET.Element) -> dict[str, ET.Element]:
    """Each chart's figure by its svg's accessible name (its labelling <title>)."""
    titles = {t.get("id"): text(t) for t in root.iter("title") if t.get("id")}
    named = {}
    for fig in root.iter("figure"):
        svg = fig.find("svg")
        assert svg is not None
        assert svg.get("role") == "img"
        assert fig.find("figcaption") is not None
        assert fig.find("ul[@class='legend']") is not None
        named[titles[svg.get("aria-labelledby")]] = fig
    return named


def table(root: ET.Element, caption: str) -> list[list[str]]:
    for found in root.iter("table"):
        if text(found.find("caption")) == caption:  # type: ignore[arg-type]
            return [[text(cell) for cell in row] for row in found.iter("tr")]
    raise AssertionError(f"no table {caption!r}")


def test_every_chart_present_by_title_with_axes_and_lines() -> None:
    named = charts(parse(render(report())))
    # WatchMatch has no interval samples: no chart of it.
    assert list(named) == TITLES
    submit = named["SubmitAction latency over time"]
    assert [text(li) for li in submit.iter("li")] == ["p50", "p95", "p99"]
    ticks = [text(t) for t in submit.iter("text")]
    assert "seconds since start (s)" in ticks
    assert "ms" in ticks
    assert "0" in ticks
    assert "6" in ticks
    # The gap between t=2 and t=5 breaks each line in two.
    assert len(list(submit.iter("polyline"))) == 6


def test_ticks_are_round_and_counts_whole() -> None:
    assert ticks(0) == [0, 0.2, 0.4, 0.6, 0.8, 1]
    assert ticks(488.8) == [0, 100, 200, 300, 400, 500]
    assert ticks(0.012) == [0, 0.0025, 0.005, 0.0075, 0.01, 0.0125]
    assert ticks(1, whole=True) == [0, 1]
    errors = charts(parse(render(report())))["Errors per interval over time"]
    assert [text(t) for t in errors.iter("text")][:2] == ["0", "1"]


def test_failed_matches_drawn_when_there_are_any() -> None:
    legend = ["completed/s", "started/s"]
    matches = charts(parse(render(report())))["Matches per second over time"]
    assert [text(li) for li in matches.iter("li")] == legend
    data = report()
    data["intervals"][1]["matches_failed"] = 1
    matches = charts(parse(render(data)))["Matches per second over time"]
    assert [text(li) for li in matches.iter("li")] == [*legend, "failed/s"]


def test_nothing_fetched_and_no_script() -> None:
    document = render(report())
    for fetched in ("http:", "https:", "src=", "<link", "@import", "url(", "<script"):
        assert fetched not in document
    assert "default-src 'none'" in document


def test_hostile_strings_are_escaped() -> None:
    hostile = "<script>alert(1)</script>&\"'"
    data = report()
    data["per_game"] = {hostile: data["per_game"]["othello"]}
    data["errors"] = {hostile: 3}
    data["intervals"][0]["errors"] = {hostile: 1}
    data["intervals"][0]["latency"] = {hostile: figures(5)}
    data["warnings"] = [hostile]
    data["slos"][0]["slo"] = hostile
    data["config"]["bot_spec"] = hostile
    data["versions"]["server"] = hostile
    document = render(data)
    assert "<script>" not in document
    root = parse(document)
    assert not list(root.iter("script"))
    assert [hostile, "3"] in table(root, "Errors by code")
    assert hostile in [row[0] for row in table(root, "Per game")]
    assert hostile in [row[0] for row in table(root, "SLO results")]
    assert f"{hostile} latency over time" in charts(root)
    assert hostile in [text(li) for li in root.iter("li")]


def test_an_empty_report() -> None:
    data = report()
    data.update(intervals=[], slos=[], warnings=[], per_game={}, turn=None, server=None)
    data.update(rpcs={}, errors={}, matches={"started": 0, "completed": 0, "failed": 0})
    root = parse(render(data))
    assert charts(root) == {}
    body = text(root)
    for said in ("No per-interval samples", "No SLOs were set", "No errors", "no calls"):
        assert said in body


def test_a_report_without_the_newer_fields() -> None:
    old = {
        k: v
        for k, v in report().items()
        if k in {"schema", "config", "duration_s", "matches", "actions", "rpcs", "errors"}
    }
    body = text(parse(render(old)))
    assert "meeple loadtest" in body
    assert "No per-interval samples" in body


def test_one_interval_of_zeros_is_drawn_as_dots() -> None:
    data = report()
    zero = interval(0.0, cpu=0.0, SubmitAction=figures(1, 0.0))
    zero.update(matches_started=0, matches_completed=0, matches_in_flight=0, actions=0)
    data["intervals"] = [zero]
    document = render(data)
    assert "nan" not in document.lower()
    named = charts(parse(document))
    assert "SubmitAction latency over time" in named
    for fig in named.values():
        assert not list(fig.iter("polyline"))
        assert list(fig.iter("circle"))


def test_missing_cpu_breaks_the_line_or_says_no_samples() -> None:
    cpu = charts(parse(render(report())))["Generator CPU over time"]
    # t=0 alone (t=1 has no sample), then t=2, then t=5 to 6 after the gap.
    assert len(list(cpu.iter("circle"))) == 2
    assert len(list(cpu.iter("polyline"))) == 1
    data = report()
    for each in data["intervals"]:
        each["cpu_percent"] = None
    cpu = charts(parse(render(data)))["Generator CPU over time"]
    assert "no samples" in text(cpu)
    assert "100" in [text(t) for t in cpu.iter("text")]


def test_times_in_utc_and_long_durations_in_minutes() -> None:
    data = report()
    data.update(started_at="2026-12-02T19:00:00+01:00", ended_at="2026-12-02T18:12:05")
    data["duration_s"] = 725.0
    header = text(parse(render(data)).find("body/header"))  # type: ignore[arg-type]
    assert "started2026-12-02 18:00:00 UTC" in header
    assert "ended2026-12-02 18:12:05 UTC" in header
    assert "725.00 s (12 min 5 s)" in header
    data.update(started_at="yesterday <b>", duration_s=None)
    header = text(parse(render(data)).find("body/header"))  # type: ignore[arg-type]
    assert "startedyesterday <b>" in header
    assert "duration—target" in header


def test_slos_failed_shown_as_failed() -> None:
    root = parse(render(report()))
    rows = table(root, "SLO results")
    assert rows[1] == ["SubmitAction.p99<50ms", "✔ passed", "3.00 ms", "50.00 ms"]
    assert rows[2] == ["turn.p99<10ms", "✘ failed", "15.00 ms", "10.00 ms"]
    assert "1 of 2 SLOs failed" in text(root)
    data = report()
    data["slos"] = data["slos"][:1]
    assert "All 1 SLOs passed" in text(parse(render(data)))


def test_small_samples_flagged() -> None:
    rows = {row[0]: row for row in table(parse(render(report())), "Latency by name")[1:]}
    assert rows["WatchMatch"][1] == "40"
    assert rows["WatchMatch"][-1] == "small sample"
    assert rows["SubmitAction"][1] == "6,012"
    assert rows["SubmitAction"][-1] == ""
    assert "turn" in rows


def test_header_config_and_server_read_as_text() -> None:
    document = render(report())
    root = parse(document)
    header = text(root.find("body/header"))  # type: ignore[arg-type]
    for said in (
        "2026-12-02 18:00:00 UTC",
        "2026-12-02 18:00:12 UTC",
        "12.30 s",
        "127.0.0.1:50051",
    ):
        assert said in header
    assert "shares the load generator's process and CPU" in header
    assert "grpcio: 1.85.1" in header
    assert "None" not in document
    assert "{'" not in document
    config = {row[0]: row[1] for row in table(root, "Config")[1:]}
    assert config["games"] == "othello, rolit"
    assert config["target"] == "—"
    server = {row[0]: row[1] for row in table(root, "Server (its /metrics, during the run)")[1:]}
    assert server == {
        "rpcs_by_code": "OK: 100",
        "ai_think": "p50: 0.50 ms, p99: 1.00 ms",
        "matches_finished": "100",
        "ai_queue_depth": "0.00",
    }


def test_in_a_browser_offline(tmp_path: Path) -> None:
    path = tmp_path / "report.html"
    path.write_text(render(report()), encoding="utf-8")
    with offline_file(path) as page:
        from playwright.sync_api import expect

        for title in TITLES:
            expect_chart(page, title)
        slos = page.get_by_role("table", name="SLO results")
        expect(slos.get_by_role("row").filter(has_text="turn.p99<10ms")).to_contain_text("failed")
        expect(slos.get_by_role("columnheader", name="threshold")).to_be_visible()
        expect(page.get_by_role("heading", name="SLO results")).to_be_visible()
