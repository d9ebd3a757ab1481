"""Ramp stages (``--stages 30s:10/s,60s:50/s``): the start rate moves
linearly, over each stage's duration, from where the last stage ended
(zero before the first) to the stage's rate, as k6's stages do. To hold a
rate, repeat it: ``10s:50/s,60s:50/s`` ramps up for 10 s, then holds 60 s."""

from __future__ import annotations

import re
from dataclasses import dataclass

STAGE = re.compile(
    r"^(?P<length>\d+(?:\.\d+)?)(?P<unit>ms|s|m|h)\s*:\s*(?P<rate>\d+(?:\.\d+)?)\s*/\s*s$"
)
SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


@dataclass(frozen=True)
class Stage:
    seconds: float
    rate: float  # matches started per second at the stage's end


def parse(text: str) -> tuple[Stage, ...]:
    """Stages from ``30s:10/s,60s:50/s``; ValueError saying what is wrong."""
    stages = []
    for part in text.split(","):
        found = STAGE.match(part.strip())
        if found is None:
            raise ValueError(
                f"--stages: {part.strip()!r} is not DURATION:RATE/s (like 30s:10/s; "
                "durations in ms, s, m or h; rates in matches started a second)"
            )
        seconds = float(found["length"]) * SECONDS[found["unit"]]
        if seconds <= 0:
            raise ValueError(f"--stages: {part.strip()!r} lasts no time")
        stages.append(Stage(seconds, float(found["rate"])))
    if not any(stage.rate > 0 for stage in stages):
        raise ValueError("--stages: every stage's rate is 0, so no match would start")
    return tuple(stages)


def total_seconds(stages: tuple[Stage, ...]) -> float:
    return sum(stage.seconds for stage in stages)


def rate_at(stages: tuple[Stage, ...], t: float) -> float:
    """The start rate ``t`` seconds into the run (0 after the last stage)."""
    begin, previous = 0.0, 0.0
    for stage in stages:
        if t < begin + stage.seconds:
            return previous + (stage.rate - previous) * (t - begin) / stage.seconds
        begin, previous = begin + stage.seconds, stage.rate
    return 0.0


def starts(stages: tuple[Stage, ...], step: float = 0.005) -> list[float]:
    """When each match starts, in seconds from the run's start: the k-th
    start is where the rate's integral reaches k (midpoint rule)."""
    times, credit, t = [], 0.0, 0.0
    end = total_seconds(stages)
    while t < end:
        credit += rate_at(stages, t + step / 2) * step
        t += step
        while credit >= 1.0:
            credit -= 1.0
            times.append(t)
    return times
