"""Which archive a server keeps, from its settings."""

from __future__ import annotations

from services.archive.database import engine_url, sqlite_url
from services.archive.sql import SqlArchive
from services.settings import Settings


def archive_url(settings: Settings) -> str | None:
    """``MEEPLE_DATABASE_URL``, else the SQLite file in ``MEEPLE_DATA_DIR``;
    None: no archive."""
    if settings.database_url:
        return settings.database_url
    if settings.data_dir:
        return sqlite_url(settings.data_dir)
    return None


def archive_for(settings: Settings) -> SqlArchive | None:
    """The archive of ``archive_url``. An SQLite file is migrated as the
    server starts (it is the server's own); a PostgreSQL database is
    migrated by ``meeple archive migrate`` (a deployment's init step), and a
    server refuses to start on an older schema."""
    url = archive_url(settings)
    if url is None:
        return None
    return SqlArchive(url, migrate=engine_url(url).startswith("sqlite"))
