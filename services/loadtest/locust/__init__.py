"""Locust users that play meeple over its public gRPC API, for load from many
machines: one Locust master and its workers (docs/locust.md).

This module imports nothing of Locust's (importing Locust patches the
standard library with gevent): it only says where the shipped locustfile is,
for ``locust -f "$(meeple loadtest locustfile)"`` (not run from a source tree
that is not compiled: Python and locust put the working directory first on
sys.path)."""

from __future__ import annotations

from pathlib import Path

LOCUSTFILE = Path(__file__).resolve().with_name("locustfile.py")


def print_locustfile() -> None:
    """Prints the shipped locustfile's path (a CLI entry: ``meeple loadtest
    locustfile``, and ``python -m services.loadtest.locust``)."""
    print(LOCUSTFILE)
