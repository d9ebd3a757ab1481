"""The archive on SQL: ``SqlArchive`` implements ``base.Archive`` with
SQLAlchemy Core on async engines, on SQLite (aiosqlite: the embedded
default, a file in the data folder, migrated at start) and on PostgreSQL
(asyncpg: deployments, migrated by ``meeple archive migrate``).

Writes are ``INSERT … ON CONFLICT DO NOTHING`` in one transaction, so a
match or a rating change written again changes nothing. A player's lists
are read from ``match_seats`` alone (it carries the match's game and end
time), latest first by (end time, match id), and paged by keyset: a page
starts strictly after its cursor.

A database that cannot be reached, or fails while it is used, raises
``ArchiveUnavailable`` (the caller tries again later); URLs in errors never
show the password.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from services.archive import schema
from services.archive.base import MatchSpan
from services.archive.database import (
    CONNECT_TIMEOUT,
    HEAD,
    connect_args,
    engine_url,
    known_revisions,
    revision_of,
    safe_url,
    upgrade,
)
from services.archive.records import (
    ArchivedMatch,
    ArchivedSeat,
    ArchiveSize,
    Cursor,
    MatchFilter,
    Outcome,
    RatingChange,
    Tally,
)
from services.errors import Unavailable

MIGRATE_COMMAND = "meeple archive migrate"
# Each connection of an SQLite archive: write-ahead logging (readers never
# wait for the writer), foreign keys enforced (a match's seats go with it),
# and a writer waits up to 5 s for another's lock rather than failing.
SQLITE_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA busy_timeout=5000",
)


class ArchiveUnavailable(Unavailable):
    """The archive's database cannot be reached, or failed while it was used
    (connection refused or lost, a timeout, SQLite's file locked or not
    writable): try again later (UNAVAILABLE to clients)."""


class SchemaOutOfDate(RuntimeError):
    """The database's schema is not the revision this code needs."""

    def __init__(self, url: str, revision: str | None, needed: str) -> None:
        self.url = url
        self.revision = revision
        self.needed = needed
        if revision is None or revision in known_revisions():
            at = "has no schema" if revision is None else f"is at revision {revision}"
            message = (
                f"the archive at {url} {at}, this server needs {needed}: run `{MIGRATE_COMMAND}`"
            )
        else:
            message = (
                f"the archive at {url} is at revision {revision}, which this server "
                f"does not know (it needs {needed}): a newer meeple migrated it"
            )
        super().__init__(message)


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    for pragma in SQLITE_PRAGMAS:
        cursor.execute(pragma)
    cursor.close()


def _cause(error: BaseException) -> str:
    """The driver's own message (a DBAPIError's text also holds the SQL and
    its parameters)."""
    original = error.orig if isinstance(error, DBAPIError) and error.orig is not None else error
    return f"{type(original).__name__}: {original}".rstrip(": ")


def _is_unavailable(error: BaseException) -> bool:
    """Whether a failure while using a connection is the database's (so
    worth trying again) rather than a fault of the query."""
    if isinstance(error, OperationalError | InterfaceError | OSError):
        return True
    return isinstance(error, DBAPIError) and error.connection_invalidated


class SqlArchive:
    """The archive in the SQLite file or PostgreSQL database at ``url``
    (``postgresql://…``, ``postgres://…`` or ``sqlite:///PATH``; see
    ``database.engine_url``). With ``migrate``, ``start()`` upgrades an older
    schema to this code's (the embedded SQLite default); without it (a
    PostgreSQL deployment, migrated by its init step), it raises ``SchemaOutOfDate``.
    ``connect_timeout``: seconds to wait for a connection."""

    def __init__(self, url: str, migrate: bool, connect_timeout: float = CONNECT_TIMEOUT) -> None:
        self.url = url
        self.safe_url = safe_url(url)
        self.migrate = migrate
        self.connect_timeout = connect_timeout
        self._engine_url = engine_url(url)  # a ValueError for another scheme
        self._engine: AsyncEngine | None = None

    # Lifecycle.

    async def start(self) -> None:
        if self._engine is None:
            self._engine = self._new_engine()
        revision = await self._revision()
        if (
            revision != HEAD
            and self.migrate
            and (revision is None or revision in known_revisions())
        ):
            try:
                await asyncio.to_thread(upgrade, self.url)
            except (DBAPIError, OSError) as error:
                raise self._unavailable(error) from error
            revision = await self._revision()
        if revision != HEAD:
            raise SchemaOutOfDate(self.safe_url, revision, HEAD)

    async def close(self) -> None:
        if self._engine is not None:
            engine, self._engine = self._engine, None
            await engine.dispose()

    def _new_engine(self) -> AsyncEngine:
        options: dict[str, Any] = {"connect_args": connect_args(self.connect_timeout)}
        if self.dialect == "postgresql":
            # A connection the server closed (a restart) is replaced, not used.
            options["pool_pre_ping"] = True
        engine = create_async_engine(self._engine_url, **options)
        if self.dialect == "sqlite":
            sa.event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return "sqlite" if self._engine_url.startswith("sqlite") else "postgresql"

    async def _revision(self) -> str | None:
        async with self._connection() as connection:
            return await connection.run_sync(revision_of)

    def _unavailable(self, error: BaseException) -> ArchiveUnavailable:
        return ArchiveUnavailable(f"the archive at {self.safe_url} is unavailable: {_cause(error)}")

    @contextlib.asynccontextmanager
    async def _connection(self, write: bool = False) -> AsyncIterator[AsyncConnection]:
        """A connection (in a transaction that commits at the end, if
        ``write``); the database's failures become ArchiveUnavailable."""
        if self._engine is None:
            raise RuntimeError("the archive is not started (call start() first)")
        try:
            connection = await self._engine.connect()
        except (DBAPIError, OSError) as error:
            raise self._unavailable(error) from error
        try:
            if write:
                async with connection.begin():
                    yield connection
            else:
                yield connection
        except (DBAPIError, OSError) as error:
            if _is_unavailable(error):
                raise self._unavailable(error) from error
            raise
        finally:
            await connection.close()

    # Writes.

    def _insert(self, table: sa.Table) -> sqlite.Insert | postgresql.Insert:
        insert = sqlite.insert if self.dialect == "sqlite" else postgresql.insert
        return insert(table)

    async def write(self, matches: list[ArchivedMatch], changes: list[RatingChange]) -> None:
        if not matches and not changes:
            return
        unique: dict[str, ArchivedMatch] = {}
        for match in matches:
            unique.setdefault(match.match_id, match)
        async with self._connection(write=True) as connection:
            if unique:
                # Only the matches not archived yet come back, and only their
                # seats are written: a match written again keeps its seats.
                inserted = await connection.execute(
                    self._insert(schema.matches)
                    .on_conflict_do_nothing(index_elements=["match_id"])
                    .returning(schema.matches.c.match_id),
                    [_match_row(match) for match in unique.values()],
                )
                new = {match_id for (match_id,) in inserted}
                seats = [
                    _seat_row(match, index, seat)
                    for match in unique.values()
                    if match.match_id in new
                    for index, seat in enumerate(match.seats)
                ]
                if seats:
                    await connection.execute(
                        self._insert(schema.match_seats).on_conflict_do_nothing(), seats
                    )
            if changes:
                await connection.execute(
                    self._insert(schema.rating_changes).on_conflict_do_nothing(),
                    [_change_row(change) for change in changes],
                )

    async def prune(self, before_ms: int) -> int:
        """Also deletes rating changes rated before ``before_ms`` whose match
        is not archived (it would be pruned on arrival)."""
        matches, seats, changes = schema.matches, schema.match_seats, schema.rating_changes
        old = sa.select(matches.c.match_id).where(matches.c.ended_ms < before_ms)
        orphan = sa.and_(
            changes.c.rated_ms < before_ms,
            ~sa.exists().where(matches.c.match_id == changes.c.match_id),
        )
        async with self._connection(write=True) as connection:
            await connection.execute(
                sa.delete(changes).where(sa.or_(changes.c.match_id.in_(old), orphan))
            )
            await connection.execute(sa.delete(seats).where(seats.c.match_id.in_(old)))
            deleted = await connection.execute(
                sa.delete(matches).where(matches.c.ended_ms < before_ms)
            )
            return int(deleted.rowcount)

    # Reads.

    async def span(self, before_ms: int | None = None) -> MatchSpan:
        matches = schema.matches
        query = sa.select(
            sa.func.count(), sa.func.min(matches.c.ended_ms), sa.func.max(matches.c.ended_ms)
        )
        if before_ms is not None:
            query = query.where(matches.c.ended_ms < before_ms)
        async with self._connection() as connection:
            count, oldest, newest = (await connection.execute(query)).one()
        return MatchSpan(matches=int(count), oldest_ms=oldest, newest_ms=newest)

    async def match(self, match_id: str) -> ArchivedMatch | None:
        async with self._connection() as connection:
            found = await _load(connection, [match_id])
        return found[0] if found else None

    async def matches(
        self, where: MatchFilter, after: Cursor | None, limit: int
    ) -> list[ArchivedMatch]:
        if limit <= 0:
            return []
        seat = schema.match_seats.alias("seat")
        query = (
            sa.select(seat.c.match_id)
            .where(*_filter(seat, where))
            .order_by(seat.c.ended_ms.desc(), seat.c.match_id.desc())
            .limit(limit)
        )
        if after is not None:
            query = query.where(
                sa.tuple_(seat.c.ended_ms, seat.c.match_id) < sa.tuple_(after.ms, after.key)
            )
        async with self._connection() as connection:
            ids = list((await connection.scalars(query)).all())
            return await _load(connection, ids)

    async def tally(self, where: MatchFilter) -> Tally:
        seat = schema.match_seats.alias("seat")
        query = (
            sa.select(seat.c.outcome, sa.func.count())
            .where(*_filter(seat, where))
            .group_by(seat.c.outcome)
        )
        async with self._connection() as connection:
            counts: dict[str, int] = {row[0]: row[1] for row in await connection.execute(query)}
        return Tally(
            wins=counts.get(Outcome.WIN.value, 0),
            losses=counts.get(Outcome.LOSS.value, 0),
            draws=counts.get(Outcome.DRAW.value, 0),
        )

    async def rating_history(
        self, player_id: str, game: str, after: Cursor | None, limit: int
    ) -> list[RatingChange]:
        if limit <= 0:
            return []
        changes = schema.rating_changes
        query = (
            sa.select(changes)
            .where(changes.c.player_id == player_id, changes.c.game == game)
            .order_by(changes.c.rated_ms.desc(), changes.c.match_id.desc())
            .limit(limit)
        )
        if after is not None:
            query = query.where(
                sa.tuple_(changes.c.rated_ms, changes.c.match_id) < sa.tuple_(after.ms, after.key)
            )
        async with self._connection() as connection:
            rows = (await connection.execute(query)).mappings().all()
        return [_change_of(row) for row in rows]

    async def size(self) -> ArchiveSize:
        if self.dialect == "sqlite":
            size = sa.text(
                "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()"
            )
        else:
            size = sa.text(
                "SELECT " + " + ".join(
                    f"pg_total_relation_size('{table.name}'::regclass)" for table in schema.TABLES
                )
            )  # fmt: skip
        async with self._connection() as connection:
            count = await connection.scalar(sa.select(sa.func.count()).select_from(schema.matches))
            size_bytes = await connection.scalar(size)
        return ArchiveSize(matches=int(count or 0), bytes=int(size_bytes or 0))


def _filter(seat: sa.FromClause, where: MatchFilter) -> list[sa.ColumnElement[bool]]:
    """The conditions on a player's seats (``seat``: an alias of
    match_seats) that keep the matches ``where`` keeps; a player in several
    seats of one match counts once, by their first seat."""
    other = schema.match_seats.alias("other")
    conditions: list[sa.ColumnElement[bool]] = [
        seat.c.player_id == where.player_id,
        ~sa.exists().where(
            other.c.match_id == seat.c.match_id,
            other.c.player_id == seat.c.player_id,
            other.c.seat < seat.c.seat,
        ),
    ]
    if where.game is not None:
        conditions.append(seat.c.game == where.game)
    if where.outcome is not None:
        conditions.append(seat.c.outcome == where.outcome.value)
    if where.ended_after_ms is not None:
        conditions.append(seat.c.ended_ms >= where.ended_after_ms)
    if where.ended_before_ms is not None:
        conditions.append(seat.c.ended_ms < where.ended_before_ms)
    if where.opponent_id is not None:
        opponent = schema.match_seats.alias("opponent")
        conditions.append(
            sa.exists().where(
                opponent.c.match_id == seat.c.match_id,
                opponent.c.player_id == where.opponent_id,
                opponent.c.seat != seat.c.seat,
            )
        )
    return conditions


async def _load(connection: AsyncConnection, ids: list[str]) -> list[ArchivedMatch]:
    """The matches of ``ids`` with their seats, in the order of ``ids``
    (those not archived left out)."""
    if not ids:
        return []
    matches, seats = schema.matches, schema.match_seats
    rows = (await connection.execute(sa.select(matches).where(matches.c.match_id.in_(ids)))).all()
    seat_rows = (
        await connection.execute(
            sa.select(seats)
            .where(seats.c.match_id.in_(ids))
            .order_by(seats.c.match_id, seats.c.seat)
        )
    ).all()
    seats_of: dict[str, list[ArchivedSeat]] = {}
    for row in seat_rows:
        seats_of.setdefault(row.match_id, []).append(_seat_of(row._mapping))
    by_id = {row.match_id: _match_of(row._mapping, seats_of.get(row.match_id, [])) for row in rows}
    return [by_id[match_id] for match_id in ids if match_id in by_id]


# Rows and records.


def _match_row(match: ArchivedMatch) -> dict[str, Any]:
    return {
        "match_id": match.match_id,
        "game": match.game,
        "rated": match.rated,
        "reason": match.reason,
        "end_seat": match.end_seat,
        "created_ms": match.created_ms,
        "started_ms": match.started_ms,
        "ended_ms": match.ended_ms,
        "plies": match.plies,
        "record": match.record,
    }


def _seat_row(match: ArchivedMatch, index: int, seat: ArchivedSeat) -> dict[str, Any]:
    return {
        "match_id": match.match_id,
        "seat": index,
        "kind": seat.kind,
        "bot_spec": seat.bot_spec,
        "player_id": seat.player_id,
        "display_name": seat.display_name,
        "result": seat.result,
        "outcome": seat.outcome.value,
        "game": match.game,
        "ended_ms": match.ended_ms,
    }


def _change_row(change: RatingChange) -> dict[str, Any]:
    return {
        "match_id": change.match_id,
        "player_id": change.player_id,
        "game": change.game,
        "mu_before": change.mu_before,
        "sigma_before": change.sigma_before,
        "mu_after": change.mu_after,
        "sigma_after": change.sigma_after,
        "matches_after": change.matches_after,
        "rated_ms": change.rated_ms,
    }


def _match_of(row: sa.RowMapping, seats: Iterable[ArchivedSeat]) -> ArchivedMatch:
    return ArchivedMatch(
        match_id=row["match_id"],
        game=row["game"],
        rated=bool(row["rated"]),
        reason=row["reason"],
        end_seat=row["end_seat"],
        created_ms=row["created_ms"],
        started_ms=row["started_ms"],
        ended_ms=row["ended_ms"],
        plies=row["plies"],
        seats=tuple(seats),
        record=bytes(row["record"]),
    )


def _seat_of(row: sa.RowMapping) -> ArchivedSeat:
    return ArchivedSeat(
        kind=row["kind"],
        bot_spec=row["bot_spec"],
        player_id=row["player_id"],
        display_name=row["display_name"],
        result=float(row["result"]),
        outcome=Outcome(row["outcome"]),
    )


def _change_of(row: sa.RowMapping) -> RatingChange:
    return RatingChange(
        match_id=row["match_id"],
        game=row["game"],
        player_id=row["player_id"],
        mu_before=float(row["mu_before"]),
        sigma_before=float(row["sigma_before"]),
        mu_after=float(row["mu_after"]),
        sigma_after=float(row["sigma_after"]),
        matches_after=row["matches_after"],
        rated_ms=row["rated_ms"],
    )
