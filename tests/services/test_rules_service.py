"""RulesService through real gRPC: whole games of every kind driven by a
client, and every error path with the status a client can act on."""

from __future__ import annotations

import math
import random

import grpc
import pytest
from meeple.v1 import game_pb2 as pb
from meeple.v1 import rules_service_pb2 as rules
from meeple.v1 import rules_service_pb2_grpc as rules_grpc

ROLIT = pb.GameConfig(kind=pb.GAME_KIND_ROLIT, rolit=pb.RolitOptions(players=4))
OTHELLO = pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)
VOLLEYBALL = pb.GameConfig(kind=pb.GAME_KIND_VOLLEYBALL)
VOLTA = pb.GameConfig(kind=pb.GAME_KIND_VOLTA)


@pytest.fixture(scope="module")
def stub(channel: grpc.Channel) -> rules_grpc.RulesServiceStub:
    return rules_grpc.RulesServiceStub(channel)


def new_record(stub: rules_grpc.RulesServiceStub, config: pb.GameConfig) -> pb.GameRecord:
    return stub.NewGame(rules.NewGameRequest(config=config)).record


def rejected(call: object, code: grpc.StatusCode) -> str:
    """Runs ``call`` and returns the details of the expected error."""
    with pytest.raises(grpc.RpcError) as info:
        call()  # type: ignore[operator]
    assert info.value.code() == code, info.value.details()
    return info.value.details()


def test_new_game_gives_an_empty_record_and_a_view(stub: rules_grpc.RulesServiceStub) -> None:
    response = stub.NewGame(rules.NewGameRequest(config=ROLIT))
    assert response.record.config.kind == pb.GAME_KIND_ROLIT
    assert response.record.config.rolit.players == 4
    assert list(response.record.history) == []
    assert response.record.rules_version >= 1
    assert response.view.phase == pb.GAME_PHASE_SEAT_TO_ACT
    assert response.view.HasField("seat_to_act")
    assert response.view.seat_to_act == 0
    assert list(response.view.scores) == [1, 1, 1, 1]
    assert "a b c d e f g h" in response.view.text


def test_rolit_legal_actions_name_their_squares(stub: rules_grpc.RulesServiceStub) -> None:
    response = stub.ListLegalActions(rules.ListLegalActionsRequest(record=new_record(stub, ROLIT)))
    assert [a.notation for a in response.actions] == ["f4", "d6", "f6"]
    assert [a.action.board.square for a in response.actions] == [29, 43, 45]
    assert not response.HasField("flick_bounds")


@pytest.mark.parametrize("config", [ROLIT, OTHELLO, VOLLEYBALL, VOLTA], ids=lambda c: str(c.kind))
def test_a_client_plays_a_whole_game(
    stub: rules_grpc.RulesServiceStub, config: pb.GameConfig
) -> None:
    record = new_record(stub, config)
    rng = random.Random(config.kind)
    for _ in range(2000):
        listed = stub.ListLegalActions(rules.ListLegalActionsRequest(record=record))
        if listed.view.phase == pb.GAME_PHASE_TERMINAL:
            assert not listed.view.HasField("seat_to_act")
            break
        if listed.chance_outcomes:
            assert listed.view.phase == pb.GAME_PHASE_CHANCE
            assert math.isclose(sum(o.probability for o in listed.chance_outcomes), 1.0)
            choice = rng.choice(listed.chance_outcomes).outcome.action
        else:
            choice = rng.choice(listed.actions).action
            if config.kind == pb.GAME_KIND_VOLTA:  # gentle flicks make longer matches
                choice.flick.impulse_ns = min(choice.flick.impulse_ns, 0.02)
        applied = stub.ApplyAction(rules.ApplyActionRequest(record=record, actions=[choice]))
        assert len(applied.record.history) == len(record.history) + 1
        assert applied.view.ply == len(applied.record.history)
        record = applied.record
    else:
        raise AssertionError("the game did not end")
    assert sum(listed.view.returns) == pytest.approx(0.0)
    assert max(listed.view.returns) > 0 or set(listed.view.returns) == {0.0}


def test_an_illegal_move_is_failed_precondition_with_the_reason(
    stub: rules_grpc.RulesServiceStub,
) -> None:
    record = new_record(stub, ROLIT)
    c3 = pb.Action(board=pb.BoardMove(square=18))
    details = rejected(
        lambda: stub.ApplyAction(rules.ApplyActionRequest(record=record, actions=[c3])),
        grpc.StatusCode.FAILED_PRECONDITION,
    )
    assert "actions[0] c3" in details
    assert "capture is compulsory" in details


@pytest.mark.parametrize(
    ("config", "action", "expected"),
    [
        (ROLIT, pb.Action(board=pb.BoardMove(square=99)), "0..63"),
        (ROLIT, pb.Action(flick=pb.Flick(side=0)), "rolit takes Action.board"),
        (ROLIT, pb.Action(), "got nothing"),
        (ROLIT, pb.Action(board=pb.BoardMove(pass_turn=pb.PassTurn())), "rolit has no pass"),
        (ROLIT, pb.Action(board=pb.BoardMove()), "set square or pass_turn"),
        (OTHELLO, pb.Action(board=pb.BoardMove(square=64)), "0..63"),
        (VOLTA, pb.Action(flick=pb.Flick(side=0, impulse_ns=math.nan)), "finite"),
        (VOLTA, pb.Action(flick=pb.Flick(side=0, impulse_ns=math.inf)), "finite"),
        (VOLTA, pb.Action(flick=pb.Flick(side=7, impulse_ns=0.01)), "side"),
        (VOLTA, pb.Action(flick=pb.Flick(side=0, impulse_ns=5.0)), "impulse"),
        (VOLLEYBALL, pb.Action(volleyball=pb.VolleyballMove()), "VolleyballMove needs one of"),
        (
            VOLLEYBALL,
            pb.Action(volleyball=pb.VolleyballMove(place=pb.CourtSquare(column=0, row=9))),
            "",
        ),
        (
            VOLLEYBALL,
            pb.Action(volleyball=pb.VolleyballMove(dice=pb.Dice(die1=7, die2=1))),
            "",
        ),
    ],
)
def test_malformed_actions_are_invalid_argument(
    stub: rules_grpc.RulesServiceStub, config: pb.GameConfig, action: pb.Action, expected: str
) -> None:
    record = new_record(stub, config)
    details = rejected(
        lambda: stub.ApplyAction(rules.ApplyActionRequest(record=record, actions=[action])),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert expected in details


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (pb.GameConfig(), "config.kind must name a game"),
        (pb.GameConfig(kind=pb.GAME_KIND_ROLIT, rolit=pb.RolitOptions(players=7)), "players"),
        (
            pb.GameConfig(kind=pb.GAME_KIND_ROLIT, volleyball=pb.VolleyballOptions()),
            "do not belong to rolit",
        ),
        (
            pb.GameConfig(kind=pb.GAME_KIND_VOLTA, volta=pb.VoltaOptions(dents=[1])),
            "two in all",
        ),
        (
            pb.GameConfig(kind=pb.GAME_KIND_VOLTA, volta=pb.VoltaOptions(rider_masses_kg=[1, 2])),
            "config",
        ),
        (pb.GameConfig(kind=99), "config.kind must name a game"),
    ],
)
def test_bad_configs_are_invalid_argument(
    stub: rules_grpc.RulesServiceStub, config: pb.GameConfig, expected: str
) -> None:
    details = rejected(
        lambda: stub.NewGame(rules.NewGameRequest(config=config)),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert expected in details


def test_a_record_with_an_illegal_history_says_where(stub: rules_grpc.RulesServiceStub) -> None:
    record = new_record(stub, ROLIT)
    record.history.append(pb.Action(board=pb.BoardMove(square=29)))
    record.history.append(pb.Action(board=pb.BoardMove(square=0)))
    details = rejected(
        lambda: stub.ListLegalActions(rules.ListLegalActionsRequest(record=record)),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert details.startswith("record.history[1]")


def test_a_whole_turn_applies_all_or_nothing(stub: rules_grpc.RulesServiceStub) -> None:
    record = new_record(stub, ROLIT)
    f4 = pb.Action(board=pb.BoardMove(square=29))
    a1 = pb.Action(board=pb.BoardMove(square=0))
    details = rejected(
        lambda: stub.ApplyAction(rules.ApplyActionRequest(record=record, actions=[f4, a1])),
        grpc.StatusCode.FAILED_PRECONDITION,
    )
    assert details.startswith("actions[1] a1")
    assert rejected(
        lambda: stub.ApplyAction(rules.ApplyActionRequest(record=record, actions=[])),
        grpc.StatusCode.INVALID_ARGUMENT,
    ).startswith("actions:")


def test_volta_lists_a_grid_and_its_bounds_and_simulates_flicks(
    stub: rules_grpc.RulesServiceStub,
) -> None:
    record = new_record(stub, VOLTA)
    listed = stub.ListLegalActions(rules.ListLegalActionsRequest(record=record))
    assert len(listed.actions) == 180
    bounds = listed.flick_bounds
    assert (bounds.side_min, bounds.side_max) == (0, 3)
    assert (bounds.offset_min, bounds.offset_max) == (-1.0, 1.0)
    assert bounds.angle_min_rad == pytest.approx(-bounds.angle_max_rad)
    assert 0 <= bounds.impulse_min_ns < bounds.impulse_max_ns
    hard = pb.Flick(side=2, impulse_ns=bounds.impulse_max_ns)
    result = stub.SimulateFlick(
        rules.SimulateFlickRequest(record=record, flick=hard, record_frames=True)
    ).outcome
    assert result.HasField("point_to")
    assert result.point_to == 1  # the mover's own rider is thrown
    assert [e.kind for e in result.events][:1] == [pb.FLICK_EVENT_KIND_RIDER_FALL]
    assert result.events[0].seat == 0
    assert len(result.frames) >= 2
    assert len(result.frames[0].steeds) == 2
    assert result.frames[0].steeds[0].rider == pb.RIDER_STATE_SEATED
    gentle = stub.SimulateFlick(
        rules.SimulateFlickRequest(
            record=record, flick=pb.Flick(side=2, impulse_ns=bounds.impulse_min_ns)
        )
    ).outcome
    assert not gentle.HasField("point_to")
    assert list(gentle.frames) == []
    details = rejected(
        lambda: stub.SimulateFlick(
            rules.SimulateFlickRequest(record=new_record(stub, ROLIT), flick=hard)
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert "for Volta" in details


def test_an_oversized_message_is_resource_exhausted(stub: rules_grpc.RulesServiceStub) -> None:
    record = new_record(stub, VOLTA)
    flick = pb.Action(flick=pb.Flick(side=1, offset=0.5, angle_rad=0.1, impulse_ns=0.015))
    record.history.extend([flick] * 200_000)  # about 6.6 MB, over the 4 MiB limit
    assert record.ByteSize() > 4 * 1024 * 1024
    rejected(
        lambda: stub.ListLegalActions(rules.ListLegalActionsRequest(record=record)),
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    )


@pytest.mark.parametrize(
    ("config", "limit"), [(ROLIT, 60), (OTHELLO, 120), (VOLLEYBALL, 2000), (VOLTA, 2000)]
)
def test_a_record_over_its_games_limit_is_resource_exhausted(
    stub: rules_grpc.RulesServiceStub, config: pb.GameConfig, limit: int
) -> None:
    record = new_record(stub, config)
    action = stub.ListLegalActions(rules.ListLegalActionsRequest(record=record)).actions[0]
    record.history.extend([action.action] * (limit + 1))
    details = rejected(
        lambda: stub.ListLegalActions(rules.ListLegalActionsRequest(record=record)),
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    )
    assert f"at most {limit} actions" in details


def test_a_huge_record_is_refused_at_once_and_stalls_no_one(
    channel: grpc.Channel, stub: rules_grpc.RulesServiceStub
) -> None:
    """A 100,000-flick Volta record once froze every service for 4 s."""
    import threading
    import time

    from meeple.v1 import match_service_pb2 as ms
    from meeple.v1 import match_service_pb2_grpc as ms_grpc

    record = new_record(stub, VOLTA)
    flick = pb.Action(flick=pb.Flick(side=1, offset=0.5, angle_rad=0.1, impulse_ns=0.01))
    record.history.extend([flick] * 100_000)
    matches = ms_grpc.MatchServiceStub(channel)
    missing = ms.GetMatchRequest(match_id="0123456789abcdef")
    slowest: list[float] = []

    def other_client() -> None:
        for _ in range(10):
            start = time.perf_counter()
            with pytest.raises(grpc.RpcError):
                matches.GetMatch(missing)
            slowest.append(time.perf_counter() - start)

    thread = threading.Thread(target=other_client)
    thread.start()
    for _ in range(3):
        rejected(
            lambda: stub.ListLegalActions(rules.ListLegalActionsRequest(record=record)),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
        )
    thread.join()
    assert max(slowest) < 1.0, f"a GetMatch alongside took {max(slowest):.2f} s"


def test_a_record_of_other_rules_is_failed_precondition(
    stub: rules_grpc.RulesServiceStub,
) -> None:
    record = new_record(stub, VOLTA)
    record.rules_version += 1
    details = rejected(
        lambda: stub.ListLegalActions(rules.ListLegalActionsRequest(record=record)),
        grpc.StatusCode.FAILED_PRECONDITION,
    )
    assert f"version {record.rules_version}" in details
    record.rules_version = 0  # unset: the server's current version
    stub.ListLegalActions(rules.ListLegalActionsRequest(record=record))


def test_othello_passes_with_pass_turn(stub: rules_grpc.RulesServiceStub) -> None:
    # A position where black has no capture: play to it through the rules.
    record = new_record(stub, OTHELLO)
    rng = random.Random(2)  # random play that reaches a pass at ply 58
    for _ in range(200):
        listed = stub.ListLegalActions(rules.ListLegalActionsRequest(record=record))
        if listed.view.phase == pb.GAME_PHASE_TERMINAL:
            raise AssertionError("no pass came up")
        if [a.action.board.WhichOneof("move") for a in listed.actions] == ["pass_turn"]:
            assert listed.actions[0].notation == "pass"
            break
        choice = rng.choice(listed.actions).action
        record = stub.ApplyAction(rules.ApplyActionRequest(record=record, actions=[choice])).record
    passed = stub.ApplyAction(
        rules.ApplyActionRequest(
            record=record, actions=[pb.Action(board=pb.BoardMove(pass_turn=pb.PassTurn()))]
        )
    )
    assert passed.applied[0].notation == "pass"
