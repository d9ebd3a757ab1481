"""CPU time of processes from ``/proc``, for the benchmarks that say where
the CPU goes (imported as ``proc_cpu``: the scripts run as ``python
benchmarks/NAME.py``, which puts this folder on the path; run on its own it
prints this process's figures and nothing else).

A *group* is a root process and, optionally, its descendants (a worker's AI
pool processes are multiprocessing children, found by scanning ``/proc``
for their parent). A snapshot reads utime + stime (every thread of each
process) and, for each root, the CPU of its children that it has already
reaped (cutime + cstime), so a child that exits between two snapshots (an
AI process replaced) is still counted in its group.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def stat_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command's name (field 3
    onwards, so index 0 is the state), or None if it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    return raw[raw.rindex(")") + 2 :].split()


def own_seconds(pid: int) -> float | None:
    """utime + stime of ``pid`` (all its threads), or None if it is gone."""
    fields = stat_fields(pid)
    if fields is None:
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS


def reaped_children_seconds(pid: int) -> float:
    """cutime + cstime: the CPU of ``pid``'s children it has waited for."""
    fields = stat_fields(pid)
    return 0.0 if fields is None else (int(fields[13]) + int(fields[14])) / TICKS


def parents() -> dict[int, int]:
    """Every visible process's parent pid."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = stat_fields(int(entry.name))
            if fields is not None:
                found[int(entry.name)] = int(fields[1])
    return found


def descendants(pid: int, parent_of: dict[int, int] | None = None) -> list[int]:
    """Children, grandchildren, ... of ``pid`` (not ``pid`` itself)."""
    parent_of = parents() if parent_of is None else parent_of
    children: dict[int, list[int]] = {}
    for child, parent in parent_of.items():
        children.setdefault(parent, []).append(child)
    found: list[int] = []
    todo = list(children.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo += children.get(child, [])
    return sorted(found)


def command_name(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return "?"
    return " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part)


def threads(pid: int) -> list[int]:
    try:
        return [int(task.name) for task in Path(f"/proc/{pid}/task").iterdir()]
    except (FileNotFoundError, ProcessLookupError):
        return []


def pin(pid: int, cores: set[int]) -> None:
    """Restricts every thread of ``pid`` (and so anything it starts later) to ``cores``."""
    for tid in threads(pid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.sched_setaffinity(tid, cores)


@dataclass(frozen=True)
class Group:
    """A kind of process: the root pids, and what of them counts here: the
    roots alone (``"roots"``), only their descendants (``"descendants"``), or
    both (``"all"``)."""

    name: str
    roots: tuple[int, ...]
    part: str = "roots"

    def pids(self, parent_of: dict[int, int]) -> list[int]:
        found = set() if self.part == "descendants" else set(self.roots)
        if self.part != "roots":
            found |= {pid for root in self.roots for pid in descendants(root, parent_of)}
        return sorted(found)


@dataclass
class Snapshot:
    """CPU seconds per group and per pid, at one moment."""

    per_pid: dict[str, dict[int, float]] = field(default_factory=dict)
    reaped: dict[str, float] = field(default_factory=dict)  # groups with descendants: cutime


def snapshot(groups: list[Group]) -> Snapshot:
    parent_of = parents()
    taken = Snapshot()
    for group in groups:
        seconds = {}
        for pid in group.pids(parent_of):
            value = own_seconds(pid)
            if value is not None:
                seconds[pid] = value
        taken.per_pid[group.name] = seconds
        if group.part != "roots":
            taken.reaped[group.name] = sum(reaped_children_seconds(r) for r in group.roots)
    return taken


@dataclass(frozen=True)
class Usage:
    """One group's CPU over an interval."""

    seconds: float
    processes: int  # processes seen at the end
    busiest: float  # the most CPU seconds of any one process of the group
    vanished: int  # processes seen at the start and gone at the end


def usage(before: Snapshot, after: Snapshot) -> dict[str, Usage]:
    """CPU seconds each group used between two snapshots. A process that
    appeared counts from zero; one that exited and was reaped by a root
    counts through the root's cutime (less what it had used by ``before``)."""
    result = {}
    for name, ended in after.per_pid.items():
        began = before.per_pid.get(name, {})
        deltas = [seconds - began.get(pid, 0.0) for pid, seconds in ended.items()]
        gone = [pid for pid in began if pid not in ended]
        reaped = after.reaped.get(name, 0.0) - before.reaped.get(name, 0.0)
        total = sum(deltas) + max(0.0, reaped - sum(began[pid] for pid in gone))
        result[name] = Usage(total, len(ended), max(deltas, default=0.0), len(gone))
    return result


@dataclass(frozen=True)
class MachineTimes:
    """The machine's CPU counters from ``/proc/stat``, in seconds (all cores)."""

    busy: float
    idle: float
    steal: float

    @classmethod
    def read(cls) -> MachineTimes:
        with open("/proc/stat") as stat:
            values = [int(v) / TICKS for v in stat.readline().split()[1:]]
        values += [0.0] * (8 - len(values))
        user, nice, system, idle, iowait, irq, softirq, steal = values[:8]
        return cls(user + nice + system + irq + softirq, idle + iowait, steal)

    def __sub__(self, other: MachineTimes) -> MachineTimes:
        return MachineTimes(
            self.busy - other.busy, self.idle - other.idle, self.steal - other.steal
        )


def usable_cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0))


if __name__ == "__main__":
    print(f"this process: {own_seconds(os.getpid()):.2f} CPU s; {usable_cores()} usable cores")
