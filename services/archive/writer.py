"""The archiver: drains the coordination store's outbox into the archive.

Any number of processes run it side by side (each takes entries no other
holds). A batch is written in one transaction, then acknowledged; a
process that dies in between leaves its entries pending, and another
taker (or itself) writes them again after the visibility timeout, which
the archive's idempotent writes make a no-op. So every finished match is
archived exactly once, and its live copy then expires as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from services.archive.base import Archive
from services.archive.entries import archived_match, rating_changes
from services.archive.records import ArchivedMatch, RatingChange
from services.background import keep_running
from services.coordination.memory import wall_ms
from services.coordination.outbox import OutboxEntry, OutboxStore
from services.errors import Unavailable
from services.metrics import (
    ARCHIVE_MATCHES,
    ARCHIVE_OUTBOX_ENTRIES,
    ARCHIVE_SIZE_BYTES,
    ARCHIVE_WRITE_ERRORS,
    ARCHIVE_WRITE_LAG_SECONDS,
    ARCHIVE_WRITTEN,
)

log = logging.getLogger("meeple.archive")
BATCH = 100  # entries a pull takes from each outbox stream at most
# The pause after a pull that found less than a full batch: the matches that
# finish meanwhile are written together. Without it a busy archiver wrote one
# or two matches at a time, back to back, and cost the bot games 12 to 16% of
# their rate (0.88x on SQLite, 0.84x on PostgreSQL; 0.99x with it).
GATHER_SECONDS = 0.2
GAUGE_SECONDS = 15.0
# The outbox stays enabled this long after an archiver's last renewal, and
# each archiver renews it every RENEW_SECONDS: the steps of every process
# of the store write entries while some archiver lives (and for a while
# after, so that a restart loses nothing).
OUTBOX_SECONDS = 600.0
RENEW_SECONDS = 30.0


def rows(
    entries: list[OutboxEntry],
) -> tuple[list[ArchivedMatch], list[RatingChange], list[OutboxEntry]]:
    """The entries' rows, and the entries that made rows. An
    entry that cannot be archived (a record from before the archive) is
    logged and left: it comes back, and stays visible in the outbox gauge."""
    matches: list[ArchivedMatch] = []
    changes: list[RatingChange] = []
    done: list[OutboxEntry] = []
    for entry in entries:
        try:
            if entry.match is not None:
                matches.append(archived_match(entry.match))
            elif entry.ratings is not None:
                changes += rating_changes(entry.ratings, entry.queued_ms)
        except (ValueError, KeyError) as error:
            log.error("cannot archive outbox entry %s: %s", entry.receipt, error)
            continue
        done.append(entry)
    return matches, changes, done


async def archive_once(store: OutboxStore, archive: Archive) -> int:
    """Takes a batch from the outbox, writes it and acknowledges it; how
    many entries it archived."""
    entries = await store.pull_outbox(BATCH)
    if not entries:
        return 0
    matches, changes, done = rows(entries)
    try:
        await archive.write(matches, changes)
    except Exception as error:
        ARCHIVE_WRITE_ERRORS.inc()
        raise Unavailable(f"the archive refused a write: {error}") from error
    await store.ack_outbox([entry.receipt for entry in done])
    now = wall_ms()
    for entry in done:
        ARCHIVE_WRITE_LAG_SECONDS.observe(max(0, now - entry.queued_ms) / 1000)
    ARCHIVE_WRITTEN.labels("match").inc(len(matches))
    ARCHIVE_WRITTEN.labels("rating").inc(len(changes))
    return len(done)


async def run_archiver(store: OutboxStore, archive: Archive, stop: asyncio.Event) -> None:
    """Drains the outbox until ``stop``, renewing it as it goes."""
    renew_at = 0.0

    async def step() -> None:
        nonlocal renew_at
        if time.monotonic() >= renew_at:
            await store.enable_outbox(OUTBOX_SECONDS)
            renew_at = time.monotonic() + RENEW_SECONDS
        if await archive_once(store, archive) < BATCH:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), GATHER_SECONDS)

    await keep_running("archiver", step, stop)


async def run_archive_gauges(store: OutboxStore, archive: Archive, stop: asyncio.Event) -> None:
    async def sample() -> None:
        ARCHIVE_OUTBOX_ENTRIES.set(await store.outbox_size())
        size = await archive.size()
        ARCHIVE_SIZE_BYTES.set(size.bytes)
        ARCHIVE_MATCHES.set(size.matches)

    await keep_running("archive gauges", sample, stop, GAUGE_SECONDS)
