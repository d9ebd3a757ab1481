"""Thresholds a load test must meet (``--slo``): each one is checked against
the finished report (one run's, or merged ones'), listed in it as passed
or failed, and any failed one makes the exit code non-zero.

    SubmitAction.p99<50ms    a latency's percentile (p50, p99.9, any) or max
    turn.p95<=200ms          ms, s or us; any name of the report's latencies
    errors<0.1%              calls that failed, of all calls (or a count: errors<5)
    failed<1                 matches that failed (a count, or a share: failed<1%)
    actions/s>=400           throughput: actions/s or matches/s
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from services.loadtest.recorder import NOT_RPCS
from services.loadtest.report import decode

OPERATORS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    ">=": operator.ge,
    "<": operator.lt,
    ">": operator.gt,
}
UNITS_MS = {"ms": 1.0, "s": 1000.0, "us": 0.001}
LATENCY = re.compile(
    r"^(?P<name>[A-Za-z_]+)\.(?P<stat>max|p\d+(?:\.\d+)?)\s*(?P<op><=|>=|<|>)\s*"
    r"(?P<value>\d+(?:\.\d+)?)\s*(?P<unit>ms|s|us)$"
)
SHARE = re.compile(
    r"^(?P<name>errors|failed)\s*(?P<op><=|>=|<|>)\s*(?P<value>\d+(?:\.\d+)?)\s*(?P<unit>%?)$"
)
RATE = re.compile(r"^(?P<name>actions/s|matches/s)\s*(?P<op><=|>=|<|>)\s*(?P<value>\d+(?:\.\d+)?)$")


@dataclass(frozen=True)
class Slo:
    text: str
    kind: str  # "latency", "errors", "failed" or "rate"
    name: str
    stat: str  # for a latency: "max" or a percentile like "p99"
    op: str
    threshold: float  # in the unit below
    unit: str  # "ms", "%", "" (a count) or "/s"

    def check(self, report: dict[str, Any]) -> dict[str, Any]:
        value, detail = self.value_of(report)
        passed = value is not None and OPERATORS[self.op](value, self.threshold)
        return {
            "slo": self.text,
            "value": None if value is None else round(value, 3),
            "threshold": self.threshold,
            "unit": self.unit,
            "passed": passed,
            "detail": detail,
        }

    def value_of(self, report: dict[str, Any]) -> tuple[float | None, str]:
        if self.kind == "latency":
            text = report["histograms"].get(self.name)
            values = decode(text) if text else None
            if values is None or values.get_total_count() == 0:
                return None, f"no samples of {self.name}"
            count = values.get_total_count()
            if self.stat == "max":
                return values.get_max_value() / 1000, f"{count} samples"
            percentile = float(self.stat[1:])
            return values.get_value_at_percentile(percentile) / 1000, f"{count} samples"
        if self.kind == "rate":
            key = self.name.removesuffix("/s")
            return report[key]["per_second"], ""
        if self.kind == "errors":
            errors = sum(report["errors"].values())
            calls = errors + sum(
                decode(text).get_total_count()
                for name, text in report["histograms"].items()
                if name not in NOT_RPCS
            )
            return self.count_or_share(errors, calls, "calls")
        matches = report["matches"]
        return self.count_or_share(matches["failed"], matches["started"], "matches")

    def count_or_share(self, part: int, whole: int, of: str) -> tuple[float | None, str]:
        detail = f"{part} of {whole} {of}"
        if self.unit != "%":
            return float(part), detail
        return (100 * part / whole if whole else 0.0), detail


def parse(text: str) -> Slo:
    """One ``--slo``; ValueError saying what is wrong."""
    compact = text.strip()
    if found := LATENCY.match(compact):
        stat = found["stat"]
        if stat != "max" and not 0 < float(stat[1:]) <= 100:
            raise ValueError(f"--slo {text!r}: a percentile is p0 < pN <= p100")
        threshold = float(found["value"]) * UNITS_MS[found["unit"]]
        return Slo(compact, "latency", found["name"], stat, found["op"], threshold, "ms")
    if found := SHARE.match(compact):
        name = found["name"]
        return Slo(compact, name, name, "", found["op"], float(found["value"]), found["unit"])
    if found := RATE.match(compact):
        name = found["name"]
        return Slo(compact, "rate", name, "", found["op"], float(found["value"]), "/s")
    raise ValueError(
        f"--slo {text!r}: write NAME.p99<50ms (a latency's percentile or max, in ms, s or us), "
        "errors<0.1%, failed<1, or actions/s>=100 (matches/s too)"
    )


def check(report: dict[str, Any], slos: list[Slo]) -> bool:
    """Writes each SLO's verdict into ``report["slos"]``; whether all passed."""
    report["slos"] = [slo.check(report) for slo in slos]
    return all(verdict["passed"] for verdict in report["slos"])


def judges_errors(slos: list[Slo]) -> bool:
    """Whether an SLO sets how many errors are acceptable (else any fails the run)."""
    return any(slo.kind in ("errors", "failed") for slo in slos)
