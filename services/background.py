"""The loops a server runs beside its RPCs (bot runners, the clock sweeper,
gauges): each step is retried after a failure, with a growing pause, so a
store that restarts or a bug in one step never ends the loop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from services.errors import Unavailable

log = logging.getLogger("meeple.background")
MAX_PAUSE_SECONDS = 5.0


async def keep_running(
    name: str, step: Callable[[], Awaitable[object]], stop: asyncio.Event, interval: float = 0.0
) -> None:
    """Runs ``step`` until ``stop`` is set, ``interval`` seconds apart."""
    failures = 0
    while not stop.is_set():
        pause = interval
        try:
            await step()
            failures = 0
        except Unavailable as error:
            failures += 1
            log.warning("%s: %s (try %d)", name, error, failures)
        except Exception:
            failures += 1
            log.exception("%s failed (try %d)", name, failures)
        if failures:
            pause = max(interval, min(MAX_PAUSE_SECONDS, 0.05 * 2**failures))
        if pause:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), pause)
