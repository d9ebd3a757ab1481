"""The image job (``pytest -m image``, run by .ci/image-job after ``make
test``): deploy/Dockerfile built with podman on stand-in bases, its web
stage giving the committed page byte for byte, and deploy/compose.yaml run
with podman-compose (every service but Grafana). Through the published
ports only: the page over HTTP, ``meeple loadtest`` with server bots across
every game, a matchmaking run with client bots, clients playing while one
match replica and one worker are killed (every acknowledged action in the
final records once), the rules container validating those records,
Prometheus scraping every container with every rule evaluated, and every
finished match in the archive's PostgreSQL once (read there with psql). Identities
are on, as compose runs them: players are guests signed in on the web
entry's AuthService, whose tokens every match replica accepts (the key is
shared in Redis). The entry allows 30 guest sign-ins a minute per address
(compose keeps the default), so the tests sign in few players.

The tests run in file order on one topology; each waits a bounded time and
says what it waited for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import rules_service_pb2 as rs
from meeple.v1 import rules_service_pb2_grpc as rs_grpc

from tests.e2e.test_redis_topology import (
    HumanClient,
    await_finished,
    check_acknowledged,
    check_records,
    create_bot_matches,
    human_vs_bot,
)
from tests.identities import sign_in, signed_in_channel
from tests.image.podman import (
    IMAGE,
    REPLICAS,
    ROOT,
    SERVICES,
    WEB_STAGE,
    Compose,
    build,
    copy_out,
    podman,
)

pytestmark = pytest.mark.image
MEEPLE = Path(sys.executable).with_name("meeple")
MEEPLE_JOBS = ("meeple-rules", "meeple-match", "meeple-matchmaker", "meeple-worker", "meeple-web")


@pytest.fixture(scope="module")
def image() -> str:
    build(None, IMAGE)
    return IMAGE


@pytest.fixture(scope="module")
def topology(image: str) -> Iterator[Compose]:
    compose = Compose()
    compose.up()
    try:
        compose.wait_healthy()
        yield compose
    finally:
        for container in compose.containers():  # for the CI log, when a test failed
            print(f"--- {container}\n{compose.logs(container, 15)}")
        compose.down()


def channel(port: int) -> grpc.Channel:
    return grpc.insecure_channel(f"127.0.0.1:{port}")


def get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.status, answer.read()


def test_the_web_stage_builds_the_committed_page(tmp_path: Path) -> None:
    build("web", WEB_STAGE)
    built = copy_out(WEB_STAGE, "/out", tmp_path)
    committed = ROOT / "services" / "web" / "static"
    names = sorted(p.relative_to(committed).as_posix() for p in committed.rglob("*") if p.is_file())
    assert sorted(p.relative_to(built).as_posix() for p in built.rglob("*") if p.is_file()) == names
    for name in names:
        assert (built / name).read_bytes() == (committed / name).read_bytes(), name


def test_the_image_runs_as_its_non_root_user(image: str) -> None:
    assert podman("run", "--rm", "--entrypoint", "id", image, "-u").strip() == "10001"
    assert "serve" in podman("run", "--rm", image, "--help")


def test_the_page_and_its_bundle_over_http(topology: Compose) -> None:
    base = f"http://127.0.0.1:{topology.ports['WEB']}"
    status, page = get(base + "/")
    assert status == 200
    assert b'src="app.js"' in page or b"app.js" in page
    status, bundle = get(base + "/app.js")
    assert status == 200
    assert bundle == (ROOT / "services" / "web" / "static" / "app.js").read_bytes()


def loadtest(topology: Compose, tmp_path: Path, *options: str) -> dict[str, Any]:
    out = tmp_path / "report.json"
    done = subprocess.run(
        [str(MEEPLE), "loadtest", "--target", f"127.0.0.1:{topology.ports['GRPC']}",
         *options, "--json", str(out)],
        capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "COLUMNS": "200"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    report: dict[str, Any] = json.loads(out.read_text())
    assert report["errors"] == {}, report["errors"]
    assert report["matches"]["failed"] == 0
    return report


def test_a_loadtest_with_server_bots_across_every_game(topology: Compose, tmp_path: Path) -> None:
    report = loadtest(topology, tmp_path, "--game", "all", "--matches", "12",
                      "--concurrency", "4", "--bots", "server", "--spectators", "1")  # fmt: skip
    assert report["matches"]["completed"] == 12
    topology.finished_unnamed += report["matches"]["completed"]


def test_matchmaking_with_client_bots(topology: Compose, tmp_path: Path) -> None:
    # Two matches in flight: at most 8 open tickets from this one address (16 allowed).
    report = loadtest(topology, tmp_path, "--game", "othello,rolit", "--matches", "8",
                      "--concurrency", "2", "--bots", "client", "--matchmaking")  # fmt: skip
    assert report["matches"]["completed"] == 8
    assert report["assignment"]["count"] >= 8
    topology.finished_unnamed += report["matches"]["completed"]


def test_prometheus_scrapes_every_container_and_evaluates_every_rule(topology: Compose) -> None:
    base = f"http://127.0.0.1:{topology.ports['PROMETHEUS']}/api/v1"
    expected = {f"meeple-{name}": REPLICAS.get(name, 1) for name in SERVICES if name in
                {"rules", "match", "matchmaker", "worker", "web"}}  # fmt: skip
    deadline = time.monotonic() + 60  # scrapes and evaluations run every 15 s
    while True:
        targets = json.loads(get(base + "/targets")[1])["data"]["activeTargets"]
        up: dict[str, int] = {}
        for target in targets:
            if target["health"] == "up":
                up[target["labels"]["job"]] = up.get(target["labels"]["job"], 0) + 1
        groups = json.loads(get(base + "/rules")[1])["data"]["groups"]
        rules = [rule for group in groups for rule in group["rules"]]
        unevaluated = [
            rule["name"]
            for rule in rules
            if rule["health"] != "ok" or rule["lastEvaluation"].startswith("0001")
        ]
        if all(up.get(job, 0) == count for job, count in expected.items()) and not unevaluated:
            break
        if time.monotonic() > deadline:
            down = [(t["labels"]["job"], t["lastError"]) for t in targets if t["health"] != "up"]
            raise AssertionError(
                f"targets up {up}, expected {expected}; down: {down}; "
                f"rules not evaluated or failing: {unevaluated[:10]}"
            )
        time.sleep(2)
    assert rules, "Prometheus loaded no rules"
    assert {rule["type"] for rule in rules} == {"recording", "alerting"}


def test_killing_a_match_replica_and_a_worker_loses_nothing(topology: Compose) -> None:
    replicas = [topology.host_port("match", n) for n in (1, 2)]
    entry = channel(topology.ports["GRPC"])
    creator = sign_in(entry, "creator")  # creates every match
    # The killed replica first: every client talks to it until it goes.
    stubs = [
        ms_grpc.MatchServiceStub(signed_in_channel(channel(port), lambda: creator))
        for port in (*replicas, topology.ports["GRPC"])
    ]
    ids = [human_vs_bot(stubs[0]) for _ in range(6)]
    ids += create_bot_matches(stubs, 12)
    # Each client a player of its own, signed in on the entry, playing on the replicas.
    clients = [
        HumanClient(stubs, match_id, seed, sign_in(entry, f"human {seed}"))
        for seed, match_id in enumerate(ids[:6])
    ]
    for client in clients:
        client.start()
    time.sleep(1.5)
    killed = [topology.container("match", 1), topology.container("worker", 1)]
    for container in killed:
        podman("kill", container)
    for client in clients:
        client.join(timeout=180)
        assert not client.is_alive(), f"{client.match_id}: the client still plays after 180 s"
        assert client.error is None, f"{client.match_id}: {client.error!r}"
    final = await_finished(stubs[1:], ids, seconds=120)
    topology.finished |= set(final)
    check_records(stubs[1:], final)
    check_acknowledged(clients, final)
    assert all(client.acknowledged for client in clients)
    # The stateless rules container agrees that each record is a legal game.
    rules = rs_grpc.RulesServiceStub(channel(topology.ports["RULES"]))
    for match_id, got in final.items():
        if got.match.ended.reason == ms.END_REASON_RULES:
            listed = rules.ListLegalActions(rs.ListLegalActionsRequest(record=got.record))
            assert listed.view.phase == pb.GAME_PHASE_TERMINAL, match_id
    for container in killed:  # back as an operator would bring them
        podman("start", container)
    topology.wait_healthy(60)


def archived_match_ids(topology: Compose) -> list[str]:
    """Every match_id of the archive's matches table, read in PostgreSQL
    itself (psql in its container, as the database's user)."""
    query = "select match_id from matches"
    out = podman("exec", topology.container("postgres"), "psql", "-U", "meeple", "-d", "meeple",
                 "-v", "ON_ERROR_STOP=1", "-tAc", query)  # fmt: skip
    return out.split()


def test_every_finished_match_is_archived_once(topology: Compose) -> None:
    """Every match the tests saw finish (the killed replica's included) is
    in PostgreSQL, once, and no other: the match replicas drain the outbox
    shortly after each end (the kill test's matches, the last to end, within
    seconds)."""
    expected = len(topology.finished) + topology.finished_unnamed
    assert topology.finished, "no finished match to look for (the earlier tests failed?)"
    deadline = time.monotonic() + 20
    while True:
        ids = archived_match_ids(topology)
        if (topology.finished <= set(ids) and len(ids) >= expected) or time.monotonic() > deadline:
            break
        time.sleep(1)
    duplicates = sorted({match_id for match_id in ids if ids.count(match_id) > 1})
    assert duplicates == [], duplicates
    missing = sorted(topology.finished - set(ids))
    assert missing == [], f"{len(missing)} finished matches not archived after 20 s: {missing}"
    assert len(ids) == expected, (
        f"{len(ids)} matches archived; the tests finished {expected} "
        f"({len(topology.finished)} by id, {topology.finished_unnamed} in loadtests)"
    )


def test_no_container_logged_a_traceback(topology: Compose) -> None:
    """Kills, failovers and load leave one-line errors at most: a traceback
    in any container's log is a bug that the clients did not see."""
    found = {}
    for container in topology.containers():
        log = topology.logs(container, lines=100_000)
        if "Traceback" in log:  # the first one, whole
            found[container] = "\n".join(log[log.index("Traceback") :].splitlines()[:40])
    assert not found, "\n\n".join(f"{name}:\n{text}" for name, text in found.items())
