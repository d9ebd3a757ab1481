"""The users' own options: on the command line, in the environment
(``LOCUST_MEEPLE_GAMES`` for ``--meeple-games``, and so on) and in the web
UI's form. On a distributed run the master sends them to its workers, so
only the master needs them. (Locust 2.47's ``--help`` does not list them:
docs/locust.md does.)"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from services.loadtest.players import GAMES

ALL = "all"
DEFAULTS = {
    "meeple_games": ALL,
    "meeple_bot_spec": "random",
    "meeple_match_timeout": "300",
    "meeple_rpc_timeout": "30",
}


def add_arguments(parser: Any) -> None:
    """Locust's init_command_line_parser listener."""
    parser.add_argument(
        "--meeple-games",
        default=DEFAULTS["meeple_games"],
        env_var="LOCUST_MEEPLE_GAMES",
        help=f"the games the users play, in turn: some of {','.join(GAMES)}, or {ALL}",
    )
    parser.add_argument(
        "--meeple-bot-spec",
        default=DEFAULTS["meeple_bot_spec"],
        env_var="LOCUST_MEEPLE_BOT_SPEC",
        help="the bots' spec or level, server bots' and the users' own (random, easy, "
        "mcts:iterations=50, ...)",
    )
    parser.add_argument(
        "--meeple-match-timeout",
        default=DEFAULTS["meeple_match_timeout"],
        env_var="LOCUST_MEEPLE_MATCH_TIMEOUT",
        help="seconds a match (its stream) or a ticket may take before it fails",
    )
    parser.add_argument(
        "--meeple-rpc-timeout",
        default=DEFAULTS["meeple_rpc_timeout"],
        env_var="LOCUST_MEEPLE_RPC_TIMEOUT",
        help="seconds each unary call may take before it fails (DEADLINE_EXCEEDED)",
    )


@dataclass(frozen=True)
class Options:
    games: tuple[str, ...]
    bot_spec: str
    match_timeout: float
    rpc_timeout: float

    @classmethod
    def of(cls, parsed: Any) -> Options:
        """The options of Locust's parsed_options (None: the defaults); the
        web UI gives strings. ValueError names an option given wrong."""

        def value(name: str) -> str:
            given = getattr(parsed, name, None) if parsed is not None else None
            return str(DEFAULTS[name] if given is None or given == "" else given)

        return cls(
            games=games(value("meeple_games")),
            bot_spec=value("meeple_bot_spec").strip() or DEFAULTS["meeple_bot_spec"],
            match_timeout=seconds("--meeple-match-timeout", value("meeple_match_timeout")),
            rpc_timeout=seconds("--meeple-rpc-timeout", value("meeple_rpc_timeout")),
        )


def games(text: str) -> tuple[str, ...]:
    names = [name.strip().lower() for name in text.replace("|", ",").split(",") if name.strip()]
    if names == [ALL]:
        return tuple(GAMES)
    unknown = [name for name in names if name not in GAMES]
    if unknown or not names:
        raise ValueError(
            f"--meeple-games is some of {','.join(GAMES)} (comma separated) or {ALL}, got {text!r}"
        )
    return tuple(dict.fromkeys(names))


def seconds(option: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise ValueError(f"{option} is a number of seconds above 0, got {text!r}")
    return value


def check(environment: Any, **_: Any) -> None:
    """Locust's init listener: options given wrong stop Locust at once,
    saying which (on a worker, the master's options are checked there)."""
    try:
        Options.of(environment.parsed_options)
    except ValueError as error:
        sys.exit(f"locust: {error}")
