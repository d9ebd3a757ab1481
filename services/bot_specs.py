"""What a client may ask of a bot: a spec that parses, within budget limits
(for AIService suggestions and for bot seats alike)."""

from __future__ import annotations

from ai.bots import BotSpec
from services.errors import BadRequest

# The most a client may ask of each algorithm in one decision: a bigger
# budget would let one request hold a worker for minutes. Levels are within.
LIMITS: dict[str, dict[str, float]] = {
    "mcts": {"iterations": 20_000, "time": 10.0, "playouts": 64},
    "alphabeta": {"depth": 8, "time": 10.0},
    "paranoid": {"depth": 6, "time": 10.0},
    "brs": {"depth": 6, "time": 10.0},
    "expectimax": {"depth": 3},
    "planner": {
        "samples": 500,
        "iterations": 8,
        "elites": 500,
        "robustness": 8,
        "replies": 256,
        "followups": 256,
    },
}


def check_spec(spec: str) -> None:
    """BadRequest if ``spec`` does not parse or asks for more than LIMITS
    (what it may not ask at all, make_bot refuses)."""
    try:
        parsed = BotSpec.parse(spec)
    except ValueError as error:
        raise BadRequest(f"bot_spec: {error}") from None
    for key, limit in LIMITS.get(parsed.algorithm, {}).items():
        raw = parsed.options.get(key)
        if raw is None:
            continue
        try:
            value = float(raw)
        except ValueError:
            raise BadRequest(f"bot_spec: {key} must be a number, got {raw!r}") from None
        if not value <= limit:  # also refuses NaN; make_bot refuses what is too small
            raise BadRequest(f"bot_spec: {key} must be at most {limit:g}, got {raw}")
