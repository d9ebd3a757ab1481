"""Alembic's environment for the archive: runs the revisions on an async
engine (aiosqlite or asyncpg) through ``AsyncConnection.run_sync``.

It is configured from code, not from an alembic.ini:
``services.archive.database.alembic_config`` puts the async URL in
``config.attributes["url"]``. SQLite alters tables in batch mode (it
rebuilds a table to change it). On PostgreSQL the migration holds an
advisory lock, so two that start at once run one after the other.
"""

from __future__ import annotations

import asyncio

import sqlalchemy as sa
from alembic import context
from sqlalchemy.ext.asyncio import create_async_engine

from services.archive.database import connect_args
from services.archive.schema import metadata

# Any constant: the key of the advisory lock that migrations take on PostgreSQL.
MIGRATION_LOCK = 0x6D65_6570_6C65  # "meeple"

url: str = context.config.attributes["url"]


def run_migrations_offline() -> None:
    """Writes the SQL instead of running it (``alembic upgrade --sql``)."""
    context.configure(
        url=url,
        target_metadata=metadata,
        literal_binds=True,
        render_as_batch=url.startswith("sqlite"),
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations(connection: sa.Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            connection.execute(sa.text(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})"))
        context.run_migrations()


async def run_migrations_online() -> None:
    engine = create_async_engine(url, poolclass=sa.NullPool, connect_args=connect_args())
    try:
        async with engine.connect() as connection:
            await connection.run_sync(run_migrations)
    finally:
        await engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    asyncio.run(run_migrations_online())
