"""Where the CPU goes, per process kind, for a fixed amount of work.

Bot turns: a fixed number of bot-vs-bot matches (Othello, "random" server
bots, 16 in flight, driven by `services.loadtest.run` as bot_games.py does)
on `meeple up` in memory (one process and its AI pool), then on one
redis-server with `meeple serve match` and 1, 2 and 4 `meeple worker`
processes. Tickets: a fixed number of 1v1 Othello matchmaking tickets (200
in flight, as matchmaking.py drives them) on `meeple serve matchmaking` in
memory and on redis-server.

For every process kind it reads utime + stime from /proc/<pid>/stat (all
threads) before and after the measured work (after a warm-up), the AI pool
processes through the worker's descendants in /proc (plus what the worker
reaped), and prints CPU-ms per bot turn (or per ticket) and turns (tickets)
per second per core. The load generator is this benchmark's own process
(its asyncio loop and gRPC client; /proc/self/stat, all threads). A bot turn
is one action of the loadtest report (the finished matches' final plies:
with server bots in Othello every ply is a bot's turn, a pass included).

Then: the Redis/memory targets (games/s with 1 worker >= 0.8x memory, CPU
per turn summed over every process <= 1.3x memory), whether CPU per turn
stays flat from 1 to 4 workers and what bounds the throughput (the cores,
one process, or neither), and sizing figures: cores per 1,000 turns/s per
process kind, Redis shards per 1,000 turns/s, cores per 1,000 tickets/s.

    python benchmarks/capacity.py [--matches 400] [--tickets 4000] [--game othello]
                                  [--workers 1,2,4] [--no-pin] [--quick]

It needs redis-server on the PATH (Debian's package redis-server).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import matchmaking as tickets_bench
from proc_cpu import (
    Group,
    MachineTimes,
    Usage,
    descendants,
    pin,
    snapshot,
    usable_cores,
    usage,
)

from services.loadtest import LoadConfig, run
from tests.e2e.processes import Meeple
from tests.redis_servers import RedisServer

# No rate limits, room for every watch stream and every open ticket: one
# client address makes all the load.
SETTINGS = {
    **tickets_bench.SETTINGS,
    "MEEPLE_TICKETS_PER_MINUTE": "1000000000",
    "MEEPLE_OPEN_TICKETS": "1000000",
}
IN_FLIGHT = 16
TICKETS_IN_FLIGHT = 200
QUEUE = "1v1 Othello"
LOAD = "load generator"
GAMES_GOAL = 0.8  # games/s on Redis with 1 worker, against memory: at least
CPU_GOAL = 1.3  # CPU per turn on Redis (every process), against memory: at most
IDLE_SECONDS = 2.0  # before each measured run: what every kind costs with no work
FLAT = 1.15  # CPU per turn "flat" over worker counts: max / min at most


@dataclass
class Measured:
    """One topology's fixed work: how much, how long, and the CPU per group."""

    name: str
    work: int  # bot turns or tickets
    matches: int
    wall: float
    cpu: dict[str, Usage]
    machine: MachineTimes
    cores: int
    idle: dict[str, float]  # cores each kind kept busy with no work, just before
    pinned: str = ""

    @property
    def total(self) -> float:
        return sum(u.seconds for u in self.cpu.values())

    def ms_per(self, kind: str | None = None) -> float:
        seconds = self.total if kind is None else self.cpu[kind].seconds
        return seconds * 1000 / self.work

    @property
    def rate(self) -> float:
        return self.work / self.wall

    def net_ms(self) -> float:
        """CPU-ms per unit, every process, less what they spend idle (their
        idle rate over the run's wall time: under load a poll often finds
        work, so this takes off an upper bound of the fixed cost)."""
        return (self.total - sum(self.idle.values()) * self.wall) * 1000 / self.work


def measure(
    name: str, groups: list[Group], work: Callable[[], tuple[int, int]], pinned: str = ""
) -> Measured:
    """Runs ``work`` (returns the units done and the matches) between two
    snapshots of ``groups``, the load generator added."""
    groups = [*groups, Group(LOAD, (os.getpid(),))]
    before = snapshot(groups)
    time.sleep(IDLE_SECONDS)
    idle = {k: u.seconds / IDLE_SECONDS for k, u in usage(before, snapshot(groups)).items()}
    before, machine, began = snapshot(groups), MachineTimes.read(), time.perf_counter()
    done, matches = work()
    wall = time.perf_counter() - began
    after, machine = snapshot(groups), MachineTimes.read() - machine
    return Measured(
        name, done, matches, wall, usage(before, after), machine, usable_cores(), idle, pinned
    )


def bot_matches(address: str, game: str, matches: int) -> tuple[int, int]:
    """A loadtest of ``matches`` bot-vs-bot matches: (bot turns, matches)."""
    config = LoadConfig(
        target=address,
        metrics=None,
        games=(game,),
        matches=matches,
        concurrency=IN_FLIGHT,
        rate=None,
        duration=None,
        bots="server",
        bot_spec="random",
        matchmaking=False,
        spectators=0,
        seed=0,
    )
    data: dict[str, Any] = asyncio.run(run(config, console=Console(quiet=True))).to_json()
    if data["matches"]["failed"] or data["errors"] or data["matches"]["completed"] != matches:
        raise SystemExit(f"the run had errors: {data['matches']}, {data['errors']}")
    return int(data["actions"]["total"]), matches


def ticket_run(address: str, count: int, tag: str) -> tuple[int, int]:
    """``count`` tickets through one queue, each watched until assigned."""
    config, seats = tickets_bench.QUEUES[QUEUE]
    asyncio.run(tickets_bench.drive(address, config, seats, count, TICKETS_IN_FLIGHT, tag))
    return count, count // seats[0]


@contextmanager
def redis_server() -> Iterator[RedisServer]:
    with tempfile.TemporaryDirectory() as folder:
        server = RedisServer(Path(folder))
        try:
            yield server
        finally:
            server.stop()


def start(stack: ExitStack, *args: str) -> Meeple:
    process = Meeple(*args, "--metrics-port", "0", env=SETTINGS)
    stack.callback(process.stop)
    return process


def memory_bots(game: str, matches: int, warm: int) -> Measured:
    with ExitStack() as stack:
        up = start(stack, "up", "--port", "0", "--web-port", "0")
        bot_matches(up.address, game, warm)
        groups = [
            Group("meeple up: main", (up.pid,)),
            Group("meeple up: AI pool", (up.pid,), "descendants"),
        ]
        return measure("memory", groups, lambda: bot_matches(up.address, game, matches))


def pin_workers(workers: list[Meeple], cores: int) -> str:
    """Worker i (with its AI processes) on core i mod cores; says what it did."""
    where = []
    for index, worker in enumerate(workers):
        core = sorted(os.sched_getaffinity(0))[index % cores]
        pin(worker.pid, {core})
        for child in descendants(worker.pid):
            pin(child, {core})
        where.append(f"worker {index + 1} -> core {core}")
    return ", ".join(where) + " (each with its AI processes; the rest float)"


def redis_bots(game: str, matches: int, warm: int, workers: int, pinning: bool) -> Measured:
    with redis_server() as redis, ExitStack() as stack:
        assert redis.process is not None
        match = start(stack, "serve", "match", "auth", "--port", "0", "--redis", redis.url)
        pool = [start(stack, "worker", "--redis", redis.url) for _ in range(workers)]
        pinned = ""
        cores = usable_cores()
        if pinning and workers >= 2 and cores >= 2 and shutil.which("taskset"):
            pinned = pin_workers(pool, cores)
        bot_matches(match.address, game, warm)
        roots = tuple(worker.pid for worker in pool)
        groups = [
            Group("match server", (match.pid,), "all"),
            Group("worker main", roots),
            Group("worker AI", roots, "descendants"),
            Group("redis-server", (redis.process.pid,)),
        ]
        name = f"Redis, {workers} worker{'s' if workers > 1 else ''}"
        return measure(name, groups, lambda: bot_matches(match.address, game, matches), pinned)


def matchmaking_run(on_redis: bool, count: int) -> Measured:
    with ExitStack() as stack:
        groups = []
        args = ["serve", "matchmaking", "--port", "0"]
        if on_redis:
            redis = stack.enter_context(redis_server())
            assert redis.process is not None
            args += ["--redis", redis.url]
            groups.append(Group("redis-server", (redis.process.pid,)))
        maker = start(stack, *args)
        groups.insert(0, Group("matchmaker", (maker.pid,), "all"))
        store = "r" if on_redis else "m"
        ticket_run(maker.address, TICKETS_IN_FLIGHT, f"warm{store}")
        return measure(
            "Redis" if on_redis else "memory",
            groups,
            lambda: ticket_run(maker.address, count, f"t{store}"),
        )


def cpu_table(runs: list[Measured], unit: str) -> None:
    """Per run: each kind's processes, CPU, cores busy, CPU-ms per unit and
    units per second per core."""
    for measured in runs:
        head = (
            f"{measured.name}: {measured.work} {unit}s ({measured.matches} matches) in "
            f"{measured.wall:.1f} s = {measured.rate:,.0f} {unit}s/s, "
            f"{measured.matches / measured.wall:.1f} matches/s"
        )
        print(head)
        if measured.pinned:
            print(f"  pinned: {measured.pinned}")
        print(
            f"  {'process kind':<22} {'procs':>5} {'CPU s':>7} {'cores busy':>10} "
            f"{'busiest':>7} {f'CPU-ms/{unit}':>12} {f'{unit}s/s per core':>17} {'idle':>6}"
        )
        for kind, used in measured.cpu.items():
            ms = used.seconds * 1000 / measured.work
            per_core = f"{1000 / ms:17,.0f}" if ms > 0 else f"{'-':>17}"
            note = f"  ({used.vanished} exited)" if used.vanished else ""
            print(
                f"  {kind:<22} {used.processes:>5} {used.seconds:7.2f} "
                f"{used.seconds / measured.wall:10.2f} {used.busiest / measured.wall:7.2f} "
                f"{ms:12.3f} {per_core} {measured.idle.get(kind, 0.0):6.2f}{note}"
            )
        server = measured.total - measured.cpu[LOAD].seconds
        print(
            f"  {'every process':<22} {'':>5} {measured.total:7.2f} "
            f"{measured.total / measured.wall:10.2f} {'':>7} {measured.ms_per():12.3f} "
            f"{1000 / measured.ms_per():17,.0f} {sum(measured.idle.values()):6.2f}"
        )
        print(
            f"  {'all but the load gen.':<22} {'':>5} {server:7.2f} "
            f"{server / measured.wall:10.2f} {'':>7} {server * 1000 / measured.work:12.3f}"
        )
        share = measured.machine.busy / (measured.wall * measured.cores)
        print(
            f"  machine: {measured.cores} cores, {share:.0%} busy over the run "
            f"(every process on it), steal {measured.machine.steal / measured.wall:.2f} cores"
        )
        print(f"  bounded by: {bound(measured)}")
        if "redis-server" in measured.cpu:
            ms = measured.ms_per("redis-server")
            print(
                f"  redis-server is one thread: a shard tops out at {1000 / ms:,.0f} {unit}s/s "
                f"(its {ms:.3f} CPU-ms per {unit} at 100% of one core)"
            )
        print()


def verdict(ratio: float, goal: float, at_least: bool) -> str:
    met = ratio >= goal if at_least else ratio <= goal
    return f"goal {'>=' if at_least else '<='} {goal}x: {'met' if met else 'NOT met'}"


def bound(measured: Measured) -> str:
    """What bounds this run's throughput, from the CPU it used."""
    ours = measured.total / (measured.wall * measured.cores)
    machine = measured.machine.busy / (measured.wall * measured.cores)
    single = {
        kind: used.busiest / measured.wall
        for kind, used in measured.cpu.items()
        if kind in ("match server", "worker main", "redis-server", "meeple up: main", "matchmaker")
        or kind == LOAD
    }
    kind, busiest = max(single.items(), key=lambda item: item[1])
    if machine >= 0.9:
        return f"the cores (our processes {ours:.0%} of them, the machine {machine:.0%})"
    if busiest >= 0.9:
        return f"one process: the {kind} ({busiest:.2f} of a core, one event loop/thread)"
    return (
        f"neither the cores ({machine:.0%} busy) nor one process (busiest: {kind} at "
        f"{busiest:.2f} core): waiting (round trips, a lock, a stream or a lease)"
    )


def report(
    memory: Measured, on_redis: list[Measured], tickets: list[Measured], workers: list[int]
) -> None:
    print("== CPU per bot turn, by process kind")
    cpu_table([memory, *on_redis], "turn")
    print("== CPU per ticket, by process kind")
    cpu_table(tickets, "ticket")

    print("== Targets (ratios in this run)")
    one = next((m for m, w in zip(on_redis, workers, strict=True) if w == 1), None)
    if one is None:
        print("  (no 1-worker run: give --workers with 1 for the targets)")
    else:
        games = (one.matches / one.wall) / (memory.matches / memory.wall)
        cpu = one.ms_per() / memory.ms_per()
        print(
            f"  games/s, Redis 1 worker / memory: {one.matches / one.wall:.1f} / "
            f"{memory.matches / memory.wall:.1f} = {games:.2f}x  "
            f"({verdict(games, GAMES_GOAL, True)})"
        )
        print(
            f"  CPU-ms per turn, every process, Redis 1 worker / memory: {one.ms_per():.3f} / "
            f"{memory.ms_per():.3f} = {cpu:.2f}x  ({verdict(cpu, CPU_GOAL, False)})"
        )
    print()

    print("== Capacity adds up? CPU per turn and throughput from 1 to more workers")
    print(
        f"  {'workers':>7} {'turns/s':>8} {'games/s':>8} {'CPU-ms/turn':>11} {'less idle':>9} "
        f"{'ours busy':>9} {'machine':>8} {'at full cores':>13}  bounded by"
    )
    for count, measured in zip(workers, on_redis, strict=True):
        ours = measured.total / measured.wall
        full = measured.cores * 1000 / measured.ms_per()
        machine = measured.machine.busy / (measured.wall * measured.cores)
        print(
            f"  {count:>7} {measured.rate:8,.0f} {measured.matches / measured.wall:8.1f} "
            f"{measured.ms_per():11.3f} {measured.net_ms():9.3f} {ours:8.2f}c {machine:8.0%} "
            f"{full:13,.0f}  "
            f"{bound(measured)}"
        )
    for what, costs in (
        ("CPU per turn", [m.ms_per() for m in on_redis]),
        ("less idle", [m.net_ms() for m in on_redis]),
    ):
        spread = max(costs) / min(costs)
        print(
            f"  {what}, most / least over {','.join(map(str, workers))} workers: {spread:.2f} "
            f"({'flat' if spread <= FLAT else 'NOT flat'}: within {FLAT:.2f})"
        )
    idle = [
        m.idle.get("worker main", 0.0) / max(1, w) for m, w in zip(on_redis, workers, strict=True)
    ]
    print(
        f"  idle, a worker's main process alone keeps {max(idle):.3f} of a core busy "
        f"(per worker, most over the runs): {max(idle) * 1000:.0f} CPU-ms a second with no work"
    )
    print(
        "  'at full cores' = cores x 1000 / CPU-ms per turn: the turns/s these costs allow when "
        "every core works; measured / that = our share of the cores"
    )
    print()

    print("== Sizing (from the Redis, 1 worker run; cores per 1,000/s = CPU-ms per unit)")
    sizing = one or on_redis[0]
    for kind in sizing.cpu:
        if kind != "redis-server":
            print(f"  {kind:<22} {sizing.ms_per(kind):6.2f} cores per 1,000 bot turns/s")
    redis_ms = sizing.ms_per("redis-server")
    print(
        f"  {'redis-server':<22} {redis_ms:6.2f} shards per 1,000 bot turns/s at 100% of "
        f"a shard's core ({1000 / redis_ms:,.0f} turns/s per shard)"
    )
    server = memory.ms_per() - memory.ms_per(LOAD)
    print(
        f"  {'meeple up (memory)':<22} {server:6.2f} cores per 1,000 bot turns/s, but one "
        f"process: one core for its event loop ({memory.ms_per('meeple up: main'):.2f} of "
        "these) plus its AI pool"
    )
    for measured in tickets:
        for kind in measured.cpu:
            what = "shards" if kind == "redis-server" else "cores"
            print(
                f"  {measured.name + ', ' + kind:<22} {measured.ms_per(kind):6.2f} {what} per "
                "1,000 tickets/s"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=400)
    parser.add_argument("--tickets", type=int, default=4000)
    parser.add_argument("--game", default="othello")
    parser.add_argument("--workers", default="1,2,4", help="worker counts on Redis, e.g. 1,2,4")
    parser.add_argument("--no-pin", action="store_true", help="never pin workers to cores")
    parser.add_argument("--quick", action="store_true", help="small amounts: a smoke check")
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        print("skipped: redis-server is not installed (apt-get install redis-server)")
        return
    matches, count = (48, 400) if args.quick else (args.matches, args.tickets)
    warm = min(IN_FLIGHT, matches)
    workers = [int(w) for w in args.workers.split(",")]
    memory = memory_bots(args.game, matches, warm)
    on_redis = [redis_bots(args.game, matches, warm, w, not args.no_pin) for w in workers]
    tickets = [matchmaking_run(False, count), matchmaking_run(True, count)]
    print(
        f"{args.game}, random server bots, {matches} matches ({IN_FLIGHT} in flight) per topology; "
        f"{count} {QUEUE} tickets ({TICKETS_IN_FLIGHT} in flight); after a warm-up each"
    )
    print(
        "CPU: utime+stime from /proc/<pid>/stat over the measured work; the load generator is "
        "this process (asyncio gRPC client; all its threads)"
    )
    print()
    report(memory, on_redis, tickets, workers)


if __name__ == "__main__":
    main()
