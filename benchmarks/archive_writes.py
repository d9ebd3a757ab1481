"""Does archiving keep up with finished matches, and what does it cost?
The topology of `benchmarks/bot_games.py` on a real redis-server (`meeple
serve match` and one `meeple worker`), Othello between random bots, 16
matches in flight: without an archive (the baseline, in the same run),
then archiving into SQLite, then into a real PostgreSQL. For each it
prints games per second, their ratio against the baseline (goal: >= 0.9,
archiving slows play by at most 10%), and whether the archive holds every
finished match a few seconds after the run (the writes kept up).

    python benchmarks/archive_writes.py [--seconds 10] [--rounds 2]

It needs redis-server and PostgreSQL (Debian's packages redis-server and
postgresql).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import redis as redis_py
from meeple.v1 import match_service_pb2 as ms

from benchmarks.bot_games import SETTINGS, games_per_second
from services.archive.database import sqlite_url, upgrade
from services.archive.sql import SqlArchive
from tests.e2e.processes import Meeple
from tests.postgres_servers import PostgresServer, find_binary
from tests.redis_servers import RedisServer

GOAL_RATIO = 0.9
DRAIN_SECONDS = 10.0  # the archive holds every finished match this soon after the run


def archived(url: str) -> int:
    async def count() -> int:
        archive = SqlArchive(url, migrate=False)
        await archive.start()
        try:
            return (await archive.size()).matches
        finally:
            await archive.close()

    return asyncio.run(count())


def finished(redis: RedisServer) -> int:
    """Finished matches the store still holds (all of the run's: none expired)."""
    client = redis_py.Redis.from_url(redis.url)
    status = str(ms.MATCH_STATUS_FINISHED).encode()
    keys = client.scan_iter(match="{meeple:*}:m:*", count=1000)
    return sum(client.hget(key, "status") == status for key in keys)


def run_topology(seconds: float, database_url: str | None) -> tuple[float, str]:
    """Games per second with the archive at ``database_url`` (None: none),
    and whether the archive kept up."""
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        redis = RedisServer(Path(folder))
        stack.callback(redis.stop)
        env = {**SETTINGS, "HOME": folder}
        if database_url is not None:
            env["MEEPLE_DATABASE_URL"] = database_url
        match = Meeple(
            "serve", "match", "auth", "--port", "0", "--metrics-port", "0", "--redis", redis.url,
            env=env,
        )  # fmt: skip
        stack.callback(match.stop)
        worker = Meeple("worker", "--metrics-port", "0", "--redis", redis.url, env=SETTINGS)
        stack.callback(worker.stop)
        games, _ = games_per_second(match.address, "othello", seconds)
        if database_url is None:
            return games, "-"
        expected = finished(redis)
        deadline = time.monotonic() + DRAIN_SECONDS
        while archived(database_url) < expected and time.monotonic() < deadline:
            time.sleep(0.2)
        held = archived(database_url)
        return games, f"{held}/{expected} archived" + (" (kept up)" if held >= expected else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if shutil.which("redis-server") is None or find_binary("initdb") is None:
        print(
            "skipped: needs redis-server and PostgreSQL (apt-get install redis-server postgresql)"
        )
        return
    best: dict[str, tuple[float, str]] = {}
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        postgres = PostgresServer(Path(folder) / "postgres")
        stack.callback(postgres.stop)
        for round_ in range(args.rounds):
            sqlite = sqlite_url(Path(folder) / f"sqlite-{round_}")
            Path(folder, f"sqlite-{round_}").mkdir()
            postgresql = postgres.create_database(f"bench_{round_}")
            for url in (sqlite, postgresql):
                upgrade(url)
            for name, url in (("none", None), ("SQLite", sqlite), ("PostgreSQL", postgresql)):
                games, drained = run_topology(args.seconds, url)
                if name not in best or games > best[name][0]:
                    best[name] = (games, drained)
    print(
        f"othello, random bots, Redis with 1 worker, 16 matches in flight, {args.seconds:g} s, "
        f"best of {args.rounds}"
    )
    print(f"{'archive':>12} {'games/s':>8} {'ratio':>6}  archive after the run")
    baseline = best["none"][0]
    for name, (games, drained) in best.items():
        print(f"{name:>12} {games:8.1f} {games / baseline:6.2f}  {drained}")
    for name in ("SQLite", "PostgreSQL"):
        ratio = best[name][0] / baseline
        verdict = "met" if ratio >= GOAL_RATIO and "kept up" in best[name][1] else "not met"
        print(
            f"{name} / none: {ratio:.2f} (goal >= {GOAL_RATIO:g}, every match archived: {verdict})"
        )


if __name__ == "__main__":
    main()
