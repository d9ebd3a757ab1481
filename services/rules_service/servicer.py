"""The RulesService servicer: validate the request, call the engine, map back."""

from __future__ import annotations

import grpc
from meeple.v1 import game_pb2 as pb
from meeple.v1 import rules_service_pb2 as rules
from meeple.v1 import rules_service_pb2_grpc as rules_grpc

from services.convert import (
    action_to_proto,
    apply_all,
    flick_from_proto,
    flick_result_to_proto,
    game_from_config,
    record_of,
    replay,
    view_of,
)
from services.errors import BadRequest
from services.server import Service, rpc

MAX_ACTIONS_PER_CALL = 64  # a whole turn is a handful; this bounds the work


class RulesServicer(rules_grpc.RulesServiceServicer):
    """Keeps no state: every call replays the record it is given."""

    service_name = "meeple.v1.RulesService"

    @rpc
    async def NewGame(  # noqa: N802 (gRPC method names)
        self, request: rules.NewGameRequest, context: grpc.aio.ServicerContext
    ) -> rules.NewGameResponse:
        state = game_from_config(request.config).new_initial_state()
        return rules.NewGameResponse(record=record_of(state), view=view_of(state))

    @rpc
    async def ListLegalActions(  # noqa: N802
        self, request: rules.ListLegalActionsRequest, context: grpc.aio.ServicerContext
    ) -> rules.ListLegalActionsResponse:
        state = replay(request.record)
        response = rules.ListLegalActionsResponse(view=view_of(state))
        if state.is_chance_node():
            response.chance_outcomes.extend(
                rules.ChanceOutcome(outcome=action_to_proto(state, outcome), probability=p)
                for outcome, p in state.chance_outcomes()
            )
        else:
            response.actions.extend(action_to_proto(state, a) for a in state.legal_actions())
        space = getattr(state, "action_space", None)
        if space is not None:
            bounds = space()
            response.flick_bounds.CopyFrom(
                rules.FlickBounds(
                    offset_min=bounds.offset[0],
                    offset_max=bounds.offset[1],
                    angle_min_rad=bounds.angle[0],
                    angle_max_rad=bounds.angle[1],
                    impulse_max_ns=bounds.impulse[1],
                )
            )
        return response

    @rpc
    async def ApplyAction(  # noqa: N802
        self, request: rules.ApplyActionRequest, context: grpc.aio.ServicerContext
    ) -> rules.ApplyActionResponse:
        if not request.actions:
            raise BadRequest("actions: give at least one action")
        if len(request.actions) > MAX_ACTIONS_PER_CALL:
            raise BadRequest(f"actions: at most {MAX_ACTIONS_PER_CALL} in one call")
        state = replay(request.record)
        after, steps = apply_all(state, request.actions)
        applied = [step.info for step in steps]
        record = pb.GameRecord(
            config=request.record.config,
            history=[*request.record.history, *(info.action for info in applied)],
        )
        return rules.ApplyActionResponse(record=record, view=view_of(after), applied=applied)

    @rpc
    async def SimulateFlick(  # noqa: N802
        self, request: rules.SimulateFlickRequest, context: grpc.aio.ServicerContext
    ) -> rules.SimulateFlickResponse:
        state = replay(request.record)
        if state.game.name != "volta":  # type: ignore[attr-defined]
            raise BadRequest(f"SimulateFlick is for Volta, not {state.game.name}")  # type: ignore[attr-defined]
        result = state.simulate(flick_from_proto(request.flick), record=request.record_frames)  # type: ignore[attr-defined]
        return flick_result_to_proto(result)


def service() -> Service:
    return Service(RulesServicer(), rules.DESCRIPTOR.services_by_name["RulesService"])
