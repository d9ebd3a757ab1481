"""The Kubernetes manifests of deploy/k8s as a cluster would get them:
overlays rendered by ``kubectl kustomize`` (offline), or, on a machine
without kubectl, the base's resource files as they are.

An overlay whose secrets come from an uncommitted env file (prod's
``secrets.env``) is rendered from a temporary copy of deploy/k8s in which
that file is its committed ``.example``: a real secrets.env in the working
tree is never read."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from tests.deploy.metrics_page import DEPLOY

K8S = DEPLOY / "k8s"
KUBECTL = shutil.which("kubectl")
# The oldest Kubernetes with gRPC probes on by default, and the newest known.
KUBERNETES_VERSIONS = ("1.27.0", kubernetes_validate.latest_version())
# Custom resources have no schema in kubernetes-validate: each one used
# here names the schema it is checked against (deploy/schemas/README.md).
CRD_SCHEMAS = {("keda.sh/v1alpha1", "ScaledObject"): "keda-scaledobject-v1alpha1.json"}

Resource = dict[str, Any]


SECRETS_FILE = "secrets.env"  # git ignores it; SECRETS_FILE + ".example" says what goes in


def kustomize(overlay_dir: Path) -> subprocess.CompletedProcess[str]:
    """``kubectl kustomize OVERLAY_DIR``, as it ran (skips without kubectl)."""
    if KUBECTL is None:
        pytest.skip(
            "kubectl is not installed, so the overlays are not rendered (the base files are "
            f"still validated); render them with: kubectl kustomize {overlay_dir}"
        )
    return subprocess.run(
        [KUBECTL, "kustomize", str(overlay_dir)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def copy_of_k8s(into: Path, with_secrets: bool) -> Path:
    """deploy/k8s copied to ``into``, without any real secrets file; with
    ``with_secrets``, each overlay's example of it stands in as the file."""
    shutil.copytree(K8S, into, ignore=shutil.ignore_patterns(SECRETS_FILE))
    if with_secrets:
        for example in into.glob(f"overlays/*/{SECRETS_FILE}.example"):
            shutil.copyfile(example, example.with_name(SECRETS_FILE))
    return into


@cache
def _scratch() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="meeple-k8s-")  # removed at exit


@cache
def render(overlay: str) -> tuple[Resource, ...]:
    """``kubectl kustomize deploy/k8s/overlays/OVERLAY``, parsed (with the
    example secrets where the overlay needs a secrets file)."""
    tree = copy_of_k8s(Path(_scratch().name) / overlay, with_secrets=True)
    done = kustomize(tree / "overlays" / overlay)
    assert done.returncode == 0, f"kubectl kustomize failed:\n{done.stderr[-3000:]}"
    return tuple(doc for doc in yaml.safe_load_all(done.stdout) if doc)


def base_files() -> tuple[Resource, ...]:
    """The resources the base lists, unrendered (no namespace, no image tag)."""
    kustomization = yaml.safe_load((K8S / "base" / "kustomization.yaml").read_text())
    docs: list[Resource] = []
    for name in kustomization["resources"]:
        docs += [doc for doc in yaml.safe_load_all((K8S / "base" / name).read_text()) if doc]
    return tuple(docs)


def validate(resource: Resource) -> None:
    """Checks ``resource`` against its schema: Kubernetes' own (strict: no
    unknown fields) at each of KUBERNETES_VERSIONS, or the vendored schema
    of its custom resource. A kind with neither fails."""
    key = (resource["apiVersion"], resource["kind"])
    if key in CRD_SCHEMAS:
        schema = json.loads((DEPLOY / "schemas" / CRD_SCHEMAS[key]).read_text())
        jsonschema.Draft202012Validator(schema).validate(resource)
        return
    for version in KUBERNETES_VERSIONS:
        kubernetes_validate.validate(resource, version, strict=True)


def of_kind(resources: tuple[Resource, ...], kind: str) -> dict[str, Resource]:
    return {r["metadata"]["name"]: r for r in resources if r["kind"] == kind}


def secret_values(secret: Resource) -> dict[str, str]:
    """A Secret's keys and values, from ``stringData`` as written or from
    ``data`` as a secretGenerator makes it (base64)."""
    values = {
        key: base64.b64decode(value).decode() for key, value in secret.get("data", {}).items()
    }
    values.update(secret.get("stringData", {}))
    return values
