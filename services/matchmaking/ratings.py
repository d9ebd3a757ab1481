"""Multiplayer ratings with openskill (Plackett-Luce): a finished match's
returns rank its seats (ties share a rank), and every human seat's rating
moves. Bots have fixed ratings per level, so a table with bots still rates
its humans; their own ratings never change."""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import PlackettLuce

from services.coordination.matchmaking import PlayerRating

MODEL = PlackettLuce()
NEW_MU = MODEL.mu  # 25
NEW_SIGMA = MODEL.sigma  # 25 / 3
# Each bot level's fixed rating: where a player rated like it should start.
BOT_MU = {"easy": 17.0, "medium": 22.0, "hard": 27.0, "expert": 32.0}
BOT_SIGMA = 1.0


def new_rating(player_id: str) -> PlayerRating:
    return PlayerRating(player_id, NEW_MU, NEW_SIGMA)


def bot_level_for(mu: float) -> str:
    """The bot level whose fixed rating is nearest ``mu``."""
    return min(BOT_MU, key=lambda level: abs(BOT_MU[level] - mu))


def ranks(returns: Sequence[float]) -> list[float]:
    """1 for the best return, equal returns equal ranks."""
    ordered = sorted(set(returns), reverse=True)
    return [float(ordered.index(value) + 1) for value in returns]


def rate(seats: Sequence[PlayerRating | str], returns: Sequence[float]) -> list[PlayerRating]:
    """The new ratings of the human seats, given each seat's rating (a
    human's PlayerRating, or a bot's level) and the match's returns."""
    teams = []
    for seat in seats:
        if isinstance(seat, PlayerRating):
            teams.append([MODEL.rating(mu=seat.mu, sigma=seat.sigma)])
        else:
            teams.append([MODEL.rating(mu=BOT_MU[seat], sigma=BOT_SIGMA)])
    rated = MODEL.rate(teams, ranks=ranks(returns))
    return [
        PlayerRating(seat.player_id, team[0].mu, team[0].sigma, seat.matches + 1, seat.version + 1)
        for seat, team in zip(seats, rated, strict=True)
        if isinstance(seat, PlayerRating)
    ]
