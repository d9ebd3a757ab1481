"""What every server offers: health and reflection."""

from __future__ import annotations

import time
from collections.abc import Callable

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from services.settings import Settings
from tests.services.conftest import Served


def test_every_service_reports_serving(channel: grpc.Channel) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    for name in ["", "meeple.v1.RulesService", "meeple.v1.AIService"]:
        response = health.Check(health_pb2.HealthCheckRequest(service=name))
        assert response.status == health_pb2.HealthCheckResponse.SERVING, name


def test_reflection_lists_the_services(channel: grpc.Channel) -> None:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    (response,) = list(stub.ServerReflectionInfo(iter([request])))
    names = {service.name for service in response.list_services_response.service}
    assert {"meeple.v1.RulesService", "meeple.v1.AIService", "grpc.health.v1.Health"} <= names


def test_metrics_count_rpcs_matches_and_thinking(server: Served) -> None:
    from urllib.request import urlopen

    from meeple.v1 import game_pb2 as pb
    from meeple.v1 import match_service_pb2 as ms
    from meeple.v1 import match_service_pb2_grpc as ms_grpc

    matches = ms_grpc.MatchServiceStub(server.channel)
    bot = ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec="random")
    created = matches.CreateMatch(
        ms.CreateMatchRequest(config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO), seats=[bot, bot])
    ).match
    list(matches.WatchMatch(ms.WatchMatchRequest(match_id=created.match_id), timeout=60))
    text = urlopen(server.metrics_url, timeout=10).read().decode()
    assert (
        'grpc_server_handled_total{grpc_code="OK",grpc_method="CreateMatch",'
        'grpc_service="meeple.v1.MatchService",grpc_type="unary"}'
    ) in text
    assert "grpc_server_handling_seconds_bucket" in text
    assert 'meeple_match_finished_total{game="othello",outcome=' in text
    assert 'meeple_match_active{game="othello"}' in text
    assert 'meeple_ai_think_seconds_count{bot="random",game="othello"}' in text
    assert 'meeple_ai_queue_depth{kind="bot_seat"}' in text
    assert 'meeple_ai_queue_depth{kind="hint"}' in text
    assert 'meeple_ai_job_age_seconds_count{kind="bot_seat"}' in text


def test_a_client_over_its_rate_limit_is_resource_exhausted(serve: Callable[..., Served]) -> None:
    """The bucket is per client address: a second connection from the same
    address draws from the same bucket."""
    from meeple.v1 import game_pb2 as pb
    from meeple.v1 import rules_service_pb2 as rules
    from meeple.v1 import rules_service_pb2_grpc as rules_grpc

    served = serve(Settings(rate_per_second=0.1, rate_burst=5), services=("rules",))
    request = rules.NewGameRequest(config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO))
    # Its own subchannel pool: a separate TCP connection, from another port.
    separate = [("grpc.use_local_subchannel_pool", 1)]
    with grpc.insecure_channel(served.address, options=separate) as second:
        first_stub = rules_grpc.RulesServiceStub(served.channel)
        second_stub = rules_grpc.RulesServiceStub(second)
        for stub in [first_stub, second_stub, first_stub, second_stub, first_stub]:  # the burst
            stub.NewGame(request)
        for stub in [second_stub, first_stub]:
            with pytest.raises(grpc.RpcError) as info:
                stub.NewGame(request)
            assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "bursts of 5, then 0.1 a second" in info.value.details()


def test_matches_per_minute_and_open_streams_are_capped(serve: Callable[..., Served]) -> None:
    from meeple.v1 import game_pb2 as pb
    from meeple.v1 import match_service_pb2 as ms
    from meeple.v1 import match_service_pb2_grpc as ms_grpc

    served = serve(Settings(matches_per_minute=3, watch_streams=2), workers=1)
    matches = ms_grpc.MatchServiceStub(served.channel)
    human = ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)
    request = ms.CreateMatchRequest(
        config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO), seats=[human, human]
    )
    ids = [matches.CreateMatch(request).match.match_id for _ in range(3)]
    with pytest.raises(grpc.RpcError) as info:
        matches.CreateMatch(request)
    assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "matches created per client" in info.value.details()
    streams = [matches.WatchMatch(ms.WatchMatchRequest(match_id=i)) for i in ids[:2]]
    for stream in streams:
        assert next(stream).HasField("snapshot")  # both open
    with pytest.raises(grpc.RpcError) as info:
        next(matches.WatchMatch(ms.WatchMatchRequest(match_id=ids[2])))
    assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "2 open WatchMatch streams" in info.value.details()
    streams[0].cancel()
    for _ in range(50):  # the server sees the cancellation within moments
        try:
            third = matches.WatchMatch(ms.WatchMatchRequest(match_id=ids[2]))
            assert next(third).HasField("snapshot")
            break
        except grpc.RpcError:
            time.sleep(0.05)
    else:
        raise AssertionError("a closed stream never freed its place")
    third.cancel()
    streams[1].cancel()
