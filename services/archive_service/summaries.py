"""The archive's rows as the API's messages, and page tokens."""

from __future__ import annotations

from meeple.v1 import archive_service_pb2 as ar
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import matchmaking_service_pb2 as mm

from services.archive.records import ArchivedMatch, Cursor, Outcome, RatingChange
from services.convert import WIRES
from services.coordination.records import load_match
from services.errors import BadRequest

OUTCOMES = {
    Outcome.WIN: ar.MATCH_OUTCOME_WIN,
    Outcome.LOSS: ar.MATCH_OUTCOME_LOSS,
    Outcome.DRAW: ar.MATCH_OUTCOME_DRAW,
}
OUTCOME_OF = {kind: outcome for outcome, kind in OUTCOMES.items()}
MAX_TOKEN_CHARS = 100


def summary(match: ArchivedMatch, player_id: str = "") -> ar.MatchSummary:
    """The match's summary, with ``player_id``'s outcome when it played."""
    data = load_match(match.record)
    message = ar.MatchSummary(
        match_id=match.match_id,
        config=pb.GameConfig.FromString(data.config),
        seats=[
            ms.Seat(
                index=index,
                kind=seat.kind,  # type: ignore[arg-type]
                bot_spec=seat.bot_spec,
                joined=True,
                player_id=seat.player_id,
                display_name=seat.display_name,
            )
            for index, seat in enumerate(match.seats)
        ],
        returns=[seat.result for seat in match.seats],
        reason=match.reason,  # type: ignore[arg-type]
        rated=match.rated,
        plies=match.plies,
    )
    if match.end_seat >= 0:
        message.end_seat = match.end_seat
    if match.started_ms:
        message.start_time.FromMilliseconds(match.started_ms)
    message.end_time.FromMilliseconds(match.ended_ms)
    mine = next((seat for seat in match.seats if player_id and seat.player_id == player_id), None)
    if mine is not None:
        message.outcome = OUTCOMES[mine.outcome]
    return message


def rating_change(change: RatingChange) -> ar.RatingChange:
    message = ar.RatingChange(
        match_id=change.match_id,
        game=WIRES[change.game].kind,
        before=mm.Rating(
            player_id=change.player_id,
            mu=change.mu_before,
            sigma=change.sigma_before,
            ordinal=change.ordinal_before,
            matches=max(0, change.matches_after - 1),
        ),
        after=mm.Rating(
            player_id=change.player_id,
            mu=change.mu_after,
            sigma=change.sigma_after,
            ordinal=change.ordinal_after,
            matches=change.matches_after,
        ),
    )
    message.time.FromMilliseconds(change.rated_ms)
    return message


def match_cursor(match: ArchivedMatch) -> Cursor:
    return Cursor(match.ended_ms, match.match_id)


def change_cursor(change: RatingChange) -> Cursor:
    return Cursor(change.rated_ms, change.match_id)


def page_token(cursor: Cursor) -> str:
    return f"{cursor.ms}.{cursor.key}"


def cursor_of(token: str) -> Cursor | None:
    """The cursor of a next_page_token (None for the first page)."""
    if not token:
        return None
    ms_text, _, key = token.partition(".")
    if len(token) > MAX_TOKEN_CHARS or not ms_text.isdigit() or not key.isalnum():
        raise BadRequest("page_token: the next_page_token of a previous page")
    return Cursor(int(ms_text), key)
