"""Exact values on the wire, not only round trips: the CourtSquare, Dice and
BoardMove messages ListLegalActions returns for known positions, and the
dice a seeded match rolls at given plies."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import rules_service_pb2 as rules
from meeple.v1 import rules_service_pb2_grpc as rules_grpc

from services.convert import action_to_proto, replay
from services.coordination import MemoryCoordination
from services.match_service import logic
from services.match_service.logic import Matches


@pytest.fixture(scope="module")
def stub(channel: grpc.Channel) -> rules_grpc.RulesServiceStub:
    return rules_grpc.RulesServiceStub(channel)


def volleyball(**options: bool) -> pb.GameConfig:
    return pb.GameConfig(
        kind=pb.GAME_KIND_VOLLEYBALL, volleyball=pb.VolleyballOptions(first_seat=0, **options)
    )


def listed(
    stub: rules_grpc.RulesServiceStub, config: pb.GameConfig, moves: tuple[str, ...] = ()
) -> rules.ListLegalActionsResponse:
    """The legal actions after ``moves`` (notations), played through ApplyAction."""
    record = pb.GameRecord(config=config)
    for notation in moves:
        options = stub.ListLegalActions(rules.ListLegalActionsRequest(record=record))
        every = [*options.actions, *(o.outcome for o in options.chance_outcomes)]
        action = next(a.action for a in every if a.notation == notation)
        record = stub.ApplyAction(rules.ApplyActionRequest(record=record, actions=[action])).record
    return stub.ListLegalActions(rules.ListLegalActionsRequest(record=record))


def squares(actions: list[pb.ActionInfo], kind: str) -> list[tuple[int, int]]:
    return [
        (getattr(a.action.volleyball, kind).column, getattr(a.action.volleyball, kind).row)
        for a in actions
    ]


def test_placements_are_every_square_of_the_side(stub: rules_grpc.RulesServiceStub) -> None:
    """Columns count from the net (1) to the back (6); rows 1 to 3, or 1 to 6
    in Big Leagues."""
    standard = listed(stub, volleyball()).actions
    assert squares(standard, "place") == [(c, r) for r in (1, 2, 3) for c in range(1, 7)]
    assert [a.notation for a in standard[:2]] == ["place 1,1", "place 2,1"]
    big = listed(stub, volleyball(big_leagues=True)).actions
    assert squares(big, "place") == [(c, r) for r in range(1, 7) for c in range(1, 7)]


SERVER = ("place 6,1", "place 5,2", "place 4,3", "place 1,1", "place 2,2", "place 3,3")
RECEIVER = ("place 1,1", "place 1,2", "place 1,3", "place 2,1", "place 2,2", "place 2,3")


def test_the_serve_dice_and_steps_of_a_known_point(stub: rules_grpc.RulesServiceStub) -> None:
    serve = listed(stub, volleyball(), (*SERVER, *RECEIVER)).actions
    assert squares(serve, "serve") == [(6, 1)]  # the piece nearest column 6
    dice = listed(stub, volleyball(), (*SERVER, *RECEIVER, "serve 6,1"))
    assert dice.view.phase == pb.GAME_PHASE_CHANCE
    outcomes = [
        (o.outcome.action.volleyball.dice.die1, o.outcome.action.volleyball.dice.die2)
        for o in dice.chance_outcomes
    ]
    assert outcomes == [(d1, d2) for d1 in range(1, 7) for d2 in range(1, 7)]
    assert {o.probability for o in dice.chance_outcomes} == {1 / 36}
    # Dice 3,4: the ball lands on column 3, row 2 of the receiver's side.
    steps = listed(stub, volleyball(), (*SERVER, *RECEIVER, "serve 6,1", "dice 3,4")).actions
    assert steps[-1].action.volleyball.HasField("end")
    moves = [
        (
            (a.action.volleyball.step.origin.column, a.action.volleyball.step.origin.row),
            (a.action.volleyball.step.target.column, a.action.volleyball.step.target.row),
        )
        for a in steps[:-1]
    ]
    assert moves == [
        ((2, 1), (3, 1)),
        ((2, 1), (3, 2)),
        ((2, 2), (3, 2)),
        ((2, 2), (3, 3)),
        ((2, 2), (3, 1)),
        ((2, 3), (3, 3)),
        ((2, 3), (3, 2)),
    ]


def test_board_moves_are_square_indices(stub: rules_grpc.RulesServiceStub) -> None:
    othello = listed(stub, pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)).actions
    assert [(a.action.board.square, a.notation) for a in othello] == [
        (19, "d3"),
        (26, "c4"),
        (37, "f5"),
        (44, "e6"),
    ]
    assert all(a.action.board.WhichOneof("move") == "square" for a in othello)


def test_a_seeded_match_rolls_these_dice_at_these_plies() -> None:
    """Dice seed 42, both seats playing their first legal action: the dice of
    the first four serves. Each roll is seeded by the match and its ply, so
    rolls differ within a match."""

    async def dice_rolled() -> dict[int, tuple[int, int]]:
        m = Matches(MemoryCoordination(), dice_seed=lambda: 42)
        human = ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)
        request = ms.CreateMatchRequest(config=volleyball(), seats=[human, human])
        match_id = (await logic.create_match(m, request)).match.match_id
        joining = ms.JoinMatchRequest(match_id=match_id)
        tokens = [(await logic.join_match(m, joining, None)).seat_token for _ in range(2)]
        rolled: dict[int, tuple[int, int]] = {}
        while len(rolled) < 4:
            got = await logic.get_match(m, match_id)
            state = replay(got.record)
            ply = got.match.view.ply
            assert not state.is_chance_node(), f"no die was rolled at ply {ply}"
            action = action_to_proto(state, state.legal_actions()[0]).action
            seat = state.current_player()
            await logic.submit_action(m, match_id, None, tokens[seat], ply, [action])
            history = (await logic.get_match(m, match_id)).record.history
            for index in range(ply + 1, len(history)):
                dice = history[index].volleyball.dice
                rolled[index] = (dice.die1, dice.die2)
        return rolled

    assert asyncio.run(dice_rolled()) == {13: (2, 5), 31: (3, 2), 49: (5, 3), 67: (6, 3)}
