"""The archive's rows from the outbox's entries: a finished match's record
as an ArchivedMatch, a rating update as each player's RatingChange."""

from __future__ import annotations

from meeple.v1 import game_pb2 as pb

from services.archive.records import ArchivedMatch, ArchivedSeat, RatingChange, outcomes
from services.convert import WIRE_OF_KIND
from services.coordination.base import MatchData
from services.coordination.outbox import RatingUpdate
from services.coordination.records import dump_match
from services.matchmaking.ratings import new_rating


def game_of(data: MatchData) -> str:
    """The engine's name of the match's game."""
    kind = pb.GameConfig.FromString(data.config).kind
    return WIRE_OF_KIND[kind].name


def archived_match(data: MatchData) -> ArchivedMatch:
    """A finished match's row; ValueError for a record that is not of a
    finished match with its results (a record written before the archive
    existed has none: it cannot be archived)."""
    seats = len(data.seat_kinds)
    if len(data.returns) != seats or not data.ended_ms:
        raise ValueError(f"match {data.match_id}: the record has no results to archive")
    players = [*data.players, *[""] * (seats - len(data.players))]
    names = [*data.names, *[""] * (seats - len(data.names))]
    results = outcomes(data.returns)
    return ArchivedMatch(
        match_id=data.match_id,
        game=game_of(data),
        rated=data.rated,
        reason=data.end_reason,
        end_seat=data.end_seat,
        created_ms=data.created_ms,
        started_ms=data.started_ms,
        ended_ms=data.ended_ms,
        plies=data.ply,
        seats=tuple(
            ArchivedSeat(
                kind=data.seat_kinds[seat],
                bot_spec=data.bot_specs[seat],
                player_id=players[seat],
                display_name=names[seat],
                result=data.returns[seat],
                outcome=results[seat],
            )
            for seat in range(seats)
        ),
        record=dump_match(data),
    )


def rating_changes(update: RatingUpdate, rated_ms: int) -> list[RatingChange]:
    """Each player's change; a player never rated before starts from a new
    player's rating."""
    changes = []
    for before, after in zip(update.before, update.after, strict=True):
        start = before or new_rating(after.player_id)
        changes.append(
            RatingChange(
                match_id=update.match_id,
                game=update.game,
                player_id=after.player_id,
                mu_before=start.mu,
                sigma_before=start.sigma,
                mu_after=after.mu,
                sigma_after=after.sigma,
                matches_after=after.matches,
                rated_ms=rated_ms,
            )
        )
    return changes
