"""Bot seats through real gRPC when things go wrong: a bot turn that keeps
failing ends in the documented fallback move, and the backlog of bot turns
shows in the metrics while they wait."""

from __future__ import annotations

import time
from collections.abc import Callable
from urllib.request import urlopen

import grpc
import pytest
from meeple.v1 import ai_service_pb2 as ai
from meeple.v1 import ai_service_pb2_grpc as ai_grpc
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc

from services.settings import Settings
from tests.deploy.metrics_page import start_meeple_up
from tests.identities import sign_in, signed_in_channel
from tests.services.conftest import Served

OTHELLO = pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)


def bot(spec: str) -> ms.SeatConfig:
    return ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec=spec)


def metric(metrics_url: str, sample: str) -> float:
    for line in urlopen(metrics_url, timeout=10).read().decode().splitlines():
        if line.startswith(sample + " "):
            return float(line.split()[-1])
    return 0.0


def wait_for_metric(metrics_url: str, sample: str, value: float, seconds: float = 5.0) -> None:
    """Until ``sample`` reads ``value`` (the queue gauges are sampled every second)."""
    deadline = time.monotonic() + seconds
    while (read := metric(metrics_url, sample)) != value:
        assert time.monotonic() < deadline, f"{sample} read {read}, not {value}, for {seconds} s"
        time.sleep(0.05)


def test_a_failing_bot_turn_is_dead_lettered_and_the_fallback_plays(
    serve: Callable[..., Served],
) -> None:
    """Every think runs past the server's 0.3 s limit: after two attempts the
    turn is given up and a random legal move plays it, so the match goes on."""
    served = serve(Settings(ai_max_think_seconds=0.3, bot_attempts=2), workers=1)
    matches = ms_grpc.MatchServiceStub(served.channel)
    before = metric(served.metrics_url, 'meeple_ai_dead_letters_total{game="othello"}')
    match = matches.CreateMatch(
        ms.CreateMatchRequest(config=OTHELLO, seats=[bot("mcts:time=5"), bot("mcts:time=5")])
    ).match
    stream = matches.WatchMatch(ms.WatchMatchRequest(match_id=match.match_id), timeout=30)
    played = []
    for event in stream:
        if event.HasField("action"):
            played.append(event)
            if len(played) == 2:
                break
    stream.cancel()
    assert [e.ply for e in played] == [0, 1]
    # The fallback's move lands first, then its runner files the dead letter.
    deadline = time.monotonic() + 5.0
    letters = served.run(served.app.coordination.dead_letters())
    while len(letters) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
        letters = served.run(served.app.coordination.dead_letters())
    assert [letter.job.ply for letter in letters[:2]] == [0, 1]
    assert "at most 0.3 s" in letters[0].reason
    assert metric(served.metrics_url, 'meeple_ai_dead_letters_total{game="othello"}') >= before + 2


def test_waiting_bot_turns_show_in_the_queue_depth() -> None:
    """In a process of its own: the gauges are the process's, and any other
    server alive in this one would write its own zeros into them."""
    up = start_meeple_up()  # with one AI worker
    try:
        with grpc.insecure_channel(up.process.address) as plain:
            token = sign_in(plain)
            check_queue_depth(signed_in_channel(plain, lambda: token), up.metrics_url)
    finally:
        up.process.stop()


def check_queue_depth(channel: grpc.Channel, metrics_url: str) -> None:
    record = pb.GameRecord(config=OTHELLO)
    hint = ai.SuggestActionRequest(record=record, bot_spec="mcts:time=3")
    # Two hints of 3 s: once the gauge shows one waiting, the only worker is
    # surely thinking about the other (on a loaded machine a sleep would not
    # make sure of it, and the calls may reach the server in either order).
    hints = [
        ai_grpc.AIServiceStub(channel).SuggestAction.future(hint, timeout=15) for _ in range(2)
    ]
    wait_for_metric(metrics_url, 'meeple_ai_queue_depth{kind="hint"}', 1.0)
    for call in hints:
        call.result()
    # A hint cannot make bot turns wait (a bot turn preempts it), but bot
    # turns can: one worker thinks 2 s about one match's turn while the
    # other match's waits.
    age = 'meeple_ai_job_age_seconds_sum{kind="bot_seat"}'
    waited_before = metric(metrics_url, age)
    matches = ms_grpc.MatchServiceStub(channel)
    for _ in range(2):
        matches.CreateMatch(ms.CreateMatchRequest(config=OTHELLO, seats=[bot("mcts:time=2")] * 2))
    wait_for_metric(metrics_url, 'meeple_ai_queue_depth{kind="bot_seat"}', 1.0)
    for _ in range(50):
        if metric(metrics_url, age) - waited_before > 1.0:
            break
        time.sleep(0.1)
    assert metric(metrics_url, age) - waited_before > 1.0


def test_an_abandoned_hint_does_not_hold_up_bot_seats(serve: Callable[..., Served]) -> None:
    served = serve(workers=1)
    hint = ai.SuggestActionRequest(record=pb.GameRecord(config=OTHELLO), bot_spec="mcts:time=10")
    with pytest.raises(grpc.RpcError) as info:
        ai_grpc.AIServiceStub(served.channel).SuggestAction(hint, timeout=0.5)
    assert info.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    matches = ms_grpc.MatchServiceStub(served.channel)
    began = time.perf_counter()
    match = matches.CreateMatch(
        ms.CreateMatchRequest(config=OTHELLO, seats=[bot("greedy")] * 2)
    ).match
    stream = matches.WatchMatch(ms.WatchMatchRequest(match_id=match.match_id), timeout=30)
    next(e for e in stream if e.HasField("action"))
    stream.cancel()
    assert time.perf_counter() - began < 2.0
