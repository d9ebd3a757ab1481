"""Ends the matches whose turn clock ran out, even when nobody calls: every
``settings.sweep_interval`` seconds it asks the store for the matches past
their deadline and times each out (a compare-and-set like any change, so
several servers may sweep at once)."""

from __future__ import annotations

import asyncio
import logging

from services.background import keep_running
from services.errors import Aborted, NotFound
from services.match_service import logic
from services.match_service.logic import Matches

log = logging.getLogger("meeple.sweeper")
BATCH = 100


async def sweep(m: Matches) -> int:
    """Times out the matches due now; how many it ended."""
    ended = 0
    for match_id in await m.coordination.due_matches(m.now_ms(), BATCH):
        try:
            ended += await logic.time_out(m, match_id)
        except (Aborted, NotFound):
            pass  # it changed or went meanwhile; a later sweep sees it again if still due
        except Exception:
            log.exception("timing out match %s failed", match_id)
    return ended


async def run_sweeper(m: Matches, stop: asyncio.Event) -> None:
    await keep_running("clock sweeper", lambda: sweep(m), stop, m.settings.sweep_interval)
