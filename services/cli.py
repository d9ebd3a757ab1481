"""The ``meeple`` command line."""

from __future__ import annotations

import random

import typer
from rich.console import Console

import engine_core

app = typer.Typer(help="meeple: tabletop game engines with AI opponents.", no_args_is_help=True)
console = Console()


@app.callback()
def main() -> None:
    """meeple: tabletop game engines with AI opponents."""


@app.command()
def demo(
    seed: int = typer.Option(7, help="Seed of the random players' choices."),
    players: int = typer.Option(4, min=2, max=4, help="Number of Rolit players."),
) -> None:
    """Plays a seeded Rolit game between random players, move by move."""
    game = engine_core.load_game("rolit", players=players)
    state = game.new_initial_state()
    rng = random.Random(seed)
    console.print(f"[bold]{game!r}[/bold], random players, seed {seed}\n")
    console.print(str(state), highlight=False)
    while not state.is_terminal():
        seat = state.current_player()
        action = rng.choice(state.legal_actions())
        state.apply_action(action)
        colour = engine_core.rolit.COLOUR_NAMES[state.colour_of(seat)]
        console.print(
            f"\n[bold]{state.move_number():2d}.[/bold] seat {seat} ({colour}) plays "
            f"{state.action_to_string(action)}",
            highlight=False,
        )
        console.print(str(state), highlight=False)
    scores = state.scores()
    best = max(scores)
    console.print("\n[bold]Final score[/bold]")
    for seat, score in enumerate(scores):
        colour = engine_core.rolit.COLOUR_NAMES[state.colour_of(seat)]
        outcome = "wins" if score == best else "loses"
        console.print(f"  seat {seat} ({colour}): {score} balls, {outcome}", highlight=False)


if __name__ == "__main__":
    app()
