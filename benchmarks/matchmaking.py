"""Matchmaking throughput and time to assignment through gRPC.

A `meeple serve matchmaking` process runs on a real redis-server; clients
(asyncio gRPC, many tickets in flight) create tickets of single players and
watch each until it is assigned. Two kinds of queue: 1v1 Othello, and Rolit
tables of 4 seats. For each it prints the tickets assigned per second and
the time from CreateTicket to the assignment on the client (p50, p99); the
same run against the in-memory store (`meeple serve matchmaking` without
Redis) is the baseline, measured alongside. Last, each Redis figure
against its goal (``GOAL_*``) as a ratio: 1.00 or more meets it.

    python benchmarks/matchmaking.py [--tickets 4000] [--in-flight 200]

It needs redis-server on the PATH (Debian's package redis-server).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from pathlib import Path

import grpc
from meeple.v1 import game_pb2 as pb
from meeple.v1 import matchmaking_service_pb2 as mm
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.processes import Meeple
from tests.redis_servers import RedisServer

TICKET = "meeple-ticket-token"
QUEUES = {
    "1v1 Othello": (pb.GameConfig(kind=pb.GAME_KIND_OTHELLO), [2]),
    "Rolit, 4 seats": (pb.GameConfig(kind=pb.GAME_KIND_ROLIT), [4]),
}
SETTINGS = {
    "MEEPLE_LOG_LEVEL": "WARNING",
    "MEEPLE_RATE_PER_SECOND": "off",
    "MEEPLE_MATCHES_PER_MINUTE": "1000000",
    "MEEPLE_TICKETS_PER_MINUTE": "1000000000",
    "MEEPLE_OPEN_TICKETS": "1000000",
    "MEEPLE_WATCH_STREAMS": "100000",
}


# What the Redis store should reach, on a 2-core machine: tickets assigned
# per second, the median time to assignment (lower is better: its ratio is
# the goal over the figure), and its throughput against memory's.
GOAL_RATE = 1_000
GOAL_P50_MS = 150
GOAL_OF_MEMORY = 0.8


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def drive(
    address: str, config: pb.GameConfig, seats: list[int], tickets: int, in_flight: int, tag: str
) -> tuple[float, list[float]]:
    """Tickets assigned per second, and each ticket's time to assignment."""
    latencies: list[float] = []
    slots = asyncio.Semaphore(in_flight)
    async with grpc.aio.insecure_channel(address) as channel:
        stub = mm_grpc.MatchmakingServiceStub(channel)

        async def one(index: int) -> None:
            async with slots:
                began = time.perf_counter()
                request = mm.CreateTicketRequest(
                    config=config, player_ids=[f"{tag}{index}"], seat_counts=seats
                )
                created = await stub.CreateTicket(request)
                watch = mm.WatchTicketRequest(ticket_id=created.ticket.ticket_id)
                metadata = ((TICKET, created.ticket_token),)
                async for event in stub.WatchTicket(watch, metadata=metadata):
                    if event.HasField("assigned"):
                        latencies.append(time.perf_counter() - began)
                    if event.HasField("assigned") or event.HasField("ended"):
                        break

        began = time.perf_counter()
        await asyncio.gather(*(one(index) for index in range(tickets)))
        elapsed = time.perf_counter() - began
    if len(latencies) != tickets:
        raise SystemExit(f"only {len(latencies)} of {tickets} tickets were assigned")
    return tickets / elapsed, latencies


def measure(
    redis_url: str | None, tickets: int, in_flight: int
) -> dict[str, tuple[float, list[float]]]:
    args = ["serve", "matchmaking", "--port", "0", "--metrics-port", "0"]
    if redis_url:
        args += ["--redis", redis_url]
    server = Meeple(*args, env=SETTINGS)
    try:
        results = {}
        for name, (config, seats) in QUEUES.items():
            asyncio.run(drive(server.address, config, seats, in_flight, in_flight, "warm"))
            tag = f"{name[:3]}{'r' if redis_url else 'm'}"
            results[name] = asyncio.run(
                drive(server.address, config, seats, tickets, in_flight, tag)
            )
        return results
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tickets", type=int, default=4000)
    parser.add_argument("--in-flight", type=int, default=200)
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        print("skipped: redis-server is not installed (apt-get install redis-server)")
        return
    memory = measure(None, args.tickets, args.in_flight)
    with tempfile.TemporaryDirectory() as folder:
        redis = RedisServer(Path(folder))
        try:
            on_redis = measure(redis.url, args.tickets, args.in_flight)
        finally:
            redis.stop()
    print(f"{args.tickets} tickets per queue, {args.in_flight} in flight, through gRPC")
    print(f"{'queue':>16} {'store':>7} {'tickets/s':>10} {'p50 ms':>8} {'p99 ms':>8}")
    for name in QUEUES:
        for store, results in (("memory", memory), ("redis", on_redis)):
            rate, latencies = results[name]
            p50, p99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
            print(f"{name:>16} {store:>7} {rate:10.0f} {p50 * 1e3:8.1f} {p99 * 1e3:8.1f}")
    print("goals on Redis (a ratio >= 1.00 meets its goal):")
    for name in QUEUES:
        rate, latencies = on_redis[name]
        p50_ms = percentile(latencies, 0.5) * 1e3
        of_memory = rate / memory[name][0]
        for figure, ratio in (
            (f"{rate:.0f} tickets/s against {GOAL_RATE}", rate / GOAL_RATE),
            (f"p50 {p50_ms:.0f} ms against {GOAL_P50_MS}", GOAL_P50_MS / p50_ms),
            (f"{of_memory:.2f}x memory against {GOAL_OF_MEMORY}x", of_memory / GOAL_OF_MEMORY),
        ):
            verdict = "met" if ratio >= 1 else "NOT met"
            print(f"{name:>16} {figure:>34}: {ratio:5.2f} ({verdict})")


if __name__ == "__main__":
    main()
