"""The timing loop the benchmark scripts share (imported as ``timing``: the
scripts run as ``python benchmarks/NAME.py``, which puts this folder on the
path)."""

from __future__ import annotations

import time
from collections.abc import Callable


def rate(run: Callable[[int], object], seconds: float) -> float:
    """Calls per second of the work ``run(n)`` does ``n`` times, growing ``n``
    until one batch lasts at least ``seconds``."""
    n = 1
    while True:
        start = time.perf_counter()
        run(n)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed
        n = max(n * 2, int(n * seconds / max(elapsed, 1e-6) * 1.1))
