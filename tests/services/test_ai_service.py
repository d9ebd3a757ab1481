"""AIService through real gRPC: suggestions that are legal and reproducible,
and the errors for bad specs, budgets and states."""

from __future__ import annotations

import grpc
import pytest
from meeple.v1 import ai_service_pb2 as ai
from meeple.v1 import ai_service_pb2_grpc as ai_grpc
from meeple.v1 import game_pb2 as pb
from meeple.v1 import rules_service_pb2 as rules
from meeple.v1 import rules_service_pb2_grpc as rules_grpc


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
            check_spec(level_spec(game, level))
