"""What the image's build sees: every file a COPY of deploy/Dockerfile takes
from the repository is in the build context that Dockerfile.dockerignore
leaves, and what the stages rebuild (web/node_modules, web/src/gen, compiled
cores) is not. No Docker engine runs here, so the ignore file's rules are
applied as Docker applies them: the last pattern that matches a path or one
of its parent folders decides, ``!`` takes a path back in."""

from __future__ import annotations

import re
import subprocess

from tests.deploy.metrics_page import DEPLOY

ROOT = DEPLOY.parent
DOCKERFILE = DEPLOY / "Dockerfile"
IGNORE = DEPLOY / "Dockerfile.dockerignore"


def ignore_rules() -> list[tuple[re.Pattern[str], bool]]:
    """(pattern, takes back in) per line of the ignore file, in order."""
    rules = []
    for line in IGNORE.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        back_in = line.startswith("!")
        pattern = line.removeprefix("!").strip("/")
        rules.append((re.compile(glob_regex(pattern)), back_in))
    return rules


def glob_regex(pattern: str) -> str:
    """Docker's globs: ``**`` any number of folders, ``*`` and ``?`` within one."""
    out = []
    for part in re.split(r"(\*\*/?|\*|\?)", pattern):
        if part in ("**/", "**"):
            out.append("(.*/)?" if part == "**/" else ".*")
        elif part == "*":
            out.append("[^/]*")
        elif part == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(part))
    return "".join(out) + r"\Z"


def in_context(path: str, rules: list[tuple[re.Pattern[str], bool]]) -> bool:
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    included = True
    for pattern, back_in in rules:
        if any(pattern.match(prefix) for prefix in prefixes):
            included = back_in
    return included


def copied_sources() -> list[str]:
    """The repository paths the Dockerfile's COPY lines take (not those
    from another stage)."""
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    sources = []
    for line in text.splitlines():
        words = line.split()
        if words[:1] != ["COPY"] or any(w.startswith("--from") for w in words):
            continue
        sources.extend(word.removeprefix("./") for word in words[1:-1] if not word.startswith("-"))
    return sources


def tracked(source: str) -> list[str]:
    files = subprocess.run(
        ["git", "ls-files", "--", source], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert files, f"COPY {source}: no such file in the repository"
    return files


def test_the_glob_rules_behave_as_dockers() -> None:
    rules = [(re.compile(glob_regex("**")), False), (re.compile(glob_regex("a/**")), True)]
    assert in_context("a/b.py", rules)
    assert not in_context("b/a.py", rules)
    assert re.match(glob_regex("**/__pycache__"), "services/web/__pycache__")
    assert re.match(glob_regex("**/__pycache__"), "__pycache__")
    assert re.match(glob_regex("**/*.so"), "engine_core/rolit/_core.so")
    assert not re.match(glob_regex("web/src/gen"), "web/src/generated")
    assert in_context("web/src/gen/a.ts", [(re.compile(glob_regex("web/src")), True)])


def test_every_file_the_dockerfile_copies_is_in_the_build_context() -> None:
    rules = ignore_rules()
    sources = copied_sources()
    assert {"pyproject.toml", "protos", "services", "web", "deploy/check_installed.py"} <= set(
        sources
    )
    left_out = [f for source in sources for f in tracked(source) if not in_context(f, rules)]
    assert not left_out, f"the build context leaves out files the Dockerfile copies: {left_out}"


def test_what_the_stages_rebuild_stays_out_of_the_context() -> None:
    rules = ignore_rules()
    for path in (
        "web/node_modules/esbuild/package.json",
        "web/src/gen/meeple/v1/game_pb.ts",
        "engine_core/rolit/_core.c",
        "engine_core/rolit/_core.cpython-311-x86_64-linux-gnu.so",
        "services/__pycache__/cli.cpython-311.pyc",
        "tests/services/test_web_port.py",
        ".venv/bin/python",
    ):
        assert not in_context(path, rules), path
