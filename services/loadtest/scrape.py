"""The server's own figures for a load test: two scrapes of its Prometheus
/metrics, before and after, and what changed between them."""

from __future__ import annotations

import collections
import math
import urllib.request
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

Samples = dict[str, list[tuple[dict[str, str], float]]]


def scrape(urls: str, timeout: float = 5.0) -> Samples | None:
    """Every sample by name, of one endpoint or of several (``urls`` comma
    separated: the processes of one deployment, whose figures add up); None
    if an endpoint does not answer."""
    samples: Samples = collections.defaultdict(list)
    for url in urls.split(","):
        try:
            with urllib.request.urlopen(url.strip(), timeout=timeout) as answer:
                text = answer.read().decode()
        except OSError:
            return None
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                samples[sample.name].append((dict(sample.labels), sample.value))
    return samples


def queue_depth(samples: Samples) -> float:
    """AI decisions waiting, by the process that saw the most: the job queue
    is shared, so every process of a deployment reports it (adding them up
    would count it once per process)."""
    deepest: dict[str, float] = collections.defaultdict(float)
    for labels, value in samples.get("meeple_ai_queue_depth", []):
        kind = labels.get("kind", "")
        deepest[kind] = max(deepest[kind], value)
    return sum(deepest.values())


def version(samples: Samples) -> str | None:
    """The server's meeple version (``meeple_build_info``), when all its
    processes agree."""
    found = {labels.get("version") for labels, _ in samples.get("meeple_build_info", [])}
    return found.pop() if len(found) == 1 else None


def total(samples: Samples, name: str, **match: str) -> float:
    return sum(
        value
        for labels, value in samples.get(name, [])
        if all(labels.get(k) == v for k, v in match.items())
    )


def by_label(samples: Samples, name: str, label: str) -> dict[str, float]:
    sums: dict[str, float] = collections.defaultdict(float)
    for labels, value in samples.get(name, []):
        sums[labels.get(label, "")] += value
    return sums


def quantile(buckets: dict[float, float], q: float) -> float | None:
    """Prometheus's histogram_quantile over cumulative buckets (upper bound
    -> count), linear within a bucket."""
    bounds = sorted(buckets)
    if not bounds or buckets[bounds[-1]] <= 0:
        return None
    rank = q * buckets[bounds[-1]]
    lower, below = 0.0, 0.0
    for bound in bounds:
        count = buckets[bound]
        if count >= rank:
            if math.isinf(bound):
                return lower
            return lower + (bound - lower) * (rank - below) / max(count - below, 1e-12)
        lower, below = bound, count
    return lower


def histogram_change(
    before: Samples, after: Samples, name: str, **match: str
) -> dict[float, float]:
    """The cumulative buckets of a histogram's change, summed over labels."""

    def buckets(samples: Samples) -> dict[float, float]:
        sums: dict[float, float] = collections.defaultdict(float)
        for labels, value in samples.get(f"{name}_bucket", []):
            if all(labels.get(k) == v for k, v in match.items()):
                sums[float(labels["le"])] += value
        return sums

    start, end = buckets(before), buckets(after)
    return {bound: end[bound] - start.get(bound, 0.0) for bound in end}


def figures(before: Samples, after: Samples) -> dict[str, Any]:
    """What the server counted during the run."""
    codes_before = by_label(before, "grpc_server_handled_total", "grpc_code")
    codes_after = by_label(after, "grpc_server_handled_total", "grpc_code")
    rpcs = {code: int(n - codes_before.get(code, 0.0)) for code, n in codes_after.items()}

    def quantiles_ms(name: str, **match: str) -> dict[str, float | None]:
        change = histogram_change(before, after, name, **match)
        values = {q: quantile(change, q) for q in (0.5, 0.99)}
        return {
            f"p{round(q * 100)}_ms": None if v is None else round(v * 1000, 3)
            for q, v in values.items()
        }

    finished = total(after, "meeple_match_finished_total") - total(
        before, "meeple_match_finished_total"
    )
    return {
        "rpcs_by_code": {code: n for code, n in sorted(rpcs.items()) if n},
        "submit_action": quantiles_ms("grpc_server_handling_seconds", grpc_method="SubmitAction"),
        "ai_think": quantiles_ms("meeple_ai_think_seconds"),
        "matches_finished": int(finished),
        "ai_queue_depth": queue_depth(after),
        "ai_dead_letters": int(
            total(after, "meeple_ai_dead_letters_total")
            - total(before, "meeple_ai_dead_letters_total")
        ),
    }
