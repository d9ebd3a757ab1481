"""The metric names a PromQL expression reads, for checking dashboards and
rules against what the services export. A small scanner, not a parser: it
drops strings, label matchers, ranges and grouping clauses, then keeps the
identifiers that are neither functions nor keywords."""

from __future__ import annotations

import re

KEYWORDS = {
    "and", "or", "unless", "by", "without", "on", "ignoring", "group_left",
    "group_right", "offset", "bool", "inf", "nan",
}  # fmt: skip
STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
MATCHERS = re.compile(r"\{[^{}]*\}")
RANGES = re.compile(r"\[[^\]]*\]")
GROUPING = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")
OFFSETS = re.compile(r"\boffset\s+-?\w+")
IDENTIFIER = re.compile(r"(?<![\w.:$])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?")


def metric_names(expr: str) -> set[str]:
    """Every metric name ``expr`` selects (``rate(x_total[5m]) / y`` -> x_total, y)."""
    text = STRINGS.sub('""', expr)
    text = MATCHERS.sub("", text)
    text = RANGES.sub("", text)
    text = GROUPING.sub("", text)
    text = OFFSETS.sub("", text)
    names = set()
    for found in IDENTIFIER.finditer(text):
        name, call = found.groups()
        if call is None and name.lower() not in KEYWORDS:
            names.add(name)
    return names
