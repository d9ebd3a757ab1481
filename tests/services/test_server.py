"""What every server offers: health and reflection."""

from __future__ import annotations

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc


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


def test_metrics_count_rpcs_matches_and_thinking(channel: grpc.Channel) -> None:
    from urllib.request import urlopen

    from meeple.v1 import game_pb2 as pb
    from meeple.v1 import match_service_pb2 as ms
    from meeple.v1 import match_service_pb2_grpc as ms_grpc

    matches = ms_grpc.MatchServiceStub(channel)
    bot = ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec="random")
    created = matches.CreateMatch(
        ms.CreateMatchRequest(config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO), seats=[bot, bot])
    ).match
    list(matches.WatchMatch(ms.WatchMatchRequest(match_id=created.match_id), timeout=60))
    text = urlopen(channel.metrics_url, timeout=10).read().decode()  # type: ignore[attr-defined]
    assert (
        'grpc_server_handled_total{grpc_code="OK",grpc_method="CreateMatch",'
        'grpc_service="meeple.v1.MatchService",grpc_type="unary"}'
    ) in text
    assert "grpc_server_handling_seconds_bucket" in text
    assert 'meeple_match_finished_total{game="othello",outcome=' in text
    assert 'meeple_match_active{game="othello"}' in text
    assert 'meeple_ai_think_seconds_count{bot="random",game="othello"}' in text
    assert "meeple_ai_queue_depth" in text


def test_a_client_over_its_rate_limit_is_resource_exhausted() -> None:
    import asyncio
    import threading

    import pytest
    from meeple.v1 import game_pb2 as pb
    from meeple.v1 import rules_service_pb2 as rules
    from meeple.v1 import rules_service_pb2_grpc as rules_grpc

    from services.app import App

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    app = App("127.0.0.1:0", services=("rules",), rate_limit=(1.0, 5.0))
    port = asyncio.run_coroutine_threadsafe(app.start(), loop).result(timeout=30)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = rules_grpc.RulesServiceStub(channel)
            request = rules.NewGameRequest(config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO))
            for _ in range(5):  # the burst
                stub.NewGame(request)
            with pytest.raises(grpc.RpcError) as info:
                stub.NewGame(request)
            assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "rate limit" in info.value.details()
    finally:
        asyncio.run_coroutine_threadsafe(app.stop(grace=0.5), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
