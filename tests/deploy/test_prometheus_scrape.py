"""A real Prometheus scrapes a running ``meeple up`` with the shipped
recording and alert rules loaded, while bots play whole matches through
gRPC, created by a guest signed in on the server's AuthService; its HTTP
API must then show the RPC (sign-in included), match and AI metrics with
the values the games imply, and run every dashboard query. Each wait is
short and says what it was waiting for."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
import yaml
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc

from tests.deploy.metrics_page import DEPLOY, start_meeple_up
from tests.deploy.test_dashboard import dashboard_expressions
from tests.identities import sign_in, signed_in_channel
from tests.prometheus_server import PrometheusServer, require_prometheus

MATCHES = 4
JOB = "meeple-up"
GAMES_SECONDS = 30.0  # four random-bot Othello games take well under a second
SCRAPE_SECONDS = 20.0  # scrapes and rule evaluations run every second
BOT = ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec="random")


def scrape_config(target: str) -> dict[str, Any]:
    """The shipped config, scraping only ``target`` every second, with the
    shipped rules."""
    config: dict[str, Any] = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    config["global"] = {
        "scrape_interval": "1s",
        "scrape_timeout": "1s",
        "evaluation_interval": "1s",
    }
    config["rule_files"] = [str(DEPLOY / "prometheus" / "rules" / "meeple.yml")]
    config["scrape_configs"] = [{"job_name": JOB, "static_configs": [{"targets": [target]}]}]
    return config


@dataclass
class Scraped:
    prometheus: PrometheusServer
    plies: int  # actions the bots chose, over all the matches

    def value(self, expr: str) -> float | None:
        """The single value ``expr`` gives now, or None when it gives none."""
        result = self.prometheus.query(expr)
        assert len(result) <= 1, f"{expr} gives several series: {result}"
        return float(result[0]["value"][1]) if result else None

    def number(self, expr: str) -> float:
        """The value ``expr`` gives now; fails when it gives none."""
        value = self.value(expr)
        assert value is not None, f"{expr} gives no series"
        return value

    def wait_until(self, expr: str, holds: Callable[[float | None], bool]) -> float | None:
        """Polls ``expr`` until ``holds`` accepts its value; fails naming it."""
        deadline = time.monotonic() + SCRAPE_SECONDS
        while True:
            value = self.value(expr)
            if holds(value):
                return value
            if time.monotonic() > deadline:
                targets = self.prometheus.api("targets")["activeTargets"]
                health = [(t["health"], t["lastError"]) for t in targets]
                raise AssertionError(
                    f"{expr} was {value} after {SCRAPE_SECONDS} s; targets: {health}"
                )
            time.sleep(0.2)


def play_bot_matches(stub: ms_grpc.MatchServiceStub, count: int) -> int:
    """Plays ``count`` random-bot Othello matches to the end; returns their plies."""
    config = pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)
    request = ms.CreateMatchRequest(config=config, seats=[BOT, BOT])
    ids = [stub.CreateMatch(request, timeout=5).match.match_id for _ in range(count)]
    deadline = time.monotonic() + GAMES_SECONDS
    plies = 0
    for match_id in ids:
        while True:
            got = stub.GetMatch(ms.GetMatchRequest(match_id=match_id), timeout=5)
            if got.match.status == ms.MATCH_STATUS_FINISHED:
                plies += len(got.record.history)
                break
            assert time.monotonic() < deadline, f"match {match_id} unfinished: {got.match}"
            time.sleep(0.05)
    return plies


@pytest.fixture(scope="module")
def scraped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scraped]:
    """Bots play one match, then, once Prometheus has seen it, three more:
    a series a scrape first sees at its final value shows no rate, so the
    second wave is what the rates and the recording rules measure."""
    require_prometheus()
    served = start_meeple_up()
    folder: Path = tmp_path_factory.mktemp("prometheus")
    prometheus = PrometheusServer(folder, scrape_config(served.metrics_target))
    channel = grpc.insecure_channel(served.process.address)
    try:
        scraped = Scraped(prometheus, plies=0)
        scraped.wait_until(f'up{{job="{JOB}"}}', lambda up: up == 1)
        # The matches' creator: one guest, whose token every call carries.
        player = sign_in(channel, "scrape test")
        stub = ms_grpc.MatchServiceStub(signed_in_channel(channel, lambda: player))
        with pytest.raises(grpc.RpcError) as missing:  # counted with its code
            stub.GetMatch(ms.GetMatchRequest(match_id="no-such-match"), timeout=5)
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND
        scraped.plies = play_bot_matches(stub, 1)
        scraped.wait_until("sum(meeple_ai_think_seconds_count)", lambda n: n == scraped.plies)
        scraped.plies += play_bot_matches(stub, MATCHES - 1)
        scraped.wait_until("sum(meeple_match_finished_total)", lambda n: n == MATCHES)
        scraped.wait_until("sum(meeple:match_finished:rate5m)", lambda rate: bool(rate))
        yield scraped
    finally:
        channel.close()
        prometheus.stop()
        served.process.stop()


def test_rpc_counts_and_latency_arrive(scraped: Scraped) -> None:
    def calls(method: str, code: str) -> float | None:
        return scraped.value(
            f'sum(grpc_server_handled_total{{grpc_method="{method}", grpc_code="{code}"}})'
        )

    assert calls("CreateMatch", "OK") == MATCHES
    assert calls("SignInGuest", "OK") == 1
    assert calls("GetMatch", "NOT_FOUND") == 1
    assert scraped.number('sum(grpc_server_handled_total{grpc_method="GetMatch"})') > MATCHES
    p99 = scraped.number(
        "histogram_quantile(0.99, sum by (le) (rate("
        'grpc_server_handling_seconds_bucket{grpc_method="CreateMatch"}[1m])))'
    )
    assert 0 < p99 < 5  # seconds, for an in-memory CreateMatch
    assert scraped.value(f'count(meeple:grpc_server_handled:rate5m{{job="{JOB}"}})')


def test_match_counts_arrive(scraped: Scraped) -> None:
    finished = scraped.prometheus.query("meeple_match_finished_total")
    assert {r["metric"]["game"] for r in finished} == {"othello"}
    assert {r["metric"]["outcome"] for r in finished} <= {"win", "draw"}
    assert sum(float(r["value"][1]) for r in finished) == MATCHES
    assert scraped.value('sum(meeple_match_active{game="othello"})') == 0  # all over
    assert scraped.value("sum(meeple:match_finished:rate5m)")  # the recording rule ran


def test_every_bot_decision_is_timed(scraped: Scraped) -> None:
    decisions = 'meeple_ai_think_seconds_count{game="othello", bot="random"}'
    assert scraped.wait_until(f"sum({decisions})", lambda n: n == scraped.plies)
    mean = scraped.number(
        'sum(meeple_ai_think_seconds_sum{game="othello"}) / sum(meeple_ai_think_seconds_count)'
    )
    assert 0 < mean < 0.1  # a random move takes microseconds
    waited = scraped.value('sum(meeple_ai_job_age_seconds_count{kind="bot_seat"})')
    assert waited == scraped.plies
    # The gauge is sampled every second: once all is played, it reads 0.
    scraped.wait_until('meeple:ai_queue_depth:max{kind="bot_seat"}', lambda depth: depth == 0)


def test_every_dashboard_query_runs(scraped: Scraped) -> None:
    empty = []
    for expr in dashboard_expressions():
        result = scraped.prometheus.query(expr.replace("$__rate_interval", "1m"))
        if not result:
            empty.append(expr)
    # Matchmaking, workers, dead letters and the like have nothing to show
    # after bot games; the RPC, AI and match panels must.
    shown = set(dashboard_expressions()) - set(empty)
    for needed in ("grpc_server_handled_total", "meeple_ai_think_seconds", "meeple_match_active"):
        assert any(needed in expr for expr in shown), (needed, empty)
