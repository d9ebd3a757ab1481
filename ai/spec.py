"""Bot spec strings: an algorithm name, then ``:key=value`` options, each
checked against what the algorithm accepts.

``:`` separates options so that specs can be listed with commas, e.g.
``mcts:iterations=2000:rollout=batch``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

OptionValue = int | float | str


@dataclass(frozen=True)
class BotSpec:
    """A parsed spec string: the algorithm and its options, still as text."""

    algorithm: str
    options: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> BotSpec:
        name, *pairs = text.strip().split(":")
        options: dict[str, str] = {}
        for pair in pairs:
            key, sep, value = pair.partition("=")
            if not sep or not key or not value:
                raise ValueError(f"bot spec {text!r}: options are key=value, got {pair!r}")
            if key in options:
                raise ValueError(f"bot spec {text!r}: option {key!r} given twice")
            options[key] = value
        return cls(name.strip().lower(), options)

    def __str__(self) -> str:
        return ":".join([self.algorithm, *(f"{k}={v}" for k, v in self.options.items())])


@dataclass(frozen=True)
class Option:
    """One option's type and the values it may take: ``least`` and ``most``
    inclusive, ``above`` exclusive. A float must be finite."""

    kind: type[int] | type[float] | type[str]
    least: float | None = None
    above: float | None = None
    most: float | None = None
    choices: tuple[str, ...] = ()

    def parse(self, spec: BotSpec, key: str, raw: str) -> OptionValue:
        where = f"bot spec {spec}: {key}"
        if self.kind is str:
            if raw not in self.choices:
                raise ValueError(f"{where} is {' or '.join(self.choices)}, got {raw!r}")
            return raw
        try:
            value = self.kind(raw)
        except ValueError:
            kind = "an int" if self.kind is int else "a number"
            raise ValueError(f"{where} must be {kind}, got {raw!r}") from None
        assert isinstance(value, int | float)
        if not math.isfinite(value):
            raise ValueError(f"{where} must be a finite number, got {raw!r}")
        if self.least is not None and value < self.least:
            raise ValueError(f"{where} must be >= {self.least:g}, got {raw}")
        if self.above is not None and not value > self.above:
            raise ValueError(f"{where} must be > {self.above:g}, got {raw}")
        if self.most is not None and value > self.most:
            raise ValueError(f"{where} must be <= {self.most:g}, got {raw}")
        return value


COUNT = Option(int, least=1)  # a budget counted in iterations, depth, playouts ...
SECONDS = Option(float, above=0.0)  # a wall-clock budget
SEARCH = {"depth": COUNT, "time": SECONDS}

OPTIONS: dict[str, dict[str, Option]] = {
    "random": {},
    "greedy": {},
    "mcts": {
        "iterations": COUNT,
        "time": SECONDS,
        "c": Option(float, least=0.0),
        "rollout": Option(str, choices=("random", "batch", "eval")),
        "playouts": COUNT,
    },
    "alphabeta": SEARCH,
    "paranoid": SEARCH,
    "brs": SEARCH,
    "expectimax": {"depth": COUNT},
    "planner": {
        "samples": Option(int, least=2),
        "iterations": COUNT,
        "elites": COUNT,
        "robustness": COUNT,
        "replies": Option(int, least=0),  # 0: no check against the opponent's replies
        "followups": Option(int, least=0),  # 0: no look at its own next flick
        "noise": Option(float, least=0.0, most=1.0),
    },
}


def typed_options(spec: BotSpec) -> dict[str, OptionValue]:
    """``spec``'s options as values of their types; a ValueError names an
    unknown option or a value out of range."""
    accepted = OPTIONS[spec.algorithm]
    typed: dict[str, OptionValue] = {}
    for key, raw in spec.options.items():
        if key not in accepted:
            names = ", ".join(accepted) or "none"
            raise ValueError(f"bot spec {spec}: unknown option {key!r} (options: {names})")
        typed[key] = accepted[key].parse(spec, key, raw)
    return typed
