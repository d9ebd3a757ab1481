"""deploy/k8s/loadtest, the Locust kustomization, as a cluster gets it
(``kubectl kustomize``): every resource valid against Kubernetes' schemas
(strict), in a namespace of its own, the one meeple image with the base's
security defaults, a master whose Service reaches its workers' port and
web UI, several workers that find it, a target that is the base's gRPC
Service; it is no part of the base or the overlays. And its commands, run
as the containers would run them (the image's LOCUST_LOCUSTFILE, the
ConfigMap's settings): the master serves its web UI, a worker connects."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from services.loadtest.locust import LOCUSTFILE
from tests.deploy.manifests import K8S, Resource, base_files, kustomize, of_kind, render, validate
from tests.deploy.metrics_page import DEPLOY

LOADTEST = K8S / "loadtest"
NAMESPACE = "meeple-loadtest"
LOCUST = Path(sys.executable).with_name("locust")


@cache
def rendered() -> tuple[Resource, ...]:
    done = kustomize(LOADTEST)
    assert done.returncode == 0, f"kubectl kustomize failed:\n{done.stderr[-3000:]}"
    return tuple(doc for doc in yaml.safe_load_all(done.stdout) if doc)


def container(deployment: Resource) -> dict[str, Any]:
    (only,) = deployment["spec"]["template"]["spec"]["containers"]
    return dict(only)


def test_every_resource_is_valid_in_a_namespace_of_its_own() -> None:
    resources = rendered()
    assert {r["kind"] for r in resources} == {"Namespace", "ConfigMap", "Deployment", "Service"}
    for resource in resources:
        validate(resource)
        if resource["kind"] == "Namespace":
            assert resource["metadata"]["name"] == NAMESPACE
        else:
            assert resource["metadata"]["namespace"] == NAMESPACE, resource["metadata"]


def test_it_is_no_part_of_the_base_or_the_overlays() -> None:
    for path in [K8S / "base", *sorted((K8S / "overlays").iterdir())]:
        text = (path / "kustomization.yaml").read_text()
        assert "loadtest" not in text, path
    for overlay in ("dev", "prod"):
        assert not {"locust-master", "locust-worker"} & set(of_kind(render(overlay), "Deployment"))


def test_the_one_image_runs_locust_with_the_bases_security_defaults() -> None:
    deployments = of_kind(rendered(), "Deployment")
    assert set(deployments) == {"locust-master", "locust-worker"}
    (base_pod,) = list(yaml.safe_load_all((K8S / "base" / "pod-defaults.yaml").read_text()))
    base_spec = base_pod["spec"]["template"]["spec"]
    (base_container,) = base_spec["containers"]
    base_image = container(of_kind(render("dev"), "Deployment")["web"])["image"].split(":")[0]
    for name, deployment in deployments.items():
        pod = deployment["spec"]["template"]["spec"]
        assert pod["securityContext"] == base_spec["securityContext"], name
        assert pod["volumes"] == base_spec["volumes"], name
        box = container(deployment)
        assert box["securityContext"] == base_container["securityContext"], name
        assert box["volumeMounts"] == base_container["volumeMounts"], name
        assert box["image"].split(":")[0] == base_image, name
        assert box["command"] == ["locust"], name
        assert not {"-f", "--locustfile"} & set(box["args"]), name  # the image's locustfile
        for bound in ("requests", "limits"):
            assert set(box["resources"][bound]) == {"cpu", "memory"}, name


def test_the_image_names_the_locustfile_it_installs() -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    (path,) = re.findall(r"LOCUST_LOCUSTFILE=(\S+)", dockerfile)
    assert 'locustfile="$(/opt/meeple/bin/meeple loadtest locustfile)"' in dockerfile
    assert f'ln -s "$locustfile" {path}' in dockerfile
    assert "pip install '.[locust]'" in dockerfile
    assert f"locust -f {path} --list" in dockerfile  # the build loads it once


def test_the_master_service_reaches_it_and_the_workers_find_it() -> None:
    resources = rendered()
    deployments = of_kind(resources, "Deployment")
    master, workers = deployments["locust-master"], deployments["locust-worker"]
    assert master["spec"]["replicas"] == 1
    assert workers["spec"]["replicas"] >= 2
    (service,) = of_kind(resources, "Service").values()
    assert (
        service["spec"]["selector"].items()
        <= master["spec"]["template"]["metadata"]["labels"].items()
    )
    box = container(master)
    ports = {port["name"]: port["containerPort"] for port in box["ports"]}
    assert {p["name"]: (p["port"], p["targetPort"]) for p in service["spec"]["ports"]} == {
        "workers": (5557, "workers"),
        "web": (8089, "web"),
    }
    args = box["args"]
    assert "--master" in args
    assert ports == {"workers": int(after(args, "--master-bind-port")), "web": 8089}
    assert int(after(args, "--web-port")) == 8089
    assert box["readinessProbe"]["httpGet"]["port"] == "web"
    worker_args = container(workers)["args"]
    assert "--worker" in worker_args
    assert after(worker_args, "--master-host") == service["metadata"]["name"]
    assert int(after(worker_args, "--master-port")) == 5557


def test_the_target_is_the_bases_grpc_service() -> None:
    settings = of_kind(rendered(), "ConfigMap")["locust-settings"]["data"]
    host, port = settings["LOCUST_HOST"].rsplit(":", 1)
    name, namespace, *_ = host.split(".")
    web = of_kind(base_files(), "Service")[name]
    assert namespace == "meeple"  # the base's namespace (its kustomization)
    assert int(port) in {p["port"] for p in web["spec"]["ports"] if p["name"] == "grpc"}
    assert all(key.startswith("LOCUST_") for key in settings)


def after(args: list[str], option: str) -> str:
    return args[args.index(option) + 1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_the_commands_run_as_the_containers_would(tmp_path: Path) -> None:
    """The master with the ConfigMap's settings serves its web UI (the
    probe's path), and a worker connects to it; both stop on SIGTERM."""
    resources = rendered()
    settings = of_kind(resources, "ConfigMap")["locust-settings"]["data"]
    deployments = of_kind(resources, "Deployment")
    workers_port, web_port = str(free_port()), str(free_port())
    env = {
        "PATH": f"{LOCUST.parent}:{os.environ.get('PATH', '')}",
        "LOCUST_LOCUSTFILE": str(LOCUSTFILE),  # the image's ENV, for this checkout
        **settings,
    }
    ports = {"5557": workers_port, "8089": web_port, "locust-master": "127.0.0.1"}
    processes = []
    for name in ("locust-master", "locust-worker"):
        box = container(deployments[name])
        args = [ports.get(arg, arg) for arg in box["args"]]
        if name == "locust-master":
            args += ["--web-host", "127.0.0.1"]  # loopback only, here
        log = (tmp_path / f"{name}.log").open("w")
        processes.append(
            subprocess.Popen(
                [*box["command"], *args], env=env, cwd=tmp_path, stdout=log, stderr=log
            )
        )
    try:
        master_log = tmp_path / "locust-master.log"
        deadline = time.monotonic() + 30
        while "1 workers connected" not in master_log.read_text():
            assert time.monotonic() < deadline, master_log.read_text()
            assert all(p.poll() is None for p in processes), master_log.read_text()
            time.sleep(0.2)
        probe = deployments["locust-master"]["spec"]["template"]["spec"]["containers"][0]
        path = probe["readinessProbe"]["httpGet"]["path"]
        with urllib.request.urlopen(f"http://127.0.0.1:{web_port}{path}", timeout=10) as answer:
            assert answer.status == 200
            assert "meeple_games" in answer.read().decode()
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process in processes:
            assert process.wait(timeout=30) in (0, -signal.SIGTERM), master_log.read_text()
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
