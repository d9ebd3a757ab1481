"""``meeple archive`` (``services/cli_archive.py``) on a real SQLite file
and a real PostgreSQL server: migrate (idempotent), prune (exactly the
older matches; a dry run deletes nothing), export (a match in each format,
read back; a player's whole history as NDJSON, paged), stats; and each
error as one line with its exit code, never a traceback or a password."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from typer.testing import CliRunner, Result

from services import cli_archive
from services.archive.database import HEAD, current_revision, sqlite_url
from services.archive.exports import (
    NotOthello,
    game_record,
    match_document,
    read_ggf,
    read_match_document,
    read_sgf,
    to_ggf,
    to_sgf,
)
from services.archive.records import ArchivedMatch, MatchFilter
from services.archive.sql import SqlArchive
from services.cli import app
from tests.archive_matches import played_match
from tests.postgres_servers import PostgresServer
from tests.redis_servers import free_port

MEEPLE = Path(sys.executable).with_name("meeple")
DAY_MS = 86_400_000
# 2026-11-01T00:00:00Z: the matches end some days after it, in the past.
NOVEMBER_MS = 1_793_491_200_000
HOUR_MS = 3_600_000
NO_ARCHIVE = (
    "meeple: which archive? give --database-url URL (MEEPLE_DATABASE_URL) or --data-dir DIR "
    "(MEEPLE_DATA_DIR: its archive.sqlite3)\n"
)

runner = CliRunner()


def meeple(*args: str, **env: str) -> Result:
    """``meeple archive ARGS`` in this process, with only ``env``'s
    MEEPLE_DATABASE_URL and MEEPLE_DATA_DIR."""
    environment: dict[str, str | None] = {"MEEPLE_DATABASE_URL": None, "MEEPLE_DATA_DIR": None}
    environment.update(env)
    return runner.invoke(app, ["archive", *args], env=environment)


def ok(result: Result) -> str:
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    assert result.stderr == ""
    return result.stdout


def refused(result: Result, code: int = 1) -> str:
    """The one line of an error, after checking that it is one and the exit code."""
    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    assert isinstance(result.exception, SystemExit)  # no other exception escaped
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    return result.stderr


def write(url: str, matches: list[ArchivedMatch]) -> None:
    async def run() -> None:
        archive = SqlArchive(url, migrate=True)
        await archive.start()
        try:
            await archive.write(matches, [])
        finally:
            await archive.close()

    asyncio.run(run())


def archived_ids(url: str) -> set[str]:
    async def run() -> set[str]:
        archive = SqlArchive(url, migrate=False)
        await archive.start()
        try:
            found = await archive.matches(MatchFilter("alice"), None, 1000)
            found += await archive.matches(MatchFilter("carol"), None, 1000)
            return {match.match_id for match in found}
        finally:
            await archive.close()

    return asyncio.run(run())


MATCH_ARGS: dict[str, dict[str, Any]] = {
    "othello1": {"game": "othello", "seed": 3, "players": ["alice", "bot:hard"]},
    "volley1": {"game": "volleyball", "seed": 2, "players": ["alice", "bob"]},
    "rolit1": {"game": "rolit", "seed": 1, "players": ["carol", "alice", "bot:easy"]},
    "volta1": {
        "game": "volta",
        "seed": 4,
        "players": ["alice", "carol"],
        "plies": 3,
        "reason": ms.END_REASON_RESIGNATION,
        "end_seat": 1,
    },
    "othello2": {"game": "othello", "seed": 8, "players": ["bob", "carol"]},
}
for _name, _args in MATCH_ARGS.items():
    _args["match_id"] = _name
    _args["created_ms"] = NOVEMBER_MS + 10 * HOUR_MS


@pytest.fixture(scope="module")
def matches() -> dict[str, ArchivedMatch]:
    """The five matches, ended on days 1 to 5 of November 2026 in this order."""
    return {
        name: played_match(**{**args, "created_ms": args["created_ms"] + (day + 1) * DAY_MS})
        for day, (name, args) in enumerate(MATCH_ARGS.items())
    }


@pytest.fixture
def filled(tmp_path: Path, matches: dict[str, ArchivedMatch]) -> Path:
    """A data directory whose SQLite archive holds the five matches."""
    write(sqlite_url(tmp_path), list(matches.values()))
    return tmp_path


def utc(ms: int) -> str:
    text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000))
    return text + (f".{ms % 1000:03d}Z" if ms % 1000 else "Z")


# --- migrate -----------------------------------------------------------------------


def test_migrate_makes_the_sqlite_file_and_is_idempotent(tmp_path: Path) -> None:
    data_dir = tmp_path / "new" / "data"
    url = sqlite_url(data_dir)
    assert ok(meeple("migrate", "--data-dir", str(data_dir))) == (
        f"archive at {url}: revision none -> {HEAD}\n"
    )
    assert current_revision(url) == HEAD
    assert ok(meeple("migrate", MEEPLE_DATA_DIR=str(data_dir))) == (
        f"archive at {url}: already at revision {HEAD}\n"
    )
    assert current_revision(url) == HEAD


def test_migrate_upgrades_an_older_schema(tmp_path: Path) -> None:
    from services.archive.database import upgrade

    url = sqlite_url(tmp_path)
    upgrade(url, "0001")
    assert ok(meeple("migrate", "--database-url", url)) == (
        f"archive at {url}: revision 0001 -> {HEAD}\n"
    )


# --- stats -------------------------------------------------------------------------


def test_stats_counts_the_matches_and_their_end_times(
    filled: Path, matches: dict[str, ArchivedMatch]
) -> None:
    url = sqlite_url(filled)
    lines = ok(meeple("stats", "--data-dir", str(filled))).splitlines()
    size = (filled / "archive.sqlite3").stat().st_size
    assert lines == [
        f"archive: {url}",
        f"revision: {HEAD}",
        "matches: 5",
        f"size: {size:,} bytes ({size / 1e6:.1f} MB)",
        f"oldest end: {utc(matches['othello1'].ended_ms)}",
        f"newest end: {utc(matches['othello2'].ended_ms)}",
    ]
    assert lines[4].startswith("oldest end: 2026-11-02T10:")


def test_stats_of_an_empty_archive(tmp_path: Path) -> None:
    ok(meeple("migrate", "--data-dir", str(tmp_path)))
    lines = ok(meeple("stats", "--data-dir", str(tmp_path))).splitlines()
    assert lines[2:3] == ["matches: 0"]
    assert lines[4:] == ["oldest end: none", "newest end: none"]


# --- prune -------------------------------------------------------------------------


def test_prune_deletes_exactly_the_older_matches(filled: Path) -> None:
    url = sqlite_url(filled)
    # Day 3 (rolit1) ends at 10:00 plus its plies: 10:00 of that day keeps it.
    before = "2026-11-04T10:00:00"
    dry = ok(meeple("prune", "--before", before, "--dry-run", "--data-dir", str(filled)))
    assert dry == (
        f"archive at {url}: 2 matches ended before 2026-11-04T10:00:00Z (dry run: none deleted)\n"
    )
    assert archived_ids(url) == set(MATCH_ARGS)
    done = ok(meeple("prune", "--before", before, "--data-dir", str(filled)))
    assert done == f"archive at {url}: deleted 2 matches that ended before 2026-11-04T10:00:00Z\n"
    assert archived_ids(url) == {"rolit1", "volta1", "othello2"}
    again = ok(meeple("prune", "--before", before, "--data-dir", str(filled)))
    assert again == f"archive at {url}: deleted 0 matches that ended before 2026-11-04T10:00:00Z\n"
    # A date is midnight UTC; an offset is honoured.
    done = ok(meeple("prune", "--before", "2026-11-05", "--data-dir", str(filled)))
    assert done == f"archive at {url}: deleted 1 match that ended before 2026-11-05T00:00:00Z\n"
    assert archived_ids(url) == {"volta1", "othello2"}
    offset = "2026-11-06T12:00+02:00"
    dry = ok(meeple("prune", "--before", offset, "--dry-run", "--data-dir", str(filled)))
    assert "1 match ended before 2026-11-06T10:00:00Z (dry run" in dry


def test_prune_refuses_a_future_or_malformed_date(filled: Path) -> None:
    future = refused(meeple("prune", "--before", "2999-01-01", "--data-dir", str(filled)), 2)
    assert future == "meeple: --before 2999-01-01: 2999-01-01T00:00:00Z is in the future\n"
    bad = refused(meeple("prune", "--before", "last week", "--data-dir", str(filled)), 2)
    assert bad == (
        "meeple: --before 'last week': give a date YYYY-MM-DD or an ISO 8601 time like "
        "2026-12-02T10:00:00Z (UTC unless it has an offset)\n"
    )
    missing = refused(meeple("prune", "--data-dir", str(filled)), 2)
    assert missing.startswith("meeple: Missing option '--before'")
    assert archived_ids(sqlite_url(filled)) == set(MATCH_ARGS)


# --- export ------------------------------------------------------------------------


def test_export_a_match_in_each_format(
    filled: Path, tmp_path: Path, matches: dict[str, ArchivedMatch]
) -> None:
    othello = matches["othello1"]
    data = ("--data-dir", str(filled))
    text = ok(meeple("export", "--match", "othello1", *data))
    document, record = read_match_document(text)
    assert document == json.loads(json.dumps(match_document(othello)))
    assert record == game_record(othello)
    assert ok(meeple("export", "--match", "othello1", "--format", "json", *data)) == text

    record_text = ok(meeple("export", "--match", "othello1", "--format", "record", *data))
    assert json_format.Parse(record_text, pb.GameRecord()) == game_record(othello)

    ggf = ok(meeple("export", "--match", "othello1", "--format", "ggf", *data))
    assert ggf == to_ggf(othello) + "\n"
    assert read_ggf(ggf).moves == match_document(othello)["moves"]
    sgf = ok(meeple("export", "--match", "othello1", "--format", "sgf", *data))
    assert sgf == to_sgf(othello)
    assert read_sgf(sgf).moves == match_document(othello)["moves"]

    for fmt, name in (("json", "m.json"), ("sgf", "m.sgf")):
        target = tmp_path / name
        args = ("--match", "othello1", "--format", fmt, "-o", str(target))
        said = ok(meeple("export", *args, *data))
        assert said == f"wrote match othello1 to {target}\n"
        expected = text if fmt == "json" else sgf
        assert target.read_text(encoding="utf-8") == expected

    # Every game exports as the match document.
    for name in ("volley1", "rolit1", "volta1"):
        document, _ = read_match_document(ok(meeple("export", "--match", name, *data)))
        assert document["match_id"] == name
        assert document["moves"] == match_document(matches[name])["moves"]


def test_export_refuses_an_unknown_match_and_ggf_of_volleyball(
    filled: Path, matches: dict[str, ArchivedMatch], tmp_path: Path
) -> None:
    data = ("--data-dir", str(filled))
    unknown = refused(meeple("export", "--match", "nosuch", *data))
    assert unknown == "meeple: no match nosuch in the archive\n"
    with pytest.raises(NotOthello) as raised:
        to_ggf(matches["volley1"])
    target = tmp_path / "volley.ggf"
    for fmt in ("ggf", "sgf"):
        result = meeple("export", "--match", "volley1", "--format", fmt, "-o", str(target), *data)
        assert refused(result) == f"meeple: {raised.value}\n"
    assert not target.exists()


def test_export_a_players_history_as_ndjson(
    filled: Path, tmp_path: Path, matches: dict[str, ArchivedMatch], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_archive, "PAGE", 2)  # three pages for alice's four matches
    target = tmp_path / "alice.ndjson"
    said = ok(meeple("export", "--player", "alice", "-o", str(target), "--data-dir", str(filled)))
    assert said == f"wrote 4 matches to {target}\n"
    text = target.read_text(encoding="utf-8")
    assert text.endswith("\n")
    lines = text.split("\n")[:-1]
    assert len(lines) == 4
    documents = [read_match_document(line)[0] for line in lines]
    assert [document["match_id"] for document in documents] == [
        "volta1",
        "rolit1",
        "volley1",
        "othello1",
    ]  # the latest first
    for document in documents:
        assert document == json.loads(json.dumps(match_document(matches[document["match_id"]])))
    assert not target.with_name("alice.ndjson.partial").exists()

    othello = tmp_path / "carol-othello.ndjson"
    result = meeple(
        "export", "--player", "carol", "--game", "othello", "-o", str(othello),
        MEEPLE_DATA_DIR=str(filled),
    )  # fmt: skip
    assert ok(result) == f"wrote 1 match to {othello}\n"
    assert [json.loads(line)["match_id"] for line in othello.read_text().splitlines()] == [
        "othello2"
    ]
    nobody = tmp_path / "nobody.ndjson"
    assert ok(meeple("export", "--player", "zed", "-o", str(nobody), "--data-dir", str(filled)))
    assert nobody.read_text() == ""


def test_export_refuses_options_that_do_not_go_together(filled: Path) -> None:
    data = ("--data-dir", str(filled))
    both = refused(meeple("export", "--match", "a", "--player", "b", "-o", "x", *data), 2)
    assert both == "meeple: export: give --match ID or --player ID (one of them)\n"
    refused(meeple("export", *data), 2)
    no_file = refused(meeple("export", "--player", "alice", *data), 2)
    assert no_file == "meeple: export: --player needs -o FILE\n"
    fmt = refused(meeple("export", "--player", "alice", "--format", "ggf", "-o", "x", *data), 2)
    assert fmt == "meeple: export: --player writes NDJSON; --format goes with --match\n"
    game = refused(meeple("export", "--match", "othello1", "--game", "rolit", *data), 2)
    assert game == "meeple: export: --game goes with --player\n"
    chess = refused(meeple("export", "--player", "a", "--game", "chess", "-o", "x", *data), 2)
    assert "'chess' is not one of 'rolit', 'othello', 'volleyball', 'volta'" in chess


# --- errors that are the archive's -------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["migrate"],
        ["stats"],
        ["prune", "--before", "2026-01-01"],
        ["export", "--match", "m1"],
        ["export", "--player", "p1", "-o", "out.ndjson"],
    ],
)
def test_every_command_needs_an_archive(args: list[str]) -> None:
    assert refused(meeple(*args)) == NO_ARCHIVE
    assert refused(meeple(*args, MEEPLE_DATABASE_URL="", MEEPLE_DATA_DIR="")) == NO_ARCHIVE


def test_a_url_of_another_scheme_is_refused() -> None:
    for command in (["migrate"], ["stats"]):
        result = meeple(*command, "--database-url", "mysql://root:hunter2@db/meeple")
        assert refused(result) == (
            "meeple: the archive does not support mysql:// URLs; it takes "
            "postgresql://USER@HOST/DB, postgres://USER@HOST/DB or sqlite:///PATH\n"
        )


def test_a_missing_sqlite_file_is_not_made_by_reading_it(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    for args in (["stats"], ["export", "--match", "m1"], ["prune", "--before", "2026-01-01"]):
        result = meeple(*args, "--data-dir", str(tmp_path))
        assert refused(result) == (
            f"meeple: no archive at {url}: the file does not exist "
            "(a server makes it, as does `meeple archive migrate`)\n"
        )
    assert list(tmp_path.iterdir()) == []


def test_an_unreachable_postgresql_is_one_line_at_once_without_the_password() -> None:
    url = f"postgresql://meeple:hunter2@127.0.0.1:{free_port()}/archive"
    shown = url.replace("hunter2", "***")
    for args in (
        ["migrate"],
        ["stats"],
        ["prune", "--before", "2026-01-01", "--dry-run"],
        ["export", "--match", "m1"],
    ):
        began = time.monotonic()
        line = refused(meeple(*args, "--database-url", url))
        assert time.monotonic() - began < 3, args
        assert "hunter2" not in line
        assert shown in line
        assert "ConnectionRefusedError" in line, line


def test_the_installed_command_reads_the_environment_and_never_shows_a_traceback(
    tmp_path: Path,
) -> None:
    def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(MEEPLE), "archive", *args],
            capture_output=True,
            text=True,
            env={"COLUMNS": "200", "PATH": str(MEEPLE.parent), **env},
            timeout=60,
        )

    made = run("migrate", MEEPLE_DATA_DIR=str(tmp_path))
    assert (made.returncode, made.stderr) == (0, "")
    assert made.stdout == f"archive at {sqlite_url(tmp_path)}: revision none -> {HEAD}\n"
    url = f"postgresql://meeple:hunter2@127.0.0.1:{free_port()}/archive"
    # MEEPLE_DATABASE_URL wins over MEEPLE_DATA_DIR, as in a server.
    down = run("stats", MEEPLE_DATABASE_URL=url, MEEPLE_DATA_DIR=str(tmp_path))
    assert down.returncode == 1
    assert down.stdout == ""
    assert down.stderr.startswith("meeple: the archive at postgresql://meeple:***@127.0.0.1:")
    assert down.stderr.count("\n") == 1
    assert "Traceback" not in down.stderr
    assert "hunter2" not in down.stderr


# --- PostgreSQL --------------------------------------------------------------------


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    with postgres_server.database() as url:
        yield url


def test_on_postgresql_migrate_then_prune_and_export(
    postgres_url: str, matches: dict[str, ArchivedMatch], tmp_path: Path
) -> None:
    url = ("--database-url", postgres_url)
    behind = refused(meeple("stats", *url))
    assert behind == (
        f"meeple: the archive at {postgres_url} has no schema, this server needs {HEAD}: "
        "run `meeple archive migrate`\n"
    )
    assert ok(meeple("migrate", *url)) == f"archive at {postgres_url}: revision none -> {HEAD}\n"
    assert ok(meeple("migrate", MEEPLE_DATABASE_URL=postgres_url)) == (
        f"archive at {postgres_url}: already at revision {HEAD}\n"
    )
    write(postgres_url, list(matches.values()))

    text = ok(meeple("export", "--match", "othello1", *url))
    assert read_match_document(text)[1] == game_record(matches["othello1"])
    ggf = ok(meeple("export", "--match", "othello1", "--format", "ggf", *url))
    assert read_ggf(ggf).moves == match_document(matches["othello1"])["moves"]
    target = tmp_path / "alice.ndjson"
    assert ok(meeple("export", "--player", "alice", "-o", str(target), *url)) == (
        f"wrote 4 matches to {target}\n"
    )
    assert [json.loads(line)["match_id"] for line in target.read_text().splitlines()] == [
        "volta1",
        "rolit1",
        "volley1",
        "othello1",
    ]

    before = "2026-11-04T10:00:00Z"
    dry = ok(meeple("prune", "--before", before, "--dry-run", *url))
    assert dry == (
        f"archive at {postgres_url}: 2 matches ended before 2026-11-04T10:00:00Z "
        "(dry run: none deleted)\n"
    )
    assert ok(meeple("prune", "--before", before, *url)) == (
        f"archive at {postgres_url}: deleted 2 matches that ended before 2026-11-04T10:00:00Z\n"
    )
    assert archived_ids(postgres_url) == {"rolit1", "volta1", "othello2"}
    lines = ok(meeple("stats", *url)).splitlines()
    assert lines[:3] == [f"archive: {postgres_url}", f"revision: {HEAD}", "matches: 3"]
    assert lines[4:] == [
        f"oldest end: {utc(matches['rolit1'].ended_ms)}",
        f"newest end: {utc(matches['othello2'].ended_ms)}",
    ]
