"""Fails when an installed meeple lacks a file of its source packages.

The image installs meeple with a regular (not editable) ``pip install .``,
which copies only what the package declares: a data file the web client or
a game needs at run time, but missing from ``[tool.setuptools.package-data]``,
would be left behind silently. The Dockerfile's build stage runs this after
the install, so such an image is never built:

    python deploy/check_installed.py SOURCE_ROOT SITE_PACKAGES
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
# installed.
BUILD_ONLY = {".pyx", ".c", ".so", ".pyc", ".proto"}


def missing_files(source: Path, installed: Path) -> list[str]:
    missing = []
    for package, name in PACKAGES.items():
        for path in sorted((source / package).rglob("*")):
            if not path.is_file() or path.suffix in BUILD_ONLY or "__pycache__" in path.parts:
                continue
            relative = path.relative_to(source / package)
            if not (installed / name / relative).is_file():
                missing.append(f"{package}/{relative}")
    return missing


def main() -> int:
    source, installed = Path(sys.argv[1]), Path(sys.argv[2])
    missing = missing_files(source, installed)
    for path in missing:
        print(f"not installed: {path} (declare it in [tool.setuptools.package-data])")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
