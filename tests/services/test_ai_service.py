"""AIService through real gRPC: suggestions that are legal and reproducible,
and the errors for bad specs, budgets and states."""

from __future__ import annotations

import contextlib
import time

import grpc
import pytest
from meeple.v1 import ai_service_pb2 as ai
from meeple.v1 import ai_service_pb2_grpc as ai_grpc
from meeple.v1 import game_pb2 as pb
from meeple.v1 import rules_service_pb2 as rules
from meeple.v1 import rules_service_pb2_grpc as rules_grpc

from services.ai_service.pool import Priority
from services.settings import Settings
from tests.services.ai_helpers import Recording, recorded, seeds_received
from tests.services.conftest import Served


@pytest.fixture(scope="module")
def stubs(channel: grpc.Channel) -> tuple[ai_grpc.AIServiceStub, rules_grpc.RulesServiceStub]:
    return ai_grpc.AIServiceStub(channel), rules_grpc.RulesServiceStub(channel)


def start(rules_stub: rules_grpc.RulesServiceStub, kind: int) -> pb.GameRecord:
    return rules_stub.NewGame(rules.NewGameRequest(config=pb.GameConfig(kind=kind))).record


@pytest.mark.parametrize(
    ("kind", "spec"),
    [
        (pb.GAME_KIND_OTHELLO, "hard"),
        (pb.GAME_KIND_ROLIT, "brs:depth=2"),
        (pb.GAME_KIND_VOLLEYBALL, "hard"),
        (pb.GAME_KIND_VOLTA, "planner:samples=16:iterations=1:replies=0"),
    ],
)
def test_suggestions_are_legal_and_reproducible(
    stubs: tuple[ai_grpc.AIServiceStub, rules_grpc.RulesServiceStub], kind: int, spec: str
) -> None:
    ai_stub, rules_stub = stubs
    record = start(rules_stub, kind)
    request = ai.SuggestActionRequest(record=record, bot_spec=spec, seed=7)
    first = ai_stub.SuggestAction(request)
    again = ai_stub.SuggestAction(request)
    assert first.action == again.action
    assert first.think_seconds >= 0
    applied = rules_stub.ApplyAction(
        rules.ApplyActionRequest(record=record, actions=[first.action.action])
    )
    assert applied.applied[0].notation == first.action.notation


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("", "name a bot"),
        ("wizard", "unknown bot"),
        ("mcts:iterations=99999999", "iterations must be at most"),
        ("alphabeta:time=3600", "time must be at most"),
        ("mcts:iterations=ten", "iterations must be a number"),
        ("mcts:iterations", "key=value"),
        ("mcts:iterations=nan", "iterations must be at most"),
        ("mcts:c=nan", "finite"),
        ("x" * 100_000, "at most 200 characters"),
        ("mcts:iterations=-5", "iterations must be >= 1"),
    ],
)
def test_bad_specs_and_budgets_are_invalid_argument(
    stubs: tuple[ai_grpc.AIServiceStub, rules_grpc.RulesServiceStub], spec: str, expected: str
) -> None:
    ai_stub, rules_stub = stubs
    record = start(rules_stub, pb.GAME_KIND_OTHELLO)
    with pytest.raises(grpc.RpcError) as info:
        ai_stub.SuggestAction(ai.SuggestActionRequest(record=record, bot_spec=spec))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert expected in info.value.details()
    assert len(info.value.details()) < 300  # never the client's whole input back


@pytest.mark.parametrize(
    ("kind", "spec", "expected"),
    [
        (pb.GAME_KIND_VOLLEYBALL, "alphabeta:depth=3", "chance"),
        (pb.GAME_KIND_VOLTA, "alphabeta:depth=8", "depth must be at most 1 for volta"),
        (pb.GAME_KIND_VOLTA, "mcts:iterations=20000", "iterations must be at most 2000"),
        (pb.GAME_KIND_OTHELLO, "planner", "continuous"),
    ],
)
def test_specs_are_checked_against_the_game(
    stubs: tuple[ai_grpc.AIServiceStub, rules_grpc.RulesServiceStub],
    kind: int,
    spec: str,
    expected: str,
) -> None:
    ai_stub, rules_stub = stubs
    record = start(rules_stub, kind)
    with pytest.raises(grpc.RpcError) as info:
        ai_stub.SuggestAction(ai.SuggestActionRequest(record=record, bot_spec=spec))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert expected in info.value.details()


def test_abandoned_searches_stop_and_free_the_workers(
    stubs: tuple[ai_grpc.AIServiceStub, rules_grpc.RulesServiceStub],
) -> None:
    """Three 10 s searches whose callers give up after 1 s once stalled every
    worker for 30 s; now a small suggestion right after answers at once."""
    import threading

    ai_stub, rules_stub = stubs
    record = start(rules_stub, pb.GAME_KIND_OTHELLO)
    long = ai.SuggestActionRequest(record=record, bot_spec="mcts:time=10")
    codes: list[grpc.StatusCode] = []

    def abandon() -> None:
        try:
            ai_stub.SuggestAction(long, timeout=1.0)
        except grpc.RpcError as error:
            codes.append(error.code())

    callers = [threading.Thread(target=abandon) for _ in range(3)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    assert codes == [grpc.StatusCode.DEADLINE_EXCEEDED] * 3
    start_time = time.perf_counter()
    small = ai.SuggestActionRequest(record=record, bot_spec="greedy")
    ai_stub.SuggestAction(small, timeout=10)
    assert time.perf_counter() - start_time < 2.0


def test_admission_control_refuses_at_once(serve: object) -> None:
    """Beyond a client's calls in flight, or the queue's length, a call is
    RESOURCE_EXHAUSTED at once; two connections from one address share a cap."""
    import threading

    served: Served = serve(  # type: ignore[operator]
        Settings(ai_calls_per_client=2, ai_queue_limit=1), workers=1
    )
    record = (
        rules_grpc.RulesServiceStub(served.channel)
        .NewGame(rules.NewGameRequest(config=pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)))
        .record
    )
    long = ai.SuggestActionRequest(record=record, bot_spec="mcts:time=3")
    other_connection = grpc.insecure_channel(
        served.address, options=[("grpc.use_local_subchannel_pool", 1)]
    )
    stubs = [ai_grpc.AIServiceStub(served.channel), ai_grpc.AIServiceStub(other_connection)]
    busy = [
        threading.Thread(target=lambda s=stub: _suggest_quietly(s, long, 3.0)) for stub in stubs
    ]
    for thread in busy:
        thread.start()
    time.sleep(0.5)  # one thinks, the other waits in the queue
    for stub in stubs:
        began = time.perf_counter()
        with pytest.raises(grpc.RpcError) as info:
            stub.SuggestAction(long, timeout=10)
        assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "2 AI calls in flight per client address" in info.value.details()
        assert time.perf_counter() - began < 0.5
    for thread in busy:
        thread.join()
    other_connection.close()


def test_a_suggestion_cancelled_in_the_queue_never_reaches_a_worker(serve: object) -> None:
    """A client that gives up on a call still waiting for the only worker
    (busy with another client's hint) leaves nothing for the worker: it is
    sent the busy hint and the call after, never the cancelled one."""
    import threading

    served: Served = serve(Settings(), workers=1)  # type: ignore[operator]
    ai_stub = ai_grpc.AIServiceStub(served.channel)
    record = start(rules_grpc.RulesServiceStub(served.channel), pb.GAME_KIND_OTHELLO)
    ai_stub.SuggestAction(ai.SuggestActionRequest(record=record, bot_spec="random"), timeout=60)

    async def spy() -> list[Recording]:
        return recorded(served.app.pool)

    (recording,) = served.run(spy())
    busy_request = ai.SuggestActionRequest(record=record, bot_spec="mcts:time=1", seed=1)
    busy = threading.Thread(target=lambda: ai_stub.SuggestAction(busy_request, timeout=30))
    busy.start()
    time.sleep(0.3)  # the worker is on it
    queued = ai_stub.SuggestAction.future(
        ai.SuggestActionRequest(record=record, bot_spec="greedy", seed=2), timeout=30
    )
    time.sleep(0.2)
    assert served.app.pool.waiting(Priority.HINT) == 1
    queued.cancel()
    with pytest.raises(grpc.FutureCancelledError):
        queued.result()
    deadline = time.monotonic() + 5
    while served.app.pool.waiting(Priority.HINT) and time.monotonic() < deadline:
        time.sleep(0.01)  # the server sees the cancellation
    assert served.app.pool.waiting(Priority.HINT) == 0
    ai_stub.SuggestAction(
        ai.SuggestActionRequest(record=record, bot_spec="greedy", seed=3), timeout=30
    )
    busy.join()
    assert seeds_received(recording) == [1, 3]


def _suggest_quietly(stub: ai_grpc.AIServiceStub, request: object, timeout: float) -> None:
    with contextlib.suppress(grpc.RpcError):
        stub.SuggestAction(request, timeout=timeout)


def test_no_suggestion_while_the_dice_roll(
    stubs: tuple[ai_grpc.AIServiceStub, rules_grpc.RulesServiceStub],
) -> None:
    ai_stub, rules_stub = stubs
    record = start(rules_stub, pb.GAME_KIND_VOLLEYBALL)
    while True:  # let the hard bot play both seats up to the serve's dice
        listed = rules_stub.ListLegalActions(rules.ListLegalActionsRequest(record=record))
        if listed.chance_outcomes:
            break
        suggestion = ai_stub.SuggestAction(
            ai.SuggestActionRequest(record=record, bot_spec="greedy")
        )
        record = rules_stub.ApplyAction(
            rules.ApplyActionRequest(record=record, actions=[suggestion.action.action])
        ).record
    with pytest.raises(grpc.RpcError) as info:
        ai_stub.SuggestAction(ai.SuggestActionRequest(record=record, bot_spec="hard"))
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "dice" in info.value.details()


def test_every_level_is_within_the_budget_limits() -> None:
    import engine_core
    from ai.bots import LEVEL_NAMES, level_spec
    from services.bot_specs import check_spec

    for name, options in [
        ("rolit", {"players": 2}),
        ("rolit", {"players": 4}),
        ("othello", {}),
        ("volleyball", {}),
        ("volleyball", {"big_leagues": True}),
        ("volta", {}),
    ]:
        game = engine_core.load_game(name, **options)
        for level in LEVEL_NAMES:
            check_spec(game, level_spec(game, level))
