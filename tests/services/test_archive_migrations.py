"""The archive's migrations, on a real SQLite file and a real PostgreSQL
server: an archive made at revision 0001 (matches and their seats) with a
match in it keeps that match through the upgrade to head and takes rating
changes after it; a server that does not migrate refuses an older (or
empty, or newer) schema, saying to run ``meeple archive migrate``; the
migrations' head is exactly ``schema.py``'s tables; they go down and up
again."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.schema import CreateIndex

from services.archive.database import (
    HEAD,
    alembic_config,
    current_revision,
    engine_url,
    known_revisions,
    upgrade,
)
from services.archive.records import (
    ArchivedMatch,
    ArchivedSeat,
    MatchFilter,
    Outcome,
    RatingChange,
    Tally,
)
from services.archive.schema import metadata
from services.archive.sql import SchemaOutOfDate, SqlArchive

SECONDS = 30


def run_sql(url: str, *statements: str, **parameters: Any) -> list[sa.Row[Any]]:
    """Runs plain SQL on the database at ``url`` in one transaction; the
    last statement's rows, if it has any."""

    async def run() -> list[sa.Row[Any]]:
        engine = create_async_engine(engine_url(url), poolclass=sa.NullPool)
        try:
            async with engine.begin() as connection:
                result = None
                for statement in statements:
                    result = await connection.execute(sa.text(statement), parameters)
                return list(result.all()) if result is not None and result.returns_rows else []
        finally:
            await engine.dispose()

    return asyncio.run(asyncio.wait_for(run(), SECONDS))


def start_fails(url: str, migrate: bool) -> SchemaOutOfDate:
    async def run() -> SchemaOutOfDate:
        archive = SqlArchive(url, migrate=migrate)
        try:
            with pytest.raises(SchemaOutOfDate) as raised:
                await asyncio.wait_for(archive.start(), SECONDS)
            return raised.value
        finally:
            await archive.close()

    return asyncio.run(run())


# A match written with the SQL of revision 0001, as a server of that time did.
SCHEMA_0001_MATCH = """
INSERT INTO matches (match_id, game, rated, reason, end_seat, created_ms, started_ms,
                     ended_ms, plies, record)
VALUES ('old-match', 'rolit', :rated, 2, 1, 1764000000000, 1764000001000,
        1764000002000, 37, :record)
"""
SCHEMA_0001_SEATS = """
INSERT INTO match_seats (match_id, seat, kind, bot_spec, player_id, display_name, result,
                         outcome, game, ended_ms)
VALUES ('old-match', 0, 1, '', 'ann', 'Ann', 1.0, 'win', 'rolit', 1764000002000),
       ('old-match', 1, 2, 'mcts:level=2', '', 'Bot', 0.25, 'loss', 'rolit', 1764000002000)
"""
OLD_MATCH = ArchivedMatch(
    match_id="old-match",
    game="rolit",
    rated=True,
    reason=2,
    end_seat=1,
    created_ms=1764000000000,
    started_ms=1764000001000,
    ended_ms=1764000002000,
    plies=37,
    seats=(
        ArchivedSeat(1, "", "ann", "Ann", 1.0, Outcome.WIN),
        ArchivedSeat(2, "mcts:level=2", "", "Bot", 0.25, Outcome.LOSS),
    ),
    record=b'{"match_id": "old-match"}',
)
RATED = RatingChange("old-match", "rolit", "ann", 25.0, 8.3, 27.5, 7.9, 1, 1764000003000)


def archive_at_0001(url: str) -> None:
    """An archive migrated to 0001 with ``OLD_MATCH`` in it, by plain SQL."""
    upgrade(url, "0001")
    assert current_revision(url) == "0001"
    run_sql(url, SCHEMA_0001_MATCH, SCHEMA_0001_SEATS, rated=True, record=OLD_MATCH.record)


def check_old_match_and_rating(url: str, migrate: bool) -> None:
    """A server started on the archive reads ``OLD_MATCH`` and writes ``RATED``."""

    async def run() -> None:
        archive = SqlArchive(url, migrate=migrate)
        try:
            await archive.start()
            assert await archive.match("old-match") == OLD_MATCH
            assert await archive.matches(MatchFilter("ann"), None, 10) == [OLD_MATCH]
            assert await archive.tally(MatchFilter("ann")) == Tally(wins=1)
            await archive.write([], [RATED])
            assert await archive.rating_history("ann", "rolit", None, 10) == [RATED]
        finally:
            await archive.close()

    asyncio.run(asyncio.wait_for(run(), SECONDS))


def test_a_0001_archive_upgraded_by_the_migrate_command_keeps_its_matches(
    archive_url: str,
) -> None:
    archive_at_0001(archive_url)
    upgrade(archive_url)  # what `meeple archive migrate` (a deployment's Job) runs
    assert current_revision(archive_url) == HEAD
    check_old_match_and_rating(archive_url, migrate=False)


def test_a_0001_archive_is_upgraded_at_start_with_migrate(archive_url: str) -> None:
    archive_at_0001(archive_url)
    check_old_match_and_rating(archive_url, migrate=True)
    assert current_revision(archive_url) == HEAD


def test_an_old_schema_is_refused_without_migrate(archive_url: str) -> None:
    archive_at_0001(archive_url)
    # A password in the URL (trust authentication ignores it) stays out of the message.
    url = archive_url.replace("postgresql://meeple@", "postgresql://meeple:hunter2@")
    error = start_fails(url, migrate=False)
    assert isinstance(error, RuntimeError)
    assert "is at revision 0001, this server needs 0002" in str(error)
    assert "run `meeple archive migrate`" in str(error)
    assert "hunter2" not in str(error)
    assert (error.revision, error.needed) == ("0001", HEAD)
    assert current_revision(archive_url) == "0001"  # left as it was


def test_an_empty_database_is_refused_without_migrate(archive_url: str) -> None:
    error = start_fails(archive_url, migrate=False)
    assert "has no schema, this server needs 0002: run `meeple archive migrate`" in str(error)
    assert current_revision(archive_url) is None


def test_a_newer_schema_is_refused_even_with_migrate(archive_url: str) -> None:
    upgrade(archive_url)
    run_sql(archive_url, "UPDATE alembic_version SET version_num = '0099'")
    for migrate in (False, True):
        error = start_fails(archive_url, migrate=migrate)
        assert "is at revision 0099, which this server does not know" in str(error)
    assert current_revision(archive_url) == "0099"


def test_the_migrations_head_is_the_schema_of_schema_py(archive_url: str) -> None:
    upgrade(archive_url)

    def differences(connection: sa.Connection) -> list[Any]:
        sqlite = connection.dialect.name == "sqlite"

        def include(item: Any, name: str | None, kind: str, *_: Any) -> bool:
            # SQLite's reflection drops an index's DESC: its indexes are
            # compared below, by their DDL.
            return not (sqlite and kind == "index")

        options = {"compare_type": True, "include_object": include}
        found = list(
            compare_metadata(MigrationContext.configure(connection, opts=options), metadata)
        )
        if sqlite:
            made = connection.exec_driver_sql(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
            )
            indexes = {name: " ".join(sql.split()) for name, sql in made}
            declared = {
                index.name: " ".join(str(CreateIndex(index).compile(connection)).split())
                for table in metadata.tables.values()
                for index in table.indexes
            }
            if indexes != declared:
                found.append(("indexes", indexes, declared))
        return found

    async def compare() -> list[Any]:
        engine = create_async_engine(engine_url(archive_url), poolclass=sa.NullPool)
        try:
            async with engine.connect() as connection:
                return await connection.run_sync(differences)
        finally:
            await engine.dispose()

    assert asyncio.run(compare()) == []


def test_the_migrations_go_down_and_up_again(archive_url: str) -> None:
    upgrade(archive_url)
    command.downgrade(alembic_config(archive_url), "0001")
    assert current_revision(archive_url) == "0001"
    command.downgrade(alembic_config(archive_url), "base")
    assert current_revision(archive_url) is None
    archive_at_0001(archive_url)
    upgrade(archive_url)
    assert current_revision(archive_url) == HEAD


def test_head_is_the_last_revision() -> None:
    script = ScriptDirectory.from_config(alembic_config("sqlite:///unused"))
    assert script.get_heads() == [HEAD]
    assert known_revisions() == {"0001", "0002"}
    assert script.get_revision("0002").down_revision == "0001"
    assert script.get_revision("0001").doc == "matches and their seats"
    assert script.get_revision("0002").doc == "rating changes"
