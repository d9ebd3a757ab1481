"""Settings are environment variables, listed in one table in the README:
the table names every variable the code reads, and the deploy files set
none that it does not name (a typo there would be silently ignored)."""

from __future__ import annotations

import re
from dataclasses import fields
from typing import Any

import yaml

from services.settings import ENV_PREFIX, Settings
from tests.deploy.cli_options import environment_variables
from tests.deploy.metrics_page import DEPLOY

README = DEPLOY.parent / "README.md"
ROW = re.compile(r"^\| `(MEEPLE_[A-Z0-9_]+)` \|", re.MULTILINE)
# Read by the CLI itself rather than through an option.
LOG_LEVEL = "MEEPLE_LOG_LEVEL"


def settings_table() -> set[str]:
    text = README.read_text()
    start = text.index("### Settings")
    section = text[start : text.index("\n#", start + 1)]
    return set(ROW.findall(section))


def yaml_documents(*patterns: str) -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    for pattern in patterns:
        for path in sorted(DEPLOY.glob(pattern)):
            docs += [doc for doc in yaml.safe_load_all(path.read_text()) if isinstance(doc, dict)]
    return docs


def variables_set_by_deploy_files() -> set[str]:
    names: set[str] = set()
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    for service in compose["services"].values():
        names.update(service.get("environment", {}))
    for doc in yaml_documents("k8s/**/*.yaml"):
        if doc.get("kind") in ("ConfigMap", "Secret"):
            names.update(doc.get("data", {}), doc.get("stringData", {}))
        template = doc.get("spec", {}).get("template", {}).get("spec", {})
        for container in template.get("containers", []):
            names.update(variable["name"] for variable in container.get("env", []))
    for line in (DEPLOY / "Dockerfile").read_text().splitlines():
        names.update(re.findall(r"(?:^ENV\s+|\s)([A-Z][A-Z0-9_]*)=", line))
    return {name for name in names if name.startswith(ENV_PREFIX)}


def test_the_table_names_every_variable_the_code_reads() -> None:
    read = {ENV_PREFIX + field.name.upper() for field in fields(Settings)}
    read |= environment_variables() | {LOG_LEVEL}
    assert read - settings_table() == set()


def test_deploy_files_set_only_variables_of_the_table() -> None:
    used = variables_set_by_deploy_files()
    assert {"MEEPLE_REDIS_URL", "MEEPLE_HOST", LOG_LEVEL} <= used
    assert used - settings_table() == set()
