"""deploy/check_installed.py, which the image's build runs after ``pip
install .``: a source file the install left behind fails the build. These
check it on made-up trees; tests/deploy/test_wheel.py runs it on the real
wheel."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.deploy.metrics_page import DEPLOY

SCRIPT = DEPLOY / "check_installed.py"
PAGE = "services/web/static/index.html"
HINT = "(declare it in [tool.setuptools.package-data])"


def tree(root: Path, *files: str) -> Path:
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    return root


def source_tree(root: Path, *files: str) -> Path:
    """A source tree with each package and the page, and ``files``."""
    return tree(
        root,
        "engine_core/__init__.py",
        "ai/__init__.py",
        "services/__init__.py",
        PAGE,
        "protos/meeple/__init__.py",
        "protos/meeple/v1/game.proto",  # generated from, not installed
        *files,
    )


def installed_tree(root: Path, *files: str) -> Path:
    """What a complete install of source_tree() holds, and ``files``."""
    return tree(
        root,
        "engine_core/__init__.py",
        "ai/__init__.py",
        "services/__init__.py",
        PAGE,
        "meeple/__init__.py",
        *files,
    )


def check(*arguments: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, arguments)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_a_complete_install_passes(tmp_path: Path) -> None:
    source = source_tree(tmp_path / "src", "engine_core/rolit/RULES.md")
    installed = installed_tree(tmp_path / "site", "engine_core/rolit/RULES.md")
    done = check(source, installed)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "holds all 7 files" in done.stdout


def test_a_data_file_left_behind_fails_and_is_named(tmp_path: Path) -> None:
    source = source_tree(tmp_path / "src", "services/web/static/app.js", "ai/__pycache__/x.pyc")
    installed = installed_tree(tmp_path / "site")
    done = check(source, installed)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [f"not installed: services/web/static/app.js {HINT}"]
    assert "1 problem(s)" in done.stderr
    tree(installed, "services/web/static/app.js")
    assert check(source, installed).returncode == 0


def test_a_module_left_behind_is_named_with_its_own_hint(tmp_path: Path) -> None:
    source = source_tree(tmp_path / "src", "protos/meeple/v1/game_pb2.py")
    done = check(source, installed_tree(tmp_path / "site"))
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "not installed: protos/meeple/v1/game_pb2.py "
        "(is its package, with an __init__.py, found by setup.py?)"
    ]


def test_a_cython_source_needs_its_compiled_module(tmp_path: Path) -> None:
    source = source_tree(tmp_path / "src", "engine_core/rolit/_core.pyx")
    installed = installed_tree(tmp_path / "site")
    done = check(source, installed)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "not compiled: engine_core/rolit/_core.pyx (no extension module _core.*.so installed)"
    ]
    tree(installed, "engine_core/rolit/_core.cpython-311-x86_64-linux-gnu.so")
    assert check(source, installed).returncode == 0


def test_an_installed_file_that_differs_fails(tmp_path: Path) -> None:
    source = source_tree(tmp_path / "src")
    installed = installed_tree(tmp_path / "site")
    (installed / PAGE).write_text("an older page")
    done = check(source, installed)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        f"differs from its source: {PAGE} (installed from another tree?)"
    ]


def test_a_source_without_the_page_fails(tmp_path: Path) -> None:
    source = source_tree(tmp_path / "src")
    (source / PAGE).unlink()
    done = check(source, installed_tree(tmp_path / "site"))
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        f"no web page in the source: {PAGE} (build it with make web)"
    ]


def test_wrong_arguments_fail_with_usage(tmp_path: Path) -> None:
    source = source_tree(tmp_path / "src")
    installed = installed_tree(tmp_path / "site")
    # A site-packages glob that matched two directories, or none.
    assert "usage:" in check(source, installed, installed).stderr
    assert check(source, installed, installed).returncode == 2
    done = check(source, tmp_path / "no-such-site")
    assert (done.returncode, done.stderr) == (
        2,
        f"no such site-packages directory: {tmp_path / 'no-such-site'}\n",
    )
    done = check(tmp_path / "site", installed)
    assert done.returncode == 2
    assert "not a meeple source tree" in done.stderr
