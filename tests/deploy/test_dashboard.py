"""The Grafana dashboard: it parses, it covers what operators watch, and
every expression reads only metrics the services export (a live scrape of
``meeple up``) or series the recording rules make."""

from __future__ import annotations

import json
from typing import Any

import yaml

from tests.deploy.metrics_page import DEPLOY, Served, exported_names
from tests.deploy.promql import metric_names

DASHBOARD = DEPLOY / "grafana" / "dashboards" / "meeple.json"
RULES = DEPLOY / "prometheus" / "rules" / "meeple.yml"


def dashboard_panels() -> list[dict[str, Any]]:
    dashboard = json.loads(DASHBOARD.read_text())
    return [panel for panel in dashboard["panels"] if panel["type"] != "row"]


def dashboard_expressions() -> list[str]:
    return [target["expr"] for panel in dashboard_panels() for target in panel["targets"]]


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
