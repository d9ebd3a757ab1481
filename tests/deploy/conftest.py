"""A real ``meeple up`` for the deploy tests that read its metrics."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.deploy.metrics_page import Served, start_meeple_up


@pytest.fixture(scope="session")
def meeple_up() -> Iterator[Served]:
    served = start_meeple_up()
    try:
        yield served
    finally:
        served.process.stop()
