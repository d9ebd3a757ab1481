"""Fails when an installed meeple lacks a file of its source packages.

The image installs meeple with a regular (not editable) ``pip install .``,
which copies only what the package declares: a data file the web client or
a game needs at run time, but missing from ``[tool.setuptools.package-data]``,
would be left behind silently (the web port would answer 404 at ``/``). The
Dockerfile's build stage runs this after the install, so such an image is
never built, and tests/deploy/test_wheel.py runs it on the real wheel:

    python deploy/check_installed.py SOURCE_ROOT SITE_PACKAGES

Every file of the source packages must be installed with the same bytes,
except the build inputs (each .pyx must instead have its compiled extension
module installed), and the source must have the web page. Each problem is
printed on its own line; the exit status is 1 if there is any, 2 for wrong
arguments.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Source package -> its installed name (the generated API lives in protos/).
PACKAGES = {
    "engine_core": "engine_core",
    "ai": "ai",
    "services": "services",
    "protos/meeple": "meeple",
}
# Build inputs, compiled into extensions or generated modules rather than
# installed, and build outputs of an in-place (editable) build.
BUILD_ONLY = {".pyx", ".c", ".so", ".pyd", ".pyc", ".proto"}
# The page the web port serves at /: a source tree without it (not built, or
# not copied into the image) would install a web port that serves nothing.
PAGE = "services/web/static/index.html"
DATA_HINT = "declare it in [tool.setuptools.package-data]"
MODULE_HINT = "is its package, with an __init__.py, found by setup.py?"


def source_files(source: Path) -> list[tuple[str, Path]]:
    """(source package, file) for each file of the source packages, skipping
    caches and hidden files (which setuptools' globs never match)."""
    files = []
    for package in PACKAGES:
        for path in sorted((source / package).rglob("*")):
            relative = path.relative_to(source / package)
            if path.is_file() and not any(
                part == "__pycache__" or part.startswith(".") for part in relative.parts
            ):
                files.append((package, path))
    return files


def problems(source: Path, installed: Path) -> list[str]:
    found = []
    if not (source / PAGE).is_file():
        found.append(f"no web page in the source: {PAGE} (build it with make web)")
    for package, path in source_files(source):
        relative = path.relative_to(source / package)
        target = installed / PACKAGES[package] / relative
        name = f"{package}/{relative}"
        if path.suffix == ".pyx":
            stem = path.name.removesuffix(".pyx")
            if not any(target.parent.glob(f"{stem}.*.so")) and not any(
                target.parent.glob(f"{stem}.*.pyd")
            ):
                found.append(f"not compiled: {name} (no extension module {stem}.*.so installed)")
        elif path.suffix in BUILD_ONLY:
            continue
        elif not target.is_file():
            hint = MODULE_HINT if path.suffix == ".py" else DATA_HINT
            found.append(f"not installed: {name} ({hint})")
        elif target.read_bytes() != path.read_bytes():
            found.append(f"differs from its source: {name} (installed from another tree?)")
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(f"usage: {Path(argv[0]).name} SOURCE_ROOT SITE_PACKAGES", file=sys.stderr)
        return 2
    source, installed = Path(argv[1]), Path(argv[2])
    absent = [str(source / package) for package in PACKAGES if not (source / package).is_dir()]
    if absent:
        print(f"not a meeple source tree, no {', '.join(absent)}", file=sys.stderr)
        return 2
    if not installed.is_dir():
        print(f"no such site-packages directory: {installed}", file=sys.stderr)
        return 2
    found = problems(source, installed)
    for problem in found:
        print(problem)
    if found:
        print(
            f"check_installed: {len(found)} problem(s) with meeple in {installed}", file=sys.stderr
        )
        return 1
    count = len(source_files(source))
    print(f"check_installed: {installed} holds all {count} files of the source packages")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
