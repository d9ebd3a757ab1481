"""Reaching the archive's database (``SqlArchive``), and failing to: SQLite
files use write-ahead logging; a database that cannot be reached, or goes
away, is an ArchiveUnavailable, quickly, without the password, until it is
back; calls before ``start`` say so; and which URLs map to which async
driver, every other scheme refused with the two that work."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from services.archive.database import engine_url, sqlite_url
from services.archive.records import MatchFilter
from services.archive.sql import ArchiveUnavailable, SqlArchive
from tests.postgres_servers import PostgresServer
from tests.redis_servers import free_port
from tests.services.test_archive_store import BASE_MS, SECONDS, ids, win, with_archive


def test_an_sqlite_archive_uses_write_ahead_logging(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    assert url == f"sqlite:///{tmp_path.absolute()}/archive.sqlite3"
    with_archive(url, lambda archive: archive.write([win("m1", BASE_MS)], []))
    with sqlite3.connect(tmp_path / "archive.sqlite3") as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_an_unreachable_postgresql_is_unavailable_at_once() -> None:
    url = f"postgresql://meeple:hunter2@127.0.0.1:{free_port()}/archive"
    for migrate in (False, True):
        archive = SqlArchive(url, migrate=migrate, connect_timeout=2)
        began = time.monotonic()
        with pytest.raises(ArchiveUnavailable) as raised:
            asyncio.run(asyncio.wait_for(archive.start(), SECONDS))
        assert time.monotonic() - began < 3
        assert "hunter2" not in str(raised.value)
        assert "meeple:***@127.0.0.1" in str(raised.value)
        asyncio.run(archive.close())


def test_an_unreachable_sqlite_file_is_unavailable(tmp_path: Path) -> None:
    async def attempt() -> None:
        archive = SqlArchive(sqlite_url(tmp_path / "no" / "such" / "folder"), migrate=True)
        try:
            with pytest.raises(ArchiveUnavailable, match="unable to open database file"):
                await asyncio.wait_for(archive.start(), SECONDS)
        finally:
            await archive.close()
            # aiosqlite stops a connection that failed to open without waiting
            # for its thread, which then reports to this loop: keep the loop
            # open until it has (a closed one makes that thread fail in a
            # later test).
            while any(
                "_connection_worker_thread" in thread.name for thread in threading.enumerate()
            ):
                await asyncio.sleep(0.01)

    asyncio.run(asyncio.wait_for(attempt(), SECONDS))


def test_a_postgresql_that_goes_away_is_unavailable_until_it_is_back(tmp_path: Path) -> None:
    server = PostgresServer(tmp_path / "postgres")
    try:
        archive = SqlArchive(server.url, migrate=True, connect_timeout=2)

        async def write(name: str) -> None:
            await asyncio.wait_for(archive.write([win(name, BASE_MS)], []), SECONDS)

        async def body() -> None:
            await archive.start()
            await write("before")
            server.stop(remove=False)
            with pytest.raises(ArchiveUnavailable) as raised:
                await write("while down")
            assert server.url.split("@")[1] in str(raised.value)
            server.start()
            await write("after")  # the pool replaces the connections it lost
            assert ids(await archive.matches(MatchFilter("ann"), None, 10)) == ["before", "after"]
            await archive.close()

        asyncio.run(body())
    finally:
        server.stop()


def test_calls_before_start_say_so(tmp_path: Path) -> None:
    archive = SqlArchive(sqlite_url(tmp_path), migrate=True)
    with pytest.raises(RuntimeError, match="not started"):
        asyncio.run(archive.match("m1"))


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgresql://u:p@db.example:5433/archive", "postgresql+asyncpg://u:p@db.example:5433/archive"),
        ("postgres://u@db/archive", "postgresql+asyncpg://u@db/archive"),
        ("postgresql+asyncpg://u@db/archive", "postgresql+asyncpg://u@db/archive"),
        ("postgresql://u:p%40ss@db/a?ssl=require", "postgresql+asyncpg://u:p%40ss@db/a?ssl=require"),
        ("sqlite:////var/lib/meeple/archive.sqlite3", "sqlite+aiosqlite:////var/lib/meeple/archive.sqlite3"),
        ("sqlite:///relative.sqlite3", "sqlite+aiosqlite:///relative.sqlite3"),
        ("sqlite+aiosqlite:///a.sqlite3", "sqlite+aiosqlite:///a.sqlite3"),
    ],
)  # fmt: skip
def test_engine_url_maps_to_the_async_drivers(url: str, expected: str) -> None:
    assert engine_url(url) == expected


@pytest.mark.parametrize(
    "url",
    [
        "mysql://u@db/archive",
        "postgresql+psycopg2://u@db/archive",
        "redis://127.0.0.1:6379/0",
        "sqlite://",
        "sqlite:///:memory:",
        "archive.sqlite3",
        "",
    ],
)
def test_engine_url_refuses_other_schemes(url: str) -> None:
    with pytest.raises(ValueError, match="sqlite:///PATH") as raised:
        engine_url(url)
    assert "postgresql://" in str(raised.value) or "needs a file" in str(raised.value)
    with pytest.raises(ValueError, match="sqlite:///PATH"):
        SqlArchive(url, migrate=True)
