"""``meeple loadtest`` as a user runs it, once, against its own meeple up:
ramp stages, the report over time in JSON, CSV and HTML (opened in
chromium), SLOs that set the exit code, the progress off a terminal, and
``meeple loadtest merge`` of its report."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from services.cli import app
from services.loadtest.report import decode, summary
from tests.web.conftest import expect_chart, offline_file

UNMEETABLE = "turn.p50<1us"
MET = "SubmitAction.p99<60s"


@dataclass(frozen=True)
class Run:
    exit_code: int
    output: str
    report: dict[str, Any]
    folder: Path


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    folder = tmp_path_factory.mktemp("loadtest")
    options = [
        "loadtest", "--game", "othello,volleyball", "--bots", "client", "--concurrency", "4",
        "--stages", "1s:6/s,1s:6/s", "--interval", "0.5",
        "--slo", MET, "--slo", UNMEETABLE, "--slo", "errors<1%",
        "--json", str(folder / "run.json"), "--csv", str(folder / "csv"),
        "--html", str(folder / "run.html"),
    ]  # fmt: skip
    result = CliRunner().invoke(app, options, env={"COLUMNS": "200"})
    report = json.loads((folder / "run.json").read_text())
    return Run(result.exit_code, result.output, report, folder)


def test_an_unmeetable_slo_exits_3_and_every_slo_is_listed(run: Run) -> None:
    assert run.exit_code == 3, run.output
    verdicts = {v["slo"]: v["passed"] for v in run.report["slos"]}
    assert verdicts == {MET: True, UNMEETABLE: False, "errors<1%": True}
    assert "FAILED" in run.output


def test_the_stages_start_the_matches_and_the_intervals_add_up(run: Run) -> None:
    report = run.report
    matches = report["matches"]
    # 3 starts over the ramp, then 6: each completes.
    assert 8 <= matches["started"] <= 10
    assert matches["completed"] == matches["started"]
    intervals = report["intervals"]
    assert report["interval_s"] == 0.5
    assert len(intervals) >= 4
    assert sum(i["matches_started"] for i in intervals) == matches["started"]
    assert sum(i["actions"] for i in intervals) == report["actions"]["total"]
    for name, stats in report["rpcs"].items():
        if name != "SignInGuest":  # made before the load: in no interval
            assert (
                sum(i["latency"].get(name, {"count": 0})["count"] for i in intervals)
                == (stats["count"])
            )
    assert intervals[-1]["matches_in_flight"] == 0
    assert all(i["cpu_percent"] is not None for i in intervals[:-1])
    # Our bots hold every seat: each turn is a submission of ours (dice are no turns).
    assert report["turn"]["count"] == report["rpcs"]["SubmitAction"]["count"]
    assert set(report["per_game"]) == {"othello", "volleyball"}
    assert report["versions"]["server"] == report["versions"]["meeple"]
    assert report["target"]["in_process"] is True
    assert any("meeple up in this process" in w for w in report["warnings"])


def test_off_a_terminal_progress_is_lines_and_the_report_starts_on_its_own(run: Run) -> None:
    lines = run.output.splitlines()
    assert any(line.startswith("loadtest: ") and "in flight" in line for line in lines)
    title = next(line for line in lines if "meeple loadtest report" in line)
    assert title.strip() == "meeple loadtest report"


def test_the_csv_files_match_the_json(run: Run) -> None:
    with (run.folder / "csv" / "intervals.csv").open() as rows:
        intervals = list(csv.DictReader(rows))
    assert len(intervals) == len(run.report["intervals"])
    assert sum(int(r["matches_started"]) for r in intervals) == run.report["matches"]["started"]


def test_a_merge_with_met_slos_exits_0(run: Run, tmp_path: Path) -> None:
    source = str(run.folder / "run.json")
    out = tmp_path / "merged.json"
    result = CliRunner().invoke(
        app, ["loadtest", "merge", source, source, "--slo", MET, "--json", str(out)]
    )
    merged = json.loads(out.read_text())
    assert result.exit_code == 0, (result.output, merged["errors"], merged["matches"])
    assert merged["matches"]["started"] == 2 * run.report["matches"]["started"]
    count = run.report["rpcs"]["SubmitAction"]["count"]
    assert merged["rpcs"]["SubmitAction"]["count"] == 2 * count
    # What one run over both sets of samples reads (HDR rounds a percentile's
    # rank, so it may be the next sample of the single run's).
    both = decode(run.report["histograms"]["SubmitAction"])
    both.add(decode(run.report["histograms"]["SubmitAction"]))
    assert merged["rpcs"]["SubmitAction"] == summary(both)
    assert [v["passed"] for v in merged["slos"]] == [True]
    refused = CliRunner().invoke(app, ["loadtest", "merge", source, str(run.folder / "run.html")])
    assert refused.exit_code == 2
    assert "cannot merge" in refused.stderr


def test_the_html_report_of_the_run_shows_its_charts_in_chromium(run: Run) -> None:
    with offline_file(run.folder / "run.html") as page:
        from playwright.sync_api import expect

        for name in ("SubmitAction latency over time", "turn latency over time"):
            expect_chart(page, name)
        expect(page.get_by_role("cell", name=UNMEETABLE, exact=True)).to_be_visible()
