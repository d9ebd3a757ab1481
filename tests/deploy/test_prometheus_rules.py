"""The Prometheus files under deploy/prometheus, checked by promtool: both
scrape configs (with the rule files they load), the rules, and the rule
unit tests, which must cover every alert."""

from __future__ import annotations

import yaml

from tests.deploy.metrics_page import DEPLOY, Served, exported_names
from tests.deploy.promql import metric_names
from tests.prometheus_server import promtool

PROMETHEUS = DEPLOY / "prometheus"
RULES = PROMETHEUS / "rules" / "meeple.yml"
RULE_TESTS = PROMETHEUS / "tests" / "meeple.test.yml"
# Series Prometheus makes itself for every target.
SCRAPE_SERIES = {"up"}


def rules() -> list[dict[str, str]]:
    groups = yaml.safe_load(RULES.read_text())["groups"]
    return [rule for group in groups for rule in group["rules"]]


def test_promtool_accepts_both_scrape_configs() -> None:
    for config in ("prometheus.yml", "kubernetes.yml"):
        output = promtool("check", "config", str(PROMETHEUS / config))
        assert "is valid prometheus config file syntax" in output, output
        assert f"SUCCESS: {len(rules())} rules found" in output, output  # it loaded rules/


def test_promtool_accepts_the_rules() -> None:
    output = promtool("check", "rules", str(RULES))
    assert f"SUCCESS: {len(rules())} rules found" in output, output


def test_the_rule_unit_tests_pass() -> None:
    assert "SUCCESS" in promtool("test", "rules", str(RULE_TESTS))


def test_every_alert_has_a_unit_test_that_fires_it() -> None:
    alerts = {rule["alert"] for rule in rules() if "alert" in rule}
    fired = set()
    for case in yaml.safe_load(RULE_TESTS.read_text())["tests"]:
        for check in case.get("alert_rule_test", []):
            if check.get("exp_alerts"):
                fired.add(check["alertname"])
    assert alerts - fired == set()
    assert {
        "MeepleAIQueueBacklogGrowing",
        "MeepleAIJobsPastDeadline",
        "MeepleAIDeadLetters",
        "MeepleRPCErrorRatioHigh",
        "MeepleRPCLatencyP99High",
        "MeepleMatchmakingWaitHigh",
        "MeepleNoHealthyWorkers",
        "MeepleArchiveBehind",
        "MeepleArchiveWriteErrors",
        "MeepleArchiveWriteLagHigh",
    } <= alerts


def test_rules_read_only_exported_series(meeple_up: Served) -> None:
    known = exported_names(meeple_up.scrape()) | SCRAPE_SERIES
    known |= {rule["record"] for rule in rules() if "record" in rule}
    unknown = {
        rule.get("record") or rule["alert"]: sorted(metric_names(rule["expr"]) - known)
        for rule in rules()
        if metric_names(rule["expr"]) - known
    }
    assert unknown == {}
