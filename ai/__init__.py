"""Bots: search algorithms generic over engine_core's Game API.

>>> import engine_core
>>> from ai import make_bot
>>> bot = make_bot(engine_core.load_game("othello"), "mcts:iterations=50", seed=1)
>>> bot.choose(engine_core.load_game("othello").new_initial_state()) in (19, 26, 37, 44)
True

Dependencies point services -> ai -> engine_core: this package imports
engine_core only, never grpc, Redis or services (tests/test_layout.py checks).
"""

from ai.bots import LEVEL_NAMES, Bot, BotSpec, level_spec, make_bot

__all__ = ["LEVEL_NAMES", "Bot", "BotSpec", "level_spec", "make_bot"]
