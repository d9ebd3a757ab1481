"""The RulesService servicer: validate the request, call the engine, map back.
Replays run off the event loop, and records have a per-game size limit."""

from __future__ import annotations

import asyncio

from meeple.v1 import game_pb2 as pb
from meeple.v1 import rules_service_pb2 as rules
from meeple.v1 import rules_service_pb2_grpc as rules_grpc

from engine_core import ActionKind, State, as_continuous
from services.convert import (
    action_to_proto,
    apply_all,
    flick_from_proto,
    flick_outcome,
    game_from_config,
    record_of,
    replay,
    simulating,
    view_of,
    wire_of,
)
from services.errors import BadRequest
from services.server import Context, Service, Servicer, rpc

MAX_ACTIONS_PER_CALL = 64  # a whole turn is a handful; this bounds the work


def legal_actions(state: State) -> rules.ListLegalActionsResponse:
    response = rules.ListLegalActionsResponse(view=view_of(state))
    if state.is_chance_node():
        response.chance_outcomes.extend(
            rules.ChanceOutcome(outcome=action_to_proto(state, outcome), probability=p)
            for outcome, p in state.chance_outcomes()
        )
    else:
        response.actions.extend(action_to_proto(state, a) for a in state.legal_actions())
    if state.game.game_type.actions is ActionKind.CONTINUOUS:
        bounds = as_continuous(state).action_space()
        response.flick_bounds.CopyFrom(
            rules.FlickBounds(
                side_min=min(bounds.sides),
                side_max=max(bounds.sides),
                offset_min=bounds.offset[0],
                offset_max=bounds.offset[1],
                angle_min_rad=bounds.angle[0],
                angle_max_rad=bounds.angle[1],
                impulse_min_ns=bounds.impulse[0],
                impulse_max_ns=bounds.impulse[1],
            )
        )
    return response


def apply_actions(request: rules.ApplyActionRequest) -> rules.ApplyActionResponse:
    after, steps = apply_all(replay(request.record), request.actions)
    applied = [step.info for step in steps]
    record = pb.GameRecord(
        config=request.record.config,
        history=[*request.record.history, *(info.action for info in applied)],
        rules_version=after.game.game_type.rules_version,
    )
    return rules.ApplyActionResponse(record=record, view=view_of(after), applied=applied)


def simulate_flick(request: rules.SimulateFlickRequest) -> rules.SimulateFlickResponse:
    state = replay(request.record)
    if not wire_of(state.game).trajectories:
        raise BadRequest(f"SimulateFlick is for Volta, not {state.game.name}")
    result = simulating(state).simulate(flick_from_proto(request.flick), request.record_frames)
    return rules.SimulateFlickResponse(outcome=flick_outcome(result))


class RulesServicer(Servicer, rules_grpc.RulesServiceServicer):
    """Keeps no state: every call replays the record it is given (in a
    thread, so a long record never holds up other calls)."""

    service_name = "meeple.v1.RulesService"

    @rpc
    async def NewGame(  # noqa: N802 (gRPC method names)
        self, request: rules.NewGameRequest, context: Context
    ) -> rules.NewGameResponse:
        state = game_from_config(request.config).new_initial_state()
        return rules.NewGameResponse(record=record_of(state), view=view_of(state))

    @rpc
    async def ListLegalActions(  # noqa: N802
        self, request: rules.ListLegalActionsRequest, context: Context
    ) -> rules.ListLegalActionsResponse:
        state = await asyncio.to_thread(replay, request.record)
        return legal_actions(state)

    @rpc
    async def ApplyAction(  # noqa: N802
        self, request: rules.ApplyActionRequest, context: Context
    ) -> rules.ApplyActionResponse:
        if not request.actions:
            raise BadRequest("actions: give at least one action")
        if len(request.actions) > MAX_ACTIONS_PER_CALL:
            raise BadRequest(f"actions: at most {MAX_ACTIONS_PER_CALL} in one call")
        return await asyncio.to_thread(apply_actions, request)

    @rpc
    async def SimulateFlick(  # noqa: N802
        self, request: rules.SimulateFlickRequest, context: Context
    ) -> rules.SimulateFlickResponse:
        return await asyncio.to_thread(simulate_flick, request)


def service() -> Service:
    return Service(RulesServicer(), rules.DESCRIPTOR.services_by_name["RulesService"])
