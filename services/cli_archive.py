"""``meeple archive``: the match archive from the command line (migrate,
prune, export, stats), on the archive a server keeps: ``--database-url``
(MEEPLE_DATABASE_URL), else the SQLite file ``archive.sqlite3`` in
``--data-dir`` (MEEPLE_DATA_DIR).

As with the server commands (``services/cli.py``), an error is one line on
stderr, ``meeple: …``, never a traceback, and a URL in it never shows its
password: exit code 2 for the command line (an unknown option, a bad
DATE), 1 for the archive (none given, a URL it does not take, a database
that cannot be reached or whose schema is behind, a match it does not
hold). Imports are made where they are needed, so that ``meeple`` starts
fast.
"""

from __future__ import annotations

import enum
import os
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, TypeVar

import typer

from services.cli_errors import USAGE, OneLineUsage, say

if TYPE_CHECKING:
    from services.archive.sql import SqlArchive

T = TypeVar("T")

archive_app = typer.Typer(
    help="The match archive: migrate its schema, prune, export and count its matches.",
    no_args_is_help=True,
)

PAGE = 100  # matches read at a time by export --player
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _fail(line: str) -> NoReturn:
    """The archive cannot do it: exit code 1."""
    say(line, 1)


def _usage(line: str) -> NoReturn:
    """The command line is wrong: exit code 2."""
    say(line, USAGE)


class ArchiveCommand(OneLineUsage):
    group = "archive "


DatabaseUrlOption = Annotated[
    str | None,
    typer.Option(
        "--database-url",
        envvar="MEEPLE_DATABASE_URL",
        metavar="URL",
        show_default=False,
        help="The archive's database: postgresql://USER@HOST/DB or sqlite:///PATH "
        "(wins over --data-dir).",
    ),
]
DataDirOption = Annotated[
    str | None,
    typer.Option(
        "--data-dir",
        envvar="MEEPLE_DATA_DIR",
        metavar="DIR",
        show_default=False,
        help="The server's data directory: the archive is its SQLite file archive.sqlite3.",
    ),
]


# --- which archive, and running on it --------------------------------------------


def _url(database_url: str | None, data_dir: str | None) -> str:
    """The archive's URL, as a server finds it (``config.archive_url``)."""
    from services.archive.config import archive_url
    from services.settings import Settings

    # An empty variable is unset, as Settings.from_env reads it.
    url = archive_url(Settings(database_url=database_url or None, data_dir=data_dir or None))
    if url is None:
        _fail(
            "which archive? give --database-url URL (MEEPLE_DATABASE_URL) or --data-dir DIR "
            "(MEEPLE_DATA_DIR: its archive.sqlite3)"
        )
    return url


def _sqlite_file(url: str) -> Path | None:
    """The file of an SQLite archive's URL; None for PostgreSQL."""
    import sqlalchemy as sa

    from services.archive.database import engine_url

    if not engine_url(url).startswith("sqlite"):
        return None
    return Path(sa.make_url(url).database or "")


def _archive(database_url: str | None, data_dir: str | None) -> SqlArchive:
    """The archive to read or prune, not started. An SQLite file is migrated
    as it starts (as a server does); it must exist (a server, or ``meeple
    archive migrate``, makes it)."""
    from services.archive.database import engine_url, safe_url
    from services.archive.sql import SqlArchive

    url = _url(database_url, data_dir)
    try:
        driver = engine_url(url)
    except ValueError as error:
        _fail(str(error))
    path = _sqlite_file(url)
    if path is not None and not path.is_file():
        _fail(
            f"no archive at {safe_url(url)}: the file does not exist "
            "(a server makes it, as does `meeple archive migrate`)"
        )
    return SqlArchive(url, migrate=driver.startswith("sqlite"))


def _cause(error: BaseException) -> str:
    """The driver's own message (a DBAPIError's text also holds the SQL)."""
    from sqlalchemy.exc import DBAPIError

    original = error.orig if isinstance(error, DBAPIError) and error.orig is not None else error
    return f"{type(original).__name__}: {original}".rstrip(": ")


def _run(archive: SqlArchive, body: Callable[[SqlArchive], Awaitable[T]]) -> T:
    """Runs ``body`` on the started archive, then closes it; the archive's
    failures are one line and exit code 1."""
    import asyncio

    from sqlalchemy.exc import SQLAlchemyError

    from services.archive.sql import ArchiveUnavailable, SchemaOutOfDate

    async def run() -> T:
        try:
            await archive.start()
            return await body(archive)
        finally:
            await archive.close()

    try:
        return asyncio.run(run())
    except (ArchiveUnavailable, SchemaOutOfDate) as error:
        _fail(str(error))
    except (SQLAlchemyError, OSError) as error:
        _fail(f"the archive at {archive.safe_url} failed: {_cause(error)}")


def _time(ms: int | None) -> str:
    """An end time in UTC, RFC 3339 (``2026-12-02T10:00:02Z``, with
    milliseconds when it has them); ``none`` for None."""
    if ms is None:
        return "none"
    moment = EPOCH + timedelta(milliseconds=ms)
    text = moment.isoformat(timespec="milliseconds" if ms % 1000 else "seconds")
    return text.replace("+00:00", "Z")


def _matches(count: int) -> str:
    return f"{count} match" if count == 1 else f"{count} matches"


# --- the commands ------------------------------------------------------------------


@archive_app.command(cls=ArchiveCommand)
def migrate(database_url: DatabaseUrlOption = None, data_dir: DataDirOption = None) -> None:
    """Upgrades the archive's schema to this meeple's revision.

    It creates the schema in an empty database or a new SQLite file, and
    changes nothing when it is there already. A PostgreSQL archive needs it
    before servers of a newer meeple start (a deployment's Job or init
    step); an SQLite file is migrated by its server too."""
    from alembic.util import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    from services.archive.database import (
        HEAD,
        current_revision,
        engine_url,
        known_revisions,
        safe_url,
        upgrade,
    )

    url = _url(database_url, data_dir)
    try:
        engine_url(url)
    except ValueError as error:
        _fail(str(error))
    where = safe_url(url)
    path = _sqlite_file(url)
    try:
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        before = current_revision(url)
        if before == HEAD:
            print(f"archive at {where}: already at revision {HEAD}", flush=True)
            return
        if before is not None and before not in known_revisions():
            _fail(
                f"the archive at {where} is at revision {before}, which this meeple does not "
                f"know (it has {HEAD}): a newer meeple migrated it"
            )
        upgrade(url)
        after = current_revision(url)
    except (SQLAlchemyError, OSError, CommandError) as error:
        _fail(f"cannot migrate the archive at {where}: {_cause(error)}")
    print(f"archive at {where}: revision {before or 'none'} -> {after}", flush=True)


def _instant(text: str) -> int:
    """``--before``'s DATE (YYYY-MM-DD, or an ISO 8601 time; UTC when it has
    no offset) in ms since the epoch."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        _usage(
            f"--before {text!r}: give a date YYYY-MM-DD or an ISO 8601 time "
            "like 2026-12-02T10:00:00Z (UTC unless it has an offset)"
        )
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - EPOCH) // timedelta(milliseconds=1)


@archive_app.command(cls=ArchiveCommand)
def prune(
    before: Annotated[
        str,
        typer.Option(
            metavar="DATE",
            show_default=False,
            help="Delete the matches that ended before this: YYYY-MM-DD (midnight UTC) or "
            "an ISO 8601 time (UTC unless it has an offset); not in the future.",
        ),
    ],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Count the matches, delete nothing.")
    ] = False,
    database_url: DatabaseUrlOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Deletes the matches that ended before DATE and prints how many.

    Their seats and rating changes go with them."""
    before_ms = _instant(before)
    now_ms = (datetime.now(UTC) - EPOCH) // timedelta(milliseconds=1)
    if before_ms > now_ms:
        _usage(f"--before {before}: {_time(before_ms)} is in the future")
    archive = _archive(database_url, data_dir)
    when = _time(before_ms)
    if dry_run:
        span = _run(archive, lambda found: found.span(before_ms))
        print(
            f"archive at {archive.safe_url}: {_matches(span.matches)} ended before {when} "
            "(dry run: none deleted)",
            flush=True,
        )
        return
    deleted = _run(archive, lambda found: found.prune(before_ms))
    print(
        f"archive at {archive.safe_url}: deleted {_matches(deleted)} that ended before {when}",
        flush=True,
    )


class Format(enum.StrEnum):
    json = "json"
    record = "record"
    ggf = "ggf"
    sgf = "sgf"


class Game(enum.StrEnum):
    rolit = "rolit"
    othello = "othello"
    volleyball = "volleyball"
    volta = "volta"


@archive_app.command(cls=ArchiveCommand)
def export(
    match_id: Annotated[
        str | None,
        typer.Option("--match", metavar="ID", show_default=False, help="Export this match."),
    ] = None,
    player: Annotated[
        str | None,
        typer.Option(
            metavar="ID",
            show_default=False,
            help="Export every match of this player, the latest first, as NDJSON (one match "
            "document a line; needs -o).",
        ),
    ] = None,
    export_format: Annotated[
        Format | None,
        typer.Option(
            "--format",
            show_default=False,
            help="With --match: json (the match document, the default), record (the "
            "GameRecord alone), ggf or sgf (Othello).",
        ),
    ] = None,
    game: Annotated[
        Game | None,
        typer.Option(show_default=False, help="With --player: only this game's matches."),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            show_default=False,
            help="Write to this file (--match: default stdout; --player: required).",
        ),
    ] = None,
    database_url: DatabaseUrlOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Writes one match, or a player's whole history as NDJSON.

    The formats are ArchiveService's ExportMatch and ExportPlayerMatches
    (docs/archive.md, "Export formats")."""
    if (match_id is None) == (player is None):
        _usage("export: give --match ID or --player ID (one of them)")
    if match_id is not None:
        if game is not None:
            _usage("export: --game goes with --player")
        _export_match(
            _archive(database_url, data_dir), match_id, export_format or Format.json, output
        )
        return
    assert player is not None
    if export_format is not None:
        _usage("export: --player writes NDJSON; --format goes with --match")
    if output is None:
        _usage("export: --player needs -o FILE")
    _export_player(_archive(database_url, data_dir), player, game, output)


def _export_match(archive: SqlArchive, match_id: str, fmt: Format, output: Path | None) -> None:
    from meeple.v1 import archive_service_pb2 as archive_pb

    from services.archive.exports import export_file

    found = _run(archive, lambda opened: opened.match(match_id))
    if found is None:
        _fail(f"no match {match_id} in the archive")
    formats = {
        Format.json: archive_pb.EXPORT_FORMAT_MATCH_JSON,
        Format.record: archive_pb.EXPORT_FORMAT_GAME_RECORD_JSON,
        Format.ggf: archive_pb.EXPORT_FORMAT_GGF,
        Format.sgf: archive_pb.EXPORT_FORMAT_SGF,
    }
    try:
        exported = export_file(found, formats[fmt])
    except ValueError as error:  # NotOthello, or a record this meeple cannot replay
        _fail(str(error))
    if output is None:
        sys.stdout.write(exported.content)
        sys.stdout.flush()
        return
    try:
        output.write_text(exported.content, encoding="utf-8", newline="\n")
    except OSError as error:
        _fail(f"cannot write {output}: {error.strerror or error}")
    print(f"wrote match {match_id} to {output}", flush=True)


@contextmanager
def _progress(total: int) -> Iterator[Callable[[int], None]]:
    """A function that advances a progress bar on stderr by its count,
    shown only when stderr is a terminal."""
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        yield lambda _count: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    with Progress(
        TextColumn("exporting"), BarColumn(), MofNCompleteColumn(), console=console
    ) as progress:
        task = progress.add_task("export", total=total)
        yield lambda count: progress.advance(task, count)


def _export_player(archive: SqlArchive, player: str, game: Game | None, output: Path) -> None:
    """Every match of the player into ``output``, through a ``.partial``
    file renamed at the end, so that a failed export leaves no file that
    looks whole."""
    from services.archive.exports import ndjson_line
    from services.archive.records import Cursor, MatchFilter

    where = MatchFilter(player, game=None if game is None else game.value)
    partial = output.with_name(output.name + ".partial")
    try:
        out = partial.open("w", encoding="utf-8", newline="\n")
    except OSError as error:
        _fail(f"cannot write {output}: {error.strerror or error}")

    async def write(opened: SqlArchive) -> int:
        tally = await opened.tally(where)
        written = 0
        after: Cursor | None = None
        with _progress(tally.wins + tally.losses + tally.draws) as advance:
            while page := await opened.matches(where, after, PAGE):
                for found in page:
                    try:
                        line = ndjson_line(found)
                    except ValueError as error:  # a record this meeple cannot replay
                        _fail(f"match {found.match_id}: {error}")
                    try:
                        out.write(line + "\n")
                    except OSError as error:  # not the archive's: the disk is full, say
                        _fail(f"cannot write {output}: {error.strerror or error}")
                written += len(page)
                advance(len(page))
                after = Cursor(page[-1].ended_ms, page[-1].match_id)
        return written

    try:
        with out:
            written = _run(archive, write)
        os.replace(partial, output)
    except OSError as error:
        _fail(f"cannot write {output}: {error.strerror or error}")
    finally:
        partial.unlink(missing_ok=True)
    print(f"wrote {_matches(written)} to {output}", flush=True)


@archive_app.command(cls=ArchiveCommand)
def stats(database_url: DatabaseUrlOption = None, data_dir: DataDirOption = None) -> None:
    """Prints the archive's matches, size, revision and end times.

    The end times are the oldest and the newest match's."""
    from services.archive.base import MatchSpan
    from services.archive.database import HEAD
    from services.archive.records import ArchiveSize

    async def read(opened: SqlArchive) -> tuple[ArchiveSize, MatchSpan]:
        return await opened.size(), await opened.span()

    archive = _archive(database_url, data_dir)
    size, span = _run(archive, read)
    # start() succeeded, so the schema is at this meeple's revision.
    lines = [
        f"archive: {archive.safe_url}",
        f"revision: {HEAD}",
        f"matches: {size.matches}",
        f"size: {size.bytes:,} bytes ({size.bytes / 1e6:.1f} MB)",
        f"oldest end: {_time(span.oldest_ms)}",
        f"newest end: {_time(span.newest_ms)}",
    ]
    print("\n".join(lines), flush=True)
