"""The architecture's one rule: dependencies point services -> ai -> engine_core."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = {
    "engine_core": {"ai", "services", "grpc", "redis", "prometheus_client", "threading"},
    "ai": {"services", "grpc", "redis"},
}


def imported_modules(path: Path) -> set[str]:
    """Top-level names of the modules ``path`` imports (.pyx by its import lines)."""
    text = path.read_text()
    if path.suffix == ".pyx":
        found = re.findall(r"^\s*(?:from|c?import)\s+([A-Za-z_]\w*)", text, re.MULTILINE)
        return set(found)
    names: set[str] = set()
    for node in ast.walk(ast.parse(text, filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_dependencies_point_one_way(package: str) -> None:
    offenders = {}
    for path in sorted((ROOT / package).rglob("*.py*")):
        if path.suffix in (".py", ".pyx"):
            bad = imported_modules(path) & FORBIDDEN[package]
            if bad:
                offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert offenders == {}


def test_the_layout_of_design_md_exists() -> None:
    for folder in ["protos/meeple/v1", "services", "engine_core", "ai", "deploy", "tests"]:
        assert (ROOT / folder).is_dir(), folder
    assert (ROOT / "benchmarks").is_dir()
    assert (ROOT / "pyproject.toml").is_file()
