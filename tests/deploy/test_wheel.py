"""The real wheel and sdist, tested as a user installs them.

From a copy of the repository's files that git does not ignore (setuptools
writes build/ and meeple.egg-info beside the sources: into the copy, never
into the checkout), the wheel is built as ``pip wheel`` builds it (build
isolation on), and the sdist as ``python -m build --sdist`` does, then a
wheel from that sdist; the two builds run at once, beside the creation of a
fresh virtualenv, which keeps the module near two minutes on two cores.
``twine check --strict`` passes on both artifacts; the wheel has the web
page, its bundle and each RULES.md, and the sdist's wheel the same files;
the wheel installs into the fresh virtualenv (its dependencies from the
package index), deploy/check_installed.py finds every source file
installed, and that virtualenv's ``meeple up``, run from an empty
directory, serves the page and its bundle.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.deploy.metrics_page import DEPLOY
from tests.e2e.processes import Meeple

pytestmark = pytest.mark.slow

REPO = DEPLOY.parent
# Source package -> its installed name, as in setup.py.
PACKAGES = {
    "engine_core": "engine_core",
    "ai": "ai",
    "services": "services",
    "protos/meeple": "meeple",
}
STATIC = "services/web/static"
BUILD_TIMEOUT = 600
# Inherited by the builds and the installed meeple: nothing that would put
# the checkout or the test's own virtualenv on their path.
LEAKY = {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PIP_USER", "PIP_REQUIRE_VIRTUALENV"}


def environment() -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name not in LEAKY}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def run(*command: str | Path, cwd: Path, timeout: float = BUILD_TIMEOUT) -> str:
    """Runs ``command``; fails with its exit status and output unless it exits 0."""
    argv = [str(part) for part in command]
    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            env=environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as error:
        raise AssertionError(f"{' '.join(argv)} took over {timeout} s:\n{error.output}") from None
    tail = "\n".join(done.stdout.splitlines()[-150:])
    assert done.returncode == 0, f"{' '.join(argv)} exited {done.returncode}:\n{tail}"
    return done.stdout


def copy_tracked_files(destination: Path) -> Path:
    """The working tree as git sees it: its tracked files, and new ones not
    yet added, but nothing that .gitignore ignores (the build outputs of an
    editable install, caches, node_modules)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():  # a tracked file deleted in the working tree is skipped
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)
    return destination


def pip_wheel(what: Path, into: Path) -> Path:
    """``pip wheel`` as a user runs it: build isolation on, so the build
    requirements of pyproject.toml come from the package index."""
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", into, what, cwd=into.parent)
    return only_file(into, "*.whl")


def only_file(folder: Path, pattern: str) -> Path:
    found = sorted(folder.glob(pattern))
    assert len(found) == 1, f"expected one {pattern} in {folder}, found {found}"
    return found[0]


def installed_name(source_relative: str) -> str:
    """engine_core/x, ..., protos/meeple/x -> where the wheel puts it."""
    for package, name in PACKAGES.items():
        if source_relative.startswith(package + "/"):
            return name + source_relative.removeprefix(package)
    raise AssertionError(f"{source_relative} is in no package")


class PageReferences(HTMLParser):
    """The scripts and the linked files (style, icon) an HTML page loads."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "script" and values.get("src"):
            self.scripts.append(str(values["src"]))
        elif tag == "link" and values.get("href"):
            self.links.append(str(values["href"]))


def page_references(index: Path) -> PageReferences:
    parser = PageReferences()
    parser.feed(index.read_text())
    return parser


@dataclass
class Built:
    source: Path  # the copy the wheel was built from
    wheel: Path
    sdist: Path
    sdist_wheel: Path  # built from the sdist alone
    venv: Path  # fresh, nothing installed yet


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("wheel")
    source = copy_tracked_files(root / "source")
    # The sdist's build writes into its tree too: a copy of its own, so the
    # two builds never share a build/ folder.
    sdist_source = shutil.copytree(source, root / "sdist-source")

    def wheel() -> Path:
        return pip_wheel(source, root / "wheel")

    def sdist_and_its_wheel() -> tuple[Path, Path]:
        run(sys.executable, "-m", "build", "--sdist", "-o", root / "sdist", sdist_source, cwd=root)
        sdist = only_file(root / "sdist", "*.tar.gz")
        return sdist, pip_wheel(sdist, root / "sdist-wheel")

    def venv() -> Path:
        run(sys.executable, "-m", "venv", root / "venv", cwd=root)
        return root / "venv"

    with ThreadPoolExecutor(max_workers=3) as pool:
        wheel_job = pool.submit(wheel)
        sdist_job = pool.submit(sdist_and_its_wheel)
        venv_job = pool.submit(venv)
        sdist, sdist_wheel = sdist_job.result()
        return Built(source, wheel_job.result(), sdist, sdist_wheel, venv_job.result())


@dataclass
class Installed:
    python: Path
    meeple: Path
    site_packages: Path


@pytest.fixture(scope="module")
def installed(built: Built) -> Installed:
    """The wheel in the fresh virtualenv, with its dependencies from the
    package index, as a user installs it."""
    python = built.venv / "bin" / "python"
    run(python, "-m", "pip", "install", built.wheel, cwd=built.venv)
    site_packages = run(
        python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", cwd=built.venv
    ).strip()
    return Installed(python, built.venv / "bin" / "meeple", Path(site_packages))


def wheel_files(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_twine_check_passes_on_the_wheel_and_the_sdist(built: Built) -> None:
    output = run(
        sys.executable, "-m", "twine", "check", "--strict", built.wheel, built.sdist, cwd=built.venv
    )
    assert output.count("PASSED") == 2, output
    assert "WARNING" not in output, output


def test_the_wheel_holds_the_page_its_bundle_and_each_rules_file(built: Built) -> None:
    names = set(wheel_files(built.wheel))
    page = {
        path.relative_to(built.source).as_posix()
        for path in (built.source / STATIC).rglob("*")
        if path.is_file()
    }
    index = f"{STATIC}/index.html"
    references = page_references(built.source / index)
    assert references.scripts, f"{index} loads no script"
    bundle = {f"{STATIC}/{name}" for name in references.scripts + references.links}
    assert {index, f"{STATIC}/app.js"} <= page
    assert bundle <= page, f"{index} loads files that are not in {STATIC}: {bundle - page}"
    assert sorted(page - names) == [], f"page files missing from {built.wheel.name}"
    rules = {
        installed_name(path.relative_to(built.source).as_posix())
        for package in PACKAGES
        for path in (built.source / package).rglob("RULES.md")
    }
    assert {"engine_core/rolit/RULES.md", "engine_core/volta/RULES.md"} <= rules
    assert sorted(rules - names) == [], f"RULES.md missing from {built.wheel.name}"
    for pyx in (built.source / "engine_core").rglob("_*.pyx"):
        module = installed_name(pyx.relative_to(built.source).as_posix()).removesuffix(".pyx")
        assert any(re.fullmatch(rf"{re.escape(module)}\..+\.so", name) for name in names), (
            f"{pyx.name} compiled into no extension module in the wheel"
        )
    shipped_but_not_runtime = sorted(
        name
        for name in names
        if name.split("/")[0] in {"tests", "web", "build", "protos", "benchmarks"}
        or name.endswith((".pyx", ".proto", ".c", ".ts"))
    )
    assert shipped_but_not_runtime == []


def test_the_sdist_alone_builds_a_wheel_with_the_same_files(built: Built) -> None:
    from_checkout, from_sdist = wheel_files(built.wheel), wheel_files(built.sdist_wheel)
    assert sorted(from_checkout.keys() - from_sdist.keys()) == [], "missing from the sdist's wheel"
    assert sorted(from_sdist.keys() - from_checkout.keys()) == [], "only in the sdist's wheel"
    # The compiled modules (and so RECORD, their hashes) may differ by a byte.
    differ = sorted(
        name
        for name, content in from_checkout.items()
        if not name.endswith((".so", "/RECORD")) and from_sdist[name] != content
    )
    assert differ == []


def test_the_installed_wheel_has_every_source_file(built: Built, installed: Installed) -> None:
    # Against the tree the wheel was built from: the checkout itself may
    # meanwhile hold edits or new files that the copy did not.
    output = run(
        sys.executable,
        DEPLOY / "check_installed.py",
        built.source,
        installed.site_packages,
        cwd=built.venv,
    )
    assert "holds all" in output, output


@pytest.fixture
def empty_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working directory, so that the checkout is not importable."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_installed_meeple_up_serves_the_page(
    built: Built, installed: Installed, empty_directory: Path
) -> None:
    env = {
        "PATH": f"{installed.meeple.parent}{os.pathsep}{os.defpath}",
        "HOME": str(empty_directory),
        "MEEPLE_LOG_LEVEL": "WARNING",
    }
    imported = run(
        installed.python,
        "-c",
        "import services.web.server as s, engine_core.rolit._core as c;"
        " print(s.STATIC, c.__file__)",
        cwd=empty_directory,
    )
    assert all(Path(path).is_relative_to(installed.site_packages) for path in imported.split()), (
        f"the virtualenv imports meeple from elsewhere: {imported}"
    )
    up = Meeple(
        "up", "--port", "0", "--metrics-port", "0", "--web-port", "0",
        env=env, program=str(installed.meeple),
    )  # fmt: skip
    try:
        web = up.wait_for(r"web page: (http://\S+/)", 30).group(1)
        static = built.source / STATIC
        references = page_references(static / "index.html")
        expected = [("", static / "index.html", "text/html")]
        expected += [(name, static / name, "text/javascript") for name in references.scripts]
        expected += [(name, static / name, "") for name in references.links]
        for name, path, content_type in expected:
            try:
                with urllib.request.urlopen(web + name, timeout=10) as answer:
                    status, headers, body = answer.status, answer.headers, answer.read()
            except urllib.error.HTTPError as error:
                raise AssertionError(f"GET {web}{name}: {error.code}\n{up.output()}") from None
            assert status == 200, f"GET {web}{name}: {status}"
            assert headers["content-type"].startswith(content_type), (name, headers)
            assert body == path.read_bytes(), f"GET {web}{name} is not {path}"
    finally:
        up.stop()
    assert up.process.returncode == 0, f"meeple up did not stop cleanly:\n{up.output()}"
