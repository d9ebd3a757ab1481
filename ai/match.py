"""Plays one game between bots."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ai.bots import Bot
from ai.mcts import random_action
from engine_core import Game, State


def play_game(game: Game, bots: Sequence[Bot], rng: random.Random) -> State:
    """Plays ``game`` to the end with ``bots[seat]`` choosing for each seat;
    chance outcomes are drawn from ``rng``. Returns the terminal state."""
    if len(bots) != game.num_players():
        raise ValueError(f"{game.name} needs {game.num_players()} bots, got {len(bots)}")
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(random_action(state, rng))
        else:
            state.apply_action(bots[state.current_player()].choose(state))
    return state
