"""A ``meeple`` process's /metrics page for the deploy tests: where it is,
what it offers, and ``meeple up`` started as a user starts it."""

from __future__ import annotations

import atexit
import shutil
import tempfile
import urllib.request
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from tests.e2e.processes import Meeple

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
QUIET = {"MEEPLE_LOG_LEVEL": "WARNING"}
SERIES_SUFFIXES = {
    "counter": ("_total",),
    "histogram": ("_bucket", "_count", "_sum"),
    "summary": ("", "_count", "_sum"),
}


class Served:
    """A ``meeple`` process and its metrics URL."""

    def __init__(self, process: Meeple) -> None:
        self.process = process
        port = process.wait_for(r"metrics: http://[^:]+:(\d+)/metrics", 30).group(1)
        self.metrics_url = f"http://127.0.0.1:{port}/metrics"
        self.metrics_target = f"127.0.0.1:{port}"

    def scrape(self) -> str:
        with urllib.request.urlopen(self.metrics_url, timeout=5) as answer:
            text: str = answer.read().decode()
        return text


def start_meeple_up() -> Served:
    """``meeple up`` on free ports (its web port too, 8080 by default), with
    a data directory of its own (its guest key and its SQLite archive),
    removed at exit, rather than the user's."""
    data_dir = tempfile.mkdtemp(prefix="meeple-up-")
    atexit.register(shutil.rmtree, data_dir, ignore_errors=True)
    env = {**QUIET, "MEEPLE_DATA_DIR": data_dir}
    return Served(Meeple("up", "--port", "0", "--metrics-port", "0", "--web-port", "0", env=env))


def exported_names(page: str) -> set[str]:
    """Every series name a /metrics page offers, also for labelled metrics
    that have no sample yet (their HELP and TYPE lines name them)."""
    names = set()
    for family in text_string_to_metric_families(page):
        names.update(sample.name for sample in family.samples)
        suffixes = SERIES_SUFFIXES.get(family.type, ("",))
        names.update(family.name + suffix for suffix in suffixes)
    return names
