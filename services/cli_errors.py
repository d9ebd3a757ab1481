"""How a ``meeple`` command fails: one line on stderr, ``meeple: REASON``,
and an exit code (2 for a wrong command line)."""

from __future__ import annotations

import sys
from typing import Any, NoReturn

import typer
import typer.core

USAGE = 2


def say(line: str, code: int) -> NoReturn:
    """``meeple: LINE`` on stderr (one line) and exit ``code``."""
    text = " ".join(line.split())
    print(f"meeple: {text}", file=sys.stderr, flush=True)
    raise typer.Exit(code)


class OneLineUsage(typer.core.TyperCommand):
    """A command whose command-line errors (an unknown option, a bad value)
    are one line too, naming where its options are listed, and exit code 2."""

    group = ""  # the command's group as typed before its name, as in "archive "

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: Any = None,
        **extra: Any,
    ) -> Any:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except typer.TyperException as error:
            hint = f"meeple {self.group}{info_name} --help lists the options"
            say(f"{error.format_message()} ({hint})", USAGE)
