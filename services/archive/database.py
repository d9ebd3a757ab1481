"""Where the archive lives and which schema it has: the URLs a user gives
(``postgresql://…``, ``postgres://…``, ``sqlite:///PATH``) mapped to
SQLAlchemy's async drivers, and the Alembic migrations under
``migrations/``, configured from code (no alembic.ini).

Alembic's commands are synchronous and ``migrations/env.py`` runs its async
engine with ``asyncio.run``, so ``upgrade`` and ``current_revision`` must not
be called on a thread whose event loop is running: from async code, call
them through ``asyncio.to_thread``.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import create_async_engine

# The revision this code's schema is at: the last of migrations/versions/.
HEAD = "0002"
MIGRATIONS = Path(__file__).parent / "migrations"
SQLITE_FILE = "archive.sqlite3"
# Seconds to wait for a connection (asyncpg's timeout, SQLite's busy wait).
CONNECT_TIMEOUT = 5.0

_DRIVERS = {
    "postgresql": "postgresql+asyncpg",
    "postgres": "postgresql+asyncpg",
    "postgresql+asyncpg": "postgresql+asyncpg",
    "sqlite": "sqlite+aiosqlite",
    "sqlite+aiosqlite": "sqlite+aiosqlite",
}
ACCEPTED = "postgresql://USER@HOST/DB, postgres://USER@HOST/DB or sqlite:///PATH"


def _parse(url: str) -> sa.URL:
    try:
        return sa.make_url(url)
    except ArgumentError as error:
        raise ValueError(f"not a database URL: {error}; the archive takes {ACCEPTED}") from None


def engine_url(url: str) -> str:
    """The async-driver URL of a user's archive URL: ``postgresql://`` and
    ``postgres://`` become ``postgresql+asyncpg://``, ``sqlite:///PATH``
    becomes ``sqlite+aiosqlite:///PATH`` (URLs already naming those drivers
    are kept). Any other scheme, or SQLite without a file, is a ValueError."""
    parsed = _parse(url)
    driver = _DRIVERS.get(parsed.drivername)
    if driver is None:
        raise ValueError(
            f"the archive does not support {parsed.drivername}:// URLs; it takes {ACCEPTED}"
        )
    if driver.startswith("sqlite") and parsed.database in (None, "", ":memory:"):
        raise ValueError(f"an SQLite archive needs a file (sqlite:///PATH), not {url!r}")
    return parsed.set(drivername=driver).render_as_string(hide_password=False)


def safe_url(url: str) -> str:
    """``url`` with its password, if any, as ``***``: for logs and errors."""
    try:
        return sa.make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "<not a database URL>"


def sqlite_url(data_dir: str | os.PathLike[str]) -> str:
    """The URL of the embedded archive: the file ``archive.sqlite3`` in ``data_dir``."""
    return f"sqlite:///{Path(data_dir).absolute() / SQLITE_FILE}"


def connect_args(timeout: float = CONNECT_TIMEOUT) -> dict[str, Any]:
    """The drivers' connect arguments: both aiosqlite (SQLite's busy wait)
    and asyncpg (the connection's deadline) call it ``timeout``."""
    return {"timeout": timeout}


def alembic_config(url: str) -> Config:
    """An Alembic configuration of the archive at ``url``, without a file:
    ``migrations/env.py`` reads the async URL from ``attributes["url"]``."""
    config = Config()
    # Config values are interpolated (configparser): a % in the path doubles.
    config.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    config.set_main_option("path_separator", "os")
    config.attributes["url"] = engine_url(url)
    return config


def upgrade(url: str, revision: str = "head") -> None:
    """Migrates the archive at ``url`` to ``revision`` (by default the
    newest). Synchronous: see the module's docstring."""
    command.upgrade(alembic_config(url), revision)


def revision_of(connection: sa.Connection) -> str | None:
    """The revision a database's schema is at (None: no schema yet); for
    ``AsyncConnection.run_sync``."""
    return MigrationContext.configure(connection).get_current_revision()


def current_revision(url: str, timeout: float = CONNECT_TIMEOUT) -> str | None:
    """The revision of the archive at ``url`` (None: no schema yet).
    Synchronous: see the module's docstring."""

    async def read() -> str | None:
        engine = create_async_engine(
            engine_url(url), poolclass=sa.NullPool, connect_args=connect_args(timeout)
        )
        try:
            async with engine.connect() as connection:
                return await connection.run_sync(revision_of)
        finally:
            await engine.dispose()

    return asyncio.run(read())


def known_revisions() -> set[str]:
    """Every revision of ``migrations/versions/``."""
    script = ScriptDirectory.from_config(alembic_config("sqlite:///unused"))
    return {revision.revision for revision in script.walk_revisions()}
