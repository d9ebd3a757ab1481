"""GameView.position carries each game's position in structured form, with
exact values on the wire: what a client (the web page among them) draws
without parsing the engine's text."""

from __future__ import annotations

import grpc
import pytest
from meeple.v1 import game_pb2 as pb
from meeple.v1 import rules_service_pb2 as rules
from meeple.v1 import rules_service_pb2_grpc as rules_grpc

from tests.services.test_wire_values import listed

A1 = 0


def square(name: str) -> int:
    """The index of a square in GridPosition.cells: a1 is 0, h1 7, a2 8."""
    return (int(name[1]) - 1) * 8 + "abcdefgh".index(name[0])


@pytest.fixture(scope="module")
def stub(channel: grpc.Channel) -> rules_grpc.RulesServiceStub:
    return rules_grpc.RulesServiceStub(channel)


def new_game(stub: rules_grpc.RulesServiceStub, config: pb.GameConfig) -> pb.GameView:
    return stub.NewGame(rules.NewGameRequest(config=config)).view


def after(
    stub: rules_grpc.RulesServiceStub, config: pb.GameConfig, notations: list[str]
) -> pb.GameView:
    return listed(stub, config, tuple(notations)).view


def test_rolit_starts_with_one_ball_of_each_colour_in_the_centre(
    stub: rules_grpc.RulesServiceStub,
) -> None:
    """Rolit: "Regardless of the number of players, place 4 Rolit balls (1 of
    each color) in the center of the board." Two players play two colours."""
    config = pb.GameConfig(kind=pb.GAME_KIND_ROLIT, rolit=pb.RolitOptions(players=2))
    view = new_game(stub, config)
    assert view.WhichOneof("position") == "grid"
    grid = view.grid
    assert grid.size == 8
    assert list(grid.colours) == ["red", "yellow", "green", "blue"]
    assert len(grid.cells) == 64
    filled = {index: colour for index, colour in enumerate(grid.cells) if colour != -1}
    assert filled == {square("d4"): 0, square("e4"): 1, square("e5"): 2, square("d5"): 3}
    assert len(set(grid.seat_colours)) == 2  # the other two colours are neutral


def test_a_rolit_move_shows_the_turned_ball(stub: rules_grpc.RulesServiceStub) -> None:
    """Red (d4) plays f6: green's e5 lies between, on the diagonal, and turns red."""
    config = pb.GameConfig(kind=pb.GAME_KIND_ROLIT, rolit=pb.RolitOptions(first_seat=0))
    before = list(new_game(stub, config).grid.cells)
    cells = list(after(stub, config, ["f6"]).grid.cells)
    red = 0
    changed = {i: cells[i] for i in range(64) if cells[i] != before[i]}
    assert changed == {square("f6"): red, square("e5"): red}


def test_othello_starts_with_the_standard_cross(stub: rules_grpc.RulesServiceStub) -> None:
    grid = new_game(stub, pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)).grid
    assert list(grid.colours) == ["black", "white"]
    assert list(grid.seat_colours) == [0, 1]
    filled = {index: colour for index, colour in enumerate(grid.cells) if colour != -1}
    assert filled == {square("e4"): 0, square("d5"): 0, square("d4"): 1, square("e5"): 1}
    assert grid.cells[A1] == -1


def test_a_volleyball_court_shows_pieces_phase_and_dice(stub: rules_grpc.RulesServiceStub) -> None:
    config = pb.GameConfig(
        kind=pb.GAME_KIND_VOLLEYBALL, volleyball=pb.VolleyballOptions(first_seat=0)
    )
    court = new_game(stub, config).court
    assert court.phase == pb.COURT_PHASE_PLACE
    assert list(court.pieces) == []
    assert court.rows == 3
    assert court.points_to_win == 4
    assert not court.HasField("last_dice")
    assert not court.HasField("landing")
    court = after(stub, config, ["place 2,3"]).court
    assert [(p.seat, p.square.column, p.square.row) for p in court.pieces] == [(0, 2, 3)]
    big = pb.GameConfig(
        kind=pb.GAME_KIND_VOLLEYBALL, volleyball=pb.VolleyballOptions(big_leagues=True)
    )
    assert new_game(stub, big).court.rows == 6


def test_the_volta_arena_shows_both_steeds_and_their_riders(
    stub: rules_grpc.RulesServiceStub,
) -> None:
    config = pb.GameConfig(
        kind=pb.GAME_KIND_VOLTA,
        volta=pb.VoltaOptions(dents=[pb.DENT_SIZE_LARGE, pb.DENT_SIZE_SMALL]),
    )
    arena = new_game(stub, config).arena
    assert arena.arena_radius_m == pytest.approx(0.12)  # a 24 cm disk
    assert arena.steed_side_m == pytest.approx(0.05)
    assert list(arena.dents) == [pb.DENT_SIZE_LARGE, pb.DENT_SIZE_SMALL]
    assert len(arena.steeds) == 2
    for steed in arena.steeds:
        assert steed.on_arena
        assert steed.rider == pb.RIDER_STATE_SEATED
        assert (steed.rider_x_m, steed.rider_y_m) == (steed.x_m, steed.y_m)  # in its dent
    assert arena.steeds[0].x_m == pytest.approx(-arena.steeds[1].x_m)  # facing each other
    assert len(arena.rider_masses_g) == 2


def test_after_a_flick_the_arena_is_where_the_flick_came_to_rest(
    stub: rules_grpc.RulesServiceStub,
) -> None:
    """The arena after a flick that scores nothing equals the last frame of
    the same flick's trajectory (SimulateFlick)."""
    record = pb.GameRecord(
        config=pb.GameConfig(kind=pb.GAME_KIND_VOLTA, volta=pb.VoltaOptions(first_seat=0))
    )
    flick = pb.Flick(side=0, offset=0.0, angle_rad=0.0, impulse_ns=0.02)
    simulated = stub.SimulateFlick(
        rules.SimulateFlickRequest(record=record, flick=flick, record_frames=True)
    ).outcome
    assert not simulated.HasField("point_to")
    applied = stub.ApplyAction(
        rules.ApplyActionRequest(record=record, actions=[pb.Action(flick=flick)])
    )
    arena = applied.view.arena
    assert list(arena.steeds) == list(simulated.frames[-1].steeds)
    assert arena.steeds[0].x_m != pytest.approx(-0.075)  # the flicked steed moved
