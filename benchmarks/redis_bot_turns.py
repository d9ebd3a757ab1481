"""What the Redis job queue adds to a bot's turn.

A client plays Othello against a server bot ("random": the thinking itself
takes microseconds) and times each bot turn from its own move's answer to
the bot's move arriving on its WatchMatch stream. The same server runs twice
in this process, measured in one run: coordination in memory (the baseline:
the bot is called in-process), then on a real redis-server (the bot turn
goes through the job stream: the human's commit queues it with the record,
a worker's pull takes both, and the bot's commit acknowledges it). It
prints the latency Redis adds at p50 against its goal (< 1 ms).

    python benchmarks/redis_bot_turns.py [--turns 600]

It needs redis-server on the PATH (Debian's package redis-server).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import grpc
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine_core
from services.app import App
from services.convert import action_to_proto
from services.settings import Settings
from tests.redis_servers import RedisServer

TOKEN = "meeple-seat-token"
GOAL_ADDED_P50 = 0.001  # seconds


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def bot_turns(address: str, turns: int, seed: int) -> list[float]:
    """Seconds from each of our moves' answer to the bot's reply on the stream."""
    rng = random.Random(seed)
    latencies: list[float] = []
    human = ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)
    bot = ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec="random")
    create = ms.CreateMatchRequest(
        config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO), seats=[human, bot]
    )
    with grpc.insecure_channel(address) as channel:
        stub = ms_grpc.MatchServiceStub(channel)
        while len(latencies) < turns:
            match_id = stub.CreateMatch(create).match.match_id
            token = stub.JoinMatch(ms.JoinMatchRequest(match_id=match_id, seat=0)).seat_token
            state = engine_core.load_game("othello").new_initial_state()
            sent: float | None = None
            for event in stub.WatchMatch(ms.WatchMatchRequest(match_id=match_id)):
                kind = event.WhichOneof("event")
                if kind == "ended" or len(latencies) >= turns:
                    break
                if kind == "action":
                    state.apply_action(state.string_to_action(event.action.action.notation))
                    if event.action.seat == 1 and sent is not None:
                        latencies.append(time.perf_counter() - sent)
                        sent = None
                elif kind != "snapshot":
                    continue
                if sent is None and not state.is_terminal() and state.current_player() == 0:
                    action = action_to_proto(state, rng.choice(state.legal_actions())).action
                    request = ms.SubmitActionRequest(
                        match_id=match_id, expected_ply=len(state.history()), actions=[action]
                    )
                    stub.SubmitAction(request, metadata=[(TOKEN, token)])
                    sent = time.perf_counter()
    return latencies


def measure(turns: int, redis_url: str | None) -> list[float]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    settings = Settings(rate_per_second=None, matches_per_minute=100_000)
    app = App("127.0.0.1:0", settings=settings, redis_url=redis_url)
    asyncio.run_coroutine_threadsafe(app.start(), loop).result(60)
    try:
        bot_turns(f"127.0.0.1:{app.port}", 30, seed=0)  # warm up the AI worker
        return bot_turns(f"127.0.0.1:{app.port}", turns, seed=1)
    finally:
        asyncio.run_coroutine_threadsafe(app.stop(grace=0.5), loop).result(60)
        loop.call_soon_threadsafe(loop.stop)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=600)
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        print("skipped: redis-server is not installed (apt-get install redis-server)")
        return
    memory = measure(args.turns, None)
    with tempfile.TemporaryDirectory() as folder:
        redis = RedisServer(Path(folder))
        try:
            version = subprocess.run(
                ["redis-server", "--version"], capture_output=True, text=True
            ).stdout.split()[2]
            queued = measure(args.turns, redis.url)
        finally:
            redis.stop()
    print(f"bot turns of a random Othello bot, {args.turns} each, redis-server {version}")
    print(f"{'':>20} {'p50 ms':>8} {'p99 ms':>8} {'mean ms':>8}")
    for name, samples in [("in memory", memory), ("via Redis queue", queued)]:
        p50, p99 = percentile(samples, 0.5), percentile(samples, 0.99)
        print(f"{name:>20} {p50 * 1e3:8.2f} {p99 * 1e3:8.2f} {statistics.mean(samples) * 1e3:8.2f}")
    added50 = percentile(queued, 0.5) - percentile(memory, 0.5)
    added99 = percentile(queued, 0.99) - percentile(memory, 0.99)
    ratio = percentile(queued, 0.5) / percentile(memory, 0.5)
    print(f"added by the Redis queue: {added50 * 1e3:.2f} ms at p50, {added99 * 1e3:.2f} ms at p99")
    print(f"ratio of p50s (Redis / memory): {ratio:.2f}")
    verdict = "met" if added50 < GOAL_ADDED_P50 else "not met"
    print(f"goal: Redis adds < {GOAL_ADDED_P50 * 1e3:g} ms at p50: {verdict}")


if __name__ == "__main__":
    main()
