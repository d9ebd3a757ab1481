"""The ``meeple`` command line's options as its parser sees them: their
defaults (the ports the deploy files expect) and their environment
variables."""

from __future__ import annotations

from typing import Any

import typer.main

from services.cli import app


def commands() -> dict[str, Any]:
    found: dict[str, Any] = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    return found


def default(command: str, name: str) -> Any:
    (option,) = [p for p in commands()[command].params if p.name == name]
    return option.default


def environment_variables() -> set[str]:
    """Every variable an option of any command falls back to."""
    names: set[str] = set()
    for command in commands().values():
        for parameter in command.params:
            envvar = getattr(parameter, "envvar", None)
            if isinstance(envvar, str):
                names.add(envvar)
            elif envvar:
                names.update(envvar)
    return names
