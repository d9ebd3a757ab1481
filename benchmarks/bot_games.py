"""Bot-vs-bot games per second through the server, with server-side bots:
`meeple up` alone (coordination in memory, one AI worker process), then the
split topology on a real redis-server (`meeple serve match` and one, then
two, `meeple worker` processes). `meeple loadtest` drives each through the
public API (Othello, random bots, 16 matches in flight) in one run; it
prints games per second, how the Redis topology scales from one worker
to two, and Redis with one worker against memory (goal: >= 0.8x).

    python benchmarks/bot_games.py [--seconds 10] [--game othello]

It needs redis-server on the PATH (Debian's package redis-server).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from services.loadtest import LoadConfig, run
from tests.e2e.processes import Meeple
from tests.redis_servers import RedisServer

GOAL_RATIO = 0.8  # games/s on Redis with one worker, against memory
SETTINGS = {
    "MEEPLE_LOG_LEVEL": "WARNING",
    "MEEPLE_RATE_PER_SECOND": "off",
    "MEEPLE_MATCHES_PER_MINUTE": "1000000",
}


def games_per_second(address: str, game: str, seconds: float) -> tuple[float, float]:
    """Games and actions per second of a loadtest run against ``address``."""
    config = LoadConfig(
        target=address,
        metrics=None,
        games=(game,),
        matches=None,
        concurrency=16,
        rate=None,
        duration=seconds,
        bots="server",
        bot_spec="random",
        matchmaking=False,
        spectators=0,
        seed=0,
    )
    report = asyncio.run(run(config))
    data = report.to_json()
    if data["matches"]["failed"] or data["errors"]:
        raise SystemExit(f"the run had errors: {data['errors']}")
    return data["matches"]["per_second"], data["actions"]["per_second"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--game", default="othello")
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        print("skipped: redis-server is not installed (apt-get install redis-server)")
        return
    results = {}
    with ExitStack() as stack:
        up = Meeple("up", "--port", "0", "--metrics-port", "0", "--web-port", "0", env=SETTINGS)
        stack.callback(up.stop)
        results["meeple up (memory, 1 AI worker)"] = games_per_second(
            up.address, args.game, args.seconds
        )
    for workers in (1, 2):
        with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
            redis = RedisServer(Path(folder))
            stack.callback(redis.stop)
            match = Meeple(
                "serve", "match", "auth", "--port", "0", "--metrics-port", "0",
                "--redis", redis.url, env=SETTINGS,
            )  # fmt: skip
            stack.callback(match.stop)
            for _ in range(workers):
                worker = Meeple("worker", "--metrics-port", "0", "--redis", redis.url, env=SETTINGS)
                stack.callback(worker.stop)
            results[f"Redis, {workers} worker{'s' if workers > 1 else ''}"] = games_per_second(
                match.address, args.game, args.seconds
            )
    print(f"{args.game}, random bots on the server, 16 matches in flight, {args.seconds:g} s each")
    print(f"{'topology':>32} {'games/s':>8} {'actions/s':>10}")
    for name, (games, actions) in results.items():
        print(f"{name:>32} {games:8.1f} {actions:10.0f}")
    memory = results["meeple up (memory, 1 AI worker)"][0]
    one, two = results["Redis, 1 worker"][0], results["Redis, 2 workers"][0]
    print(f"Redis, 2 workers / 1 worker: {two / one:.2f}")
    verdict = "met" if one / memory >= GOAL_RATIO else "not met"
    print(f"Redis, 1 worker / memory: {one / memory:.2f} (goal >= {GOAL_RATIO:g}: {verdict})")


if __name__ == "__main__":
    main()
