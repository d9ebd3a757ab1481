"""The archiver (``services/archive/writer.py``) between the memory store's
outbox and a real SQLite archive: every finished match is written once, and
matches that finish one after another are gathered into a few writes, not
one write each. A loop of one-match writes cost the bot games 12 to 16% of
their rate (``benchmarks/archive_writes.py``)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from services.archive.database import sqlite_url
from services.archive.records import ArchivedMatch, RatingChange
from services.archive.sql import SqlArchive
from services.archive.writer import run_archiver
from services.coordination import MemoryCoordination
from tests.services.test_outbox_store import play_to_the_end

MATCHES = 20
WRITE_SECONDS = 0.02  # each write's time, as on a busy database
DRAINED_SECONDS = 5.0  # the outbox is empty this soon, or the test fails


class CountingArchive(SqlArchive):
    """The real archive, counting the matches of each write, each write
    taking at least WRITE_SECONDS."""

    def __init__(self, url: str) -> None:
        super().__init__(url, migrate=True)
        self.writes: list[int] = []

    async def write(self, matches: list[ArchivedMatch], changes: list[RatingChange]) -> None:
        self.writes.append(len(matches))
        await asyncio.gather(super().write(matches, changes), asyncio.sleep(WRITE_SECONDS))


def test_matches_finishing_one_after_another_are_written_once_in_a_few_writes(
    tmp_path: Path,
) -> None:
    async def scenario() -> list[int]:
        store = MemoryCoordination()
        await store.enable_outbox(60)
        archive = CountingArchive(sqlite_url(tmp_path))
        await archive.start()
        stop = asyncio.Event()
        archiver = asyncio.create_task(run_archiver(store, archive, stop))
        try:
            # 10 ms apart: more finish during each write than it takes.
            for index in range(MATCHES):
                await play_to_the_end(store, f"m{index}", returns=[1.0, 0.0])
                await asyncio.sleep(0.01)
            deadline = time.monotonic() + DRAINED_SECONDS
            while await store.outbox_size():
                assert time.monotonic() < deadline, "the archiver left the outbox behind"
                await asyncio.sleep(0.02)
            assert (await archive.size()).matches == MATCHES
            for index in range(MATCHES):
                assert await archive.match(f"m{index}") is not None
        finally:
            stop.set()
            await archiver
            await archive.close()
        return archive.writes

    writes = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert sum(writes) == MATCHES
    assert len(writes) <= 4, f"one write per several matches expected, got {writes}"
