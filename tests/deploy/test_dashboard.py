"""The Grafana dashboard: it parses, it covers what operators watch, and
every expression reads only metrics the services export (a live scrape of
``meeple up``) or series the recording rules make; its Archive row reads
every archive metric that services/metrics.py defines, and no other."""

from __future__ import annotations

import json
from typing import Any

import yaml
from prometheus_client.metrics import MetricWrapperBase

from services import metrics
from tests.deploy.metrics_page import DEPLOY, Served, exported_names
from tests.deploy.promql import metric_names

DASHBOARD = DEPLOY / "grafana" / "dashboards" / "meeple.json"
RULES = DEPLOY / "prometheus" / "rules" / "meeple.yml"
# The series a query reads of each kind of metric (a counter's is NAME_total).
QUERIED_SERIES = {"counter": "_total", "gauge": "", "histogram": "_bucket"}


def dashboard_panels() -> list[dict[str, Any]]:
    dashboard = json.loads(DASHBOARD.read_text())
    return [panel for panel in dashboard["panels"] if panel["type"] != "row"]


def dashboard_expressions() -> list[str]:
    return [target["expr"] for panel in dashboard_panels() for target in panel["targets"]]


def row_panels(title: str) -> list[dict[str, Any]]:
    """The panels under the row ``title``, up to the next row."""
    panels: list[dict[str, Any]] = json.loads(DASHBOARD.read_text())["panels"]
    (start,) = [i for i, p in enumerate(panels) if p["type"] == "row" and p["title"] == title]
    under = []
    for panel in panels[start + 1 :]:
        if panel["type"] == "row":
            break
        under.append(panel)
    return under


def archive_series() -> set[str]:
    """The series a query reads of each archive metric of services/metrics.py."""
    series = set()
    for value in vars(metrics).values():
        if isinstance(value, MetricWrapperBase):
            for family in value.describe():
                if family.name.startswith("meeple_archive_"):
                    series.add(family.name + QUERIED_SERIES[family.type])
    return series


def recorded_names() -> set[str]:
    groups = yaml.safe_load(RULES.read_text())["groups"]
    return {rule["record"] for group in groups for rule in group["rules"] if "record" in rule}


def test_the_dashboard_reads_only_exported_or_recorded_series(meeple_up: Served) -> None:
    known = exported_names(meeple_up.scrape()) | recorded_names()
    unknown = {
        expr: sorted(metric_names(expr) - known)
        for expr in dashboard_expressions()
        if metric_names(expr) - known
    }
    assert unknown == {}


def test_the_dashboard_shows_what_the_issue_asks_for() -> None:
    read = set().union(*(metric_names(expr) for expr in dashboard_expressions()))
    wanted = {
        "grpc_server_handled_total",  # RPC rates by method
        "grpc_server_handling_seconds_bucket",  # latency by method
        "meeple_ai_queue_depth",
        "meeple_ai_job_age_seconds_bucket",
        "meeple_ai_think_seconds_bucket",  # by game and bot
        "meeple_match_active",
        "meeple_match_finished_total",
        "meeple_matchmaking_assignment_seconds_bucket",
        "meeple_archive_outbox_entries",  # the archive's backlog
        "meeple_archive_write_lag_seconds_bucket",  # p50 and p99
        "meeple_archive_written_total",  # rows a second, by kind
        "meeple_archive_write_errors_total",
        "meeple_archive_size_bytes",
        "meeple_archive_matches",
    }
    assert wanted - read == set()
    titles = [panel["title"] for panel in dashboard_panels()]
    assert len(titles) == len(set(titles)), titles


def test_every_panel_has_a_data_source_and_a_unique_place() -> None:
    panels = dashboard_panels()
    assert all(panel["datasource"]["uid"] == "${datasource}" for panel in panels)
    ids = [panel["id"] for panel in panels]
    assert len(ids) == len(set(ids))
    places = [(p["gridPos"]["x"], p["gridPos"]["y"]) for p in panels]
    assert len(places) == len(set(places))


def test_the_archive_row_shows_every_archive_metric() -> None:
    """Its panels read each metric of the archive that services/metrics.py
    defines and nothing else; the rows written are split by kind, and the
    lag is shown at p50 and p99."""
    panels = row_panels("Archive")
    expressions = [target["expr"] for panel in panels for target in panel["targets"]]
    read = set().union(*(metric_names(expr) for expr in expressions))
    assert read == archive_series()
    assert any(
        "by (kind)" in expr and "meeple_archive_written_total" in expr for expr in expressions
    )
    lag = [expr for expr in expressions if "meeple_archive_write_lag_seconds_bucket" in expr]
    assert sorted(expr.split(",")[0] for expr in lag) == [
        "histogram_quantile(0.5",
        "histogram_quantile(0.99",
    ]
    units = {panel["title"]: panel["fieldConfig"]["defaults"]["unit"] for panel in panels}
    assert units["Archive size"] == "bytes"
    assert units["Archive write lag p50 and p99"] == "s"
