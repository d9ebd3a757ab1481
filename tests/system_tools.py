"""Programs some tests need from the system (redis-server, prometheus):
without one, those tests are skipped with a message saying how to install
it, unless its MEEPLE_REQUIRE_* variable is 1 (as CI sets), which makes its
absence a failure."""

from __future__ import annotations

import os

import pytest


def require_installed(installed: bool, message: str, variable: str) -> None:
    """Skips the calling test when not ``installed``, or fails it when the
    environment variable ``variable`` is 1."""
    if installed:
        return
    if os.environ.get(variable) == "1":
        pytest.fail(message)
    pytest.skip(message)
