"""deploy/check_installed.py, which the image's build runs after ``pip
install .``: a source file the install left behind fails the build."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.deploy.metrics_page import DEPLOY

SCRIPT = DEPLOY / "check_installed.py"


def tree(root: Path, *files: str) -> Path:
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    return root


def check(source: Path, installed: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(source), str(installed)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_a_data_file_left_behind_fails_and_is_named(tmp_path: Path) -> None:
    source = tree(
        tmp_path / "src",
        "services/app.py",
        "services/web/static/index.html",
        "engine_core/rolit/_core.pyx",  # compiled, not installed
        "protos/meeple/v1/game.proto",  # generated from, not installed
    )
    installed = tree(tmp_path / "site", "services/app.py")
    done = check(source, installed)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "not installed: services/web/static/index.html "
        "(declare it in [tool.setuptools.package-data])"
    ]
    tree(installed, "services/web/static/index.html")
    assert check(source, installed).returncode == 0
