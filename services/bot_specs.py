"""What a client may ask of a bot: a spec that parses, that can play the game
(``ai.make_bot`` checks the game's declared capabilities), within budget
limits per game and algorithm (for AIService suggestions and bot seats alike).

The limits keep one decision to seconds on a small machine, so that no one
request holds a worker for minutes; every level is within them. The AI pool
also stops any decision at the server's time limit, whatever its spec.
"""

from __future__ import annotations

from ai.bots import LEVEL_NAMES as LEVELS
from ai.bots import BotSpec, level_spec, make_bot
from engine_core import Game
from services.errors import BadRequest, quoted

MAX_SPEC_CHARS = 200
MAX_SECONDS = 10.0

# The most each algorithm may ask, in every game unless GAME_LIMITS says less.
LIMITS: dict[str, dict[str, float]] = {
    "mcts": {"iterations": 20_000, "time": MAX_SECONDS, "playouts": 64},
    "alphabeta": {"depth": 8, "time": MAX_SECONDS},
    "paranoid": {"depth": 6, "time": MAX_SECONDS},
    "brs": {"depth": 6, "time": MAX_SECONDS},
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
# Where a game makes a unit of budget dearer: a Volta node simulates a whole
# flick, and its grid of 180 flicks makes every ply of tree search 180 times
# the work (alpha-beta depth 2 already takes seconds).
GAME_LIMITS: dict[tuple[str, str], dict[str, float]] = {
    ("volta", "mcts"): {"iterations": 2_000},
    ("volta", "alphabeta"): {"depth": 1},
    ("volta", "paranoid"): {"depth": 1},
    ("volta", "brs"): {"depth": 1},
    ("volta", "expectimax"): {"depth": 1},
    ("volleyball", "mcts"): {"iterations": 5_000},
}


def check_spec(game: Game, spec: str) -> None:
    """BadRequest unless ``spec`` parses, can play ``game`` and asks for no
    more than the limits."""
    if len(spec) > MAX_SPEC_CHARS:
        raise BadRequest(f"bot_spec: at most {MAX_SPEC_CHARS} characters, got {len(spec)}")
    try:
        parsed = BotSpec.parse(spec)
        if parsed.algorithm in LEVELS and not parsed.options:
            parsed = BotSpec.parse(level_spec(game, parsed.algorithm))
    except ValueError as error:
        raise BadRequest(f"bot_spec: {error}") from None
    limits = {
        **LIMITS.get(parsed.algorithm, {}),
        **GAME_LIMITS.get((game.name, parsed.algorithm), {}),
    }
    for key, limit in limits.items():
        raw = parsed.options.get(key)
        if raw is None:
            continue
        try:
            value = float(raw)
        except ValueError:
            raise BadRequest(f"bot_spec: {key} must be a number, got {quoted(raw)}") from None
        if not value <= limit:  # also refuses NaN; make_bot refuses what is too small
            raise BadRequest(
                f"bot_spec: {key} must be at most {limit:g} for {game.name}, got {quoted(raw)}"
            )
    try:
        make_bot(game, spec)
    except ValueError as error:
        raise BadRequest(f"bot_spec: {error}") from None
