"""Does a Redis Cluster spread the load? The same load on one redis-server
and on the tests' three-master Cluster (tests/redis_servers.py), measured in
one run.

Each store gets, in turn: bot-vs-bot games (`meeple serve match` and
`--workers` `meeple worker` processes with `--redis URL`, Othello with
"random" server bots, 16 in flight, driven by `services.loadtest.run` as
bot_games.py does), then matchmaking (`meeple serve matchmaking --redis
URL`, single-player tickets over several queues at once: one per game and
Volleyball's variants, each queue being one hash tag). It prints the
throughput on the Cluster against one redis-server (goal: at least 1.0x),
and per master: the keys it holds (DBSIZE), the commands it ran (INFO stats
total_commands_processed) and its CPU (INFO cpu, user + sys) during each
load; then the keys by kind per master (SCAN on each master), the kinds
read from the coordination modules' own key functions and constants (not
hard-coded: the bot job keys are being sharded), and whether each kind
spreads over all three masters.

    python benchmarks/cluster.py [--matches 200] [--tickets 2800] [--workers 2] [--quick]

It needs redis-server and redis-cli on the PATH (Debian's package redis-server).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import fnmatch
import importlib
import inspect
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import redis
from meeple.v1 import game_pb2 as pb

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import matchmaking as tickets_bench
from capacity import LOAD, SETTINGS, bot_matches
from proc_cpu import Group, Usage, snapshot, usage

from tests.e2e.processes import Meeple
from tests.redis_servers import RedisCluster, RedisServer

IN_FLIGHT = 16
TICKETS_IN_FLIGHT = 200
GOAL = 1.0  # throughput on the Cluster against one redis-server: at least
QUEUES: dict[str, tuple[pb.GameConfig, list[int]]] = {
    "othello": (pb.GameConfig(kind=pb.GAME_KIND_OTHELLO), [2]),
    "rolit": (pb.GameConfig(kind=pb.GAME_KIND_ROLIT), [4]),
    "volta": (pb.GameConfig(kind=pb.GAME_KIND_VOLTA), [2]),
    **{
        f"volleyball{'+big' if big else ''}{'+boost' if boost else ''}": (
            pb.GameConfig(
                kind=pb.GAME_KIND_VOLLEYBALL,
                volleyball=pb.VolleyballOptions(big_leagues=big, underdog_boost=boost),
            ),
            [2],
        )
        for big in (False, True)
        for boost in (False, True)
    },
}
TABLE = 4  # tickets per queue are a multiple of every table size

# --- the key layout, read from the code -------------------------------------------

MODULES = ("shards", "redis", "redis_jobs", "redis_matchmaking", "redis_ratings")


def modules() -> list[ModuleType]:
    found = []
    for name in MODULES:
        try:
            found.append(importlib.import_module(f"services.coordination.{name}"))
        except ImportError:
            continue
    return found


def attributes(names: tuple[str, ...]) -> list[Any]:
    """Each of ``names`` that some coordination module defines (first found)."""
    found = []
    for name in names:
        for module in modules():
            if hasattr(module, name):
                found.append(getattr(module, name))
                break
    return found


def glob_of(function: Callable[..., str], whole_tag: bool = False) -> str:
    """The keys a key function makes, as a glob: each argument a ``*``, and
    the hash tag a ``*`` too when it does not come from the arguments (a
    shard's tag, chosen by a hash of the id); with ``whole_tag``, every key
    of the same hash tag."""
    count = len(inspect.signature(function).parameters)
    marks = [f"\x01{index}\x01" for index in range(count)]
    try:
        key = function(*marks)
    except (TypeError, IndexError, ValueError):
        key = function(*range(count))  # a shard number
        marks = []
    for mark in marks:
        key = key.replace(mark, "*")
    if key.startswith("{") and "}" in key:
        tag, rest = key[1:].split("}", 1)
        if "*" not in tag:
            tag = "*"
        key = "{" + tag + "}" + ("*" if whole_tag else rest)
    return key


@dataclass(frozen=True)
class Kind:
    name: str
    globs: tuple[str, ...]


def key_kinds() -> list[Kind]:
    """The kinds of keys, each as globs made from the code's key functions
    (or its constants, in a layout that has them)."""
    match = [glob_of(f) for f in attributes(("data_key", "events_key"))]
    jobs = [glob_of(f) for f in attributes(("jobs_key", "delayed_key", "dead_key"))]
    jobs += [c for c in attributes(("JOBS", "DELAYED", "DEAD")) if isinstance(c, str)]
    queues = [glob_of(f, whole_tag=True) for f in attributes(("queued_key", "ticket_key"))]
    clients = [glob_of(f) for f in attributes(("open_key",))]
    names = ("DEADLINES", "LIVE", "QUEUES", "RESULTS", "TICKET_SECRET")
    singles = [c for c in attributes(names) if isinstance(c, str)]
    return [
        Kind("match data/events", tuple(dict.fromkeys(match))),
        Kind("job streams", tuple(dict.fromkeys(jobs))),
        Kind("matchmaking queues", tuple(dict.fromkeys(queues))),
        Kind("open tickets/client", tuple(clients)),
        Kind("global keys", tuple(singles)),
    ]


def classify(key: str, kinds: list[Kind]) -> str:
    for kind in kinds:
        if any(fnmatch.fnmatchcase(key, glob) for glob in kind.globs):
            return kind.name
    return "other"


# --- Redis figures -------------------------------------------------------------------


@dataclass(frozen=True)
class NodeFigures:
    commands: int
    cpu: float
    keys: int
    calls: dict[str, int]  # INFO commandstats: calls per command


def figures(port: int) -> NodeFigures:
    with redis.Redis(host="127.0.0.1", port=port) as client:
        stats: dict[str, Any] = client.info("stats")
        cpu: dict[str, Any] = client.info("cpu")
        keys = int(client.dbsize())
        commandstats: dict[str, Any] = client.info("commandstats")
    seconds = float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])
    calls = {
        name.removeprefix("cmdstat_"): int(values["calls"]) for name, values in commandstats.items()
    }
    return NodeFigures(int(stats["total_commands_processed"]), seconds, keys, calls)


def keys_by_kind(port: int, kinds: list[Kind]) -> tuple[collections.Counter[str], dict[str, str]]:
    """Keys per kind on one node (SCAN sees only that node's keys), and one
    example key of each kind."""
    counts: collections.Counter[str] = collections.Counter()
    examples: dict[str, str] = {}
    with redis.Redis(host="127.0.0.1", port=port) as client:
        for raw in client.scan_iter(count=1000):
            key = raw.decode(errors="replace")
            kind = classify(key, kinds)
            counts[kind] += 1
            examples.setdefault(kind, key)
    return counts, examples


# --- the loads -----------------------------------------------------------------------


@dataclass
class Phase:
    """One load on one store: its throughput and each node's share."""

    units: int
    matches: int
    wall: float
    before: list[NodeFigures]
    after: list[NodeFigures]
    processes: dict[str, Usage]  # the meeple processes and the load generator, from /proc

    @property
    def rate(self) -> float:
        return self.units / self.wall


def phase(ports: list[int], groups: list[Group], work: Callable[[], tuple[int, int]]) -> Phase:
    groups = [*groups, Group(LOAD, (os.getpid(),))]
    before, cpu = [figures(port) for port in ports], snapshot(groups)
    began = time.perf_counter()
    units, matches = work()
    wall = time.perf_counter() - began
    used = usage(cpu, snapshot(groups))
    return Phase(units, matches, wall, before, [figures(port) for port in ports], used)


async def all_queues(address: str, per_queue: int) -> None:
    in_flight = max(TABLE, TICKETS_IN_FLIGHT // len(QUEUES) // TABLE * TABLE)
    await asyncio.gather(
        *(
            tickets_bench.drive(address, config, seats, per_queue, in_flight, f"{name}{per_queue}")
            for name, (config, seats) in QUEUES.items()
        )
    )


def tickets_run(address: str, per_queue: int) -> tuple[int, int]:
    asyncio.run(all_queues(address, per_queue))
    matches = sum(per_queue // seats[0] for _, seats in QUEUES.values())
    return per_queue * len(QUEUES), matches


@dataclass
class StoreRun:
    name: str
    ports: list[int]
    games: Phase
    tickets: Phase
    kinds: list[collections.Counter[str]]
    examples: dict[str, str]


def run_store(
    name: str, url: str, ports: list[int], game: str, matches: int, per_queue: int, workers: int
) -> StoreRun:
    kinds = key_kinds()
    with ExitStack() as stack:

        def start(*args: str) -> Meeple:
            process = Meeple(*args, "--metrics-port", "0", "--redis", url, env=SETTINGS)
            stack.callback(process.stop)
            return process

        match = start("serve", "match", "--port", "0")
        pool = tuple(start("worker").pid for _ in range(workers))
        groups = [Group("match server", (match.pid,), "all"), Group("workers", pool, "all")]
        bot_matches(match.address, game, min(IN_FLIGHT, matches))  # warm-up
        games = phase(ports, groups, lambda: bot_matches(match.address, game, matches))
        maker = start("serve", "matchmaking", "--port", "0")
        tickets_run(maker.address, TABLE * 2)  # warm-up
        groups = [Group("matchmaker", (maker.pid,), "all")]
        tickets = phase(ports, groups, lambda: tickets_run(maker.address, per_queue))
    counts, examples = [], {}
    for port in ports:
        found, seen = keys_by_kind(port, kinds)
        counts.append(found)
        examples.update({k: v for k, v in seen.items() if k not in examples})
    return StoreRun(name, ports, games, tickets, counts, examples)


@contextmanager
def stores() -> Iterator[tuple[RedisServer, RedisCluster]]:
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        single = RedisServer(Path(folder) / "single")
        stack.callback(single.stop)
        cluster = RedisCluster(Path(folder) / "cluster")
        stack.callback(cluster.stop)
        yield single, cluster


# --- the report ----------------------------------------------------------------------


def spread_table(run: StoreRun, load: str, measured: Phase, unit: str) -> None:
    print(
        f"  {load}: {measured.units} {unit} in {measured.wall:.1f} s = {measured.rate:,.0f} "
        f"{unit}/s ({measured.matches / measured.wall:.1f} matches/s)"
    )
    commands = [
        a.commands - b.commands for a, b in zip(measured.after, measured.before, strict=True)
    ]
    cpu = [a.cpu - b.cpu for a, b in zip(measured.after, measured.before, strict=True)]
    total_commands, total_cpu = max(1, sum(commands)), max(1e-9, sum(cpu))
    per = "CPU-ms/" + unit.rstrip("s")
    print(
        f"    {'node':>12} {'keys at end':>11} {'commands':>10} {'share':>6} {'CPU s':>6} "
        f"{'share':>6} {per:>12}"
    )
    for port, after, ran, used in zip(run.ports, measured.after, commands, cpu, strict=True):
        print(
            f"    {port:>12} {after.keys:>11,} {ran:>10,} {ran / total_commands:6.0%} "
            f"{used:6.2f} {used / total_cpu:6.0%} {used * 1000 / measured.units:12.3f}"
        )
    for port, after, before in zip(run.ports, measured.after, measured.before, strict=True):
        delta = {name: calls - before.calls.get(name, 0) for name, calls in after.calls.items()}
        top = sorted(delta.items(), key=lambda item: -item[1])[:6]
        each = ", ".join(f"{name} {calls / measured.units:.2f}" for name, calls in top if calls)
        print(f"    {port:>12} commands per {unit.rstrip('s')}: {each}")
    redis_ms = sum(cpu) * 1000 / measured.units
    parts = [f"{kind} {used.seconds * 1000 / measured.units:.3f}"
             for kind, used in measured.processes.items()]  # fmt: skip
    total = redis_ms + sum(u.seconds for u in measured.processes.values()) * 1000 / measured.units
    print(
        f"    CPU-ms per {unit.rstrip('s')}: {', '.join(parts)}, Redis (all nodes) "
        f"{redis_ms:.3f}; every process {total:.3f}"
    )
    if len(run.ports) > 1:
        busiest = max(cpu) * 1000 / measured.units
        print(
            f"    busiest master {max(cpu) / total_cpu:.0%} of the Cluster's Redis CPU: the "
            f"Cluster tops out near {1000 / busiest:,.0f} {unit}/s from Redis CPU"
        )


def kinds_table(run: StoreRun) -> None:
    names = [k.name for k in key_kinds()] + ["other"]
    print(f"  keys by kind at the end, per master ({run.name}):")
    header = "".join(f"{port:>9}" for port in run.ports)
    print(f"    {'kind':<22}{header}  spreads over every master?")
    for name in names:
        row = [counts.get(name, 0) for counts in run.kinds]
        if not any(row) and name == "other":
            continue
        holding = sum(1 for n in row if n)
        if len(run.ports) == 1:
            verdict = ""
        elif not holding:
            verdict = "(none made by this load)"
        elif name == "global keys":
            verdict = "(one key each: each lives on one master)"
        elif holding == len(run.ports):
            verdict = "yes"
        else:
            verdict = f"NO: on {holding} of {len(run.ports)} masters"
        print(f"    {name:<22}{''.join(f'{n:>9,}' for n in row)}  {verdict}")


def ratio_line(what: str, single: float, cluster: float, unit: str) -> None:
    ratio = cluster / single
    met = "met" if ratio >= GOAL else "NOT met"
    print(
        f"  {what}: Cluster {cluster:,.1f} against one redis-server {single:,.1f} {unit}: "
        f"{ratio:.2f}x (goal >= {GOAL}x: {met})"
    )


def report(single: StoreRun, cluster: StoreRun, workers: int) -> None:
    print("== Throughput, Cluster against one redis-server")
    ratio_line("bot games", single.games.matches / single.games.wall,
               cluster.games.matches / cluster.games.wall, "games/s")  # fmt: skip
    ratio_line("bot turns", single.games.rate, cluster.games.rate, "turns/s")
    ratio_line("tickets", single.tickets.rate, cluster.tickets.rate, "tickets/s")
    print()
    for run in (single, cluster):
        print(f"== {run.name}: each node during each load")
        spread_table(run, f"bot games (match server + {workers} workers)", run.games, "turns")
        spread_table(run, f"matchmaking ({len(QUEUES)} queues)", run.tickets, "tickets")
        kinds_table(run)
        print()
    print("== Key kinds: the globs read from services/coordination, and an example of each")
    for kind in key_kinds():
        example = cluster.examples.get(kind.name, single.examples.get(kind.name, "(none)"))
        print(f"  {kind.name:<22} {', '.join(kind.globs) or '(none found)'}  e.g. {example}")
    if "other" in cluster.examples:
        print(f"  {'other':<22} e.g. {cluster.examples['other']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--tickets", type=int, default=2800, help="in all, over the queues")
    parser.add_argument("--game", default="othello")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="small amounts: a smoke check")
    args = parser.parse_args()
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        print("skipped: redis-server is not installed (apt-get install redis-server)")
        return
    matches, tickets = (32, 560) if args.quick else (args.matches, args.tickets)
    per_queue = max(TABLE, tickets // len(QUEUES) // TABLE * TABLE)
    with stores() as (server, cluster):
        ports = [node.port for node in cluster.nodes]
        amounts = (args.game, matches, per_queue, args.workers)
        single = run_store("one redis-server", server.url, [server.port], *amounts)
        spread = run_store("three-master Cluster", cluster.url, ports, *amounts)
    print(
        f"{args.game}, random server bots, {matches} matches ({IN_FLIGHT} in flight), "
        f"{args.workers} workers; {per_queue * len(QUEUES)} tickets over {len(QUEUES)} queues "
        f"({', '.join(QUEUES)}); each after a warm-up"
    )
    print()
    report(single, spread, args.workers)


if __name__ == "__main__":
    main()
