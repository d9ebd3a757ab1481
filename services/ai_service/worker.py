"""What runs in an AI worker process: replay the record, ask the bot.

Only bytes and plain values cross the process boundary, so a worker needs
nothing from the server but the request."""

from __future__ import annotations

import time

from meeple.v1 import game_pb2 as pb

from ai.bots import make_bot
from engine_core import IllegalAction
from services.convert import action_to_proto, replay
from services.errors import BadRequest


def suggest(record_bytes: bytes, spec: str, seed: int) -> tuple[bytes, float]:
    """The bot's action for the recorded state, as ActionInfo bytes, and the
    seconds it thought."""
    record = pb.GameRecord.FromString(record_bytes)
    state = replay(record)
    if state.is_terminal():
        raise IllegalAction("the game is over: there is nothing to suggest")
    if state.is_chance_node():
        raise IllegalAction("the dice are to roll: no seat is to act")
    try:
        bot = make_bot(state.game, spec, seed=seed)  # type: ignore[attr-defined]
    except ValueError as error:
        raise BadRequest(f"bot_spec: {error}") from None
    start = time.perf_counter()
    action = bot.choose(state.clone())
    seconds = time.perf_counter() - start
    return action_to_proto(state, action).SerializeToString(), seconds
