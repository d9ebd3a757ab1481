"""The ArchiveService servicer: check the request, read the archive.

The archive is public, as a game site's history is: reading needs no
token, except where an empty player_id names the caller."""

from __future__ import annotations

from collections.abc import AsyncIterator

from google.protobuf.timestamp_pb2 import Timestamp
from meeple.v1 import archive_service_pb2 as ar
from meeple.v1 import archive_service_pb2_grpc as ar_grpc
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms

from services.archive import exports
from services.archive.base import Archive
from services.archive.entries import archived_match
from services.archive.records import ArchivedMatch, MatchFilter
from services.archive_service.summaries import (
    OUTCOME_OF,
    change_cursor,
    cursor_of,
    match_cursor,
    page_token,
    rating_change,
    summary,
)
from services.auth import Authenticator
from services.auth.identity import is_player_id
from services.convert import game_name
from services.errors import BadRequest, FailedPrecondition, NotFound
from services.limits import ConcurrencyCap, client_of
from services.match_service.logic import Matches
from services.match_service.servicer import match_id_of
from services.server import Context, Service, Servicer, rpc, rpc_stream
from services.settings import Settings

PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
NO_ARCHIVE = "this server keeps no archive (set MEEPLE_DATABASE_URL, or MEEPLE_DATA_DIR for SQLite)"


def page_size(requested: int) -> int:
    if requested > MAX_PAGE_SIZE:
        raise BadRequest(f"page_size: at most {MAX_PAGE_SIZE}")
    return requested or PAGE_SIZE


def game_of(kind: pb.GameKind, required: bool = False) -> str | None:
    """The engine's name of a game filter (None: unset, every game)."""
    return game_name(kind) if kind or required else None


LAST_SECOND = 253_402_300_799  # 9999-12-31T23:59:59Z, the last second a Timestamp may hold


def time_ms(stamp: Timestamp, is_set: bool, field: str) -> int | None:
    """A time bound in epoch ms (None: unset)."""
    if not is_set:
        return None
    if not 0 <= stamp.seconds <= LAST_SECOND or not 0 <= stamp.nanos < 1_000_000_000:
        raise BadRequest(f"{field}: a time from 1970 to 9999")
    return int(stamp.ToMilliseconds())


def checked_player(player_id: str, field: str = "player_id") -> str:
    if not is_player_id(player_id):
        raise BadRequest(f"{field}: a player id (1 to 64 printable characters)")
    return player_id


class ArchiveServicer(Servicer, ar_grpc.ArchiveServiceServicer):
    service_name = "meeple.v1.ArchiveService"

    def __init__(self, matches: Matches, auth: Authenticator, settings: Settings) -> None:
        """The archive is ``matches.archive`` (None: the server keeps none)."""
        self.matches = matches
        self.auth = auth
        self.streams = ConcurrencyCap(settings.watch_streams, "open ExportPlayerMatches streams")

    def _archive(self) -> Archive:
        if self.matches.archive is None:
            raise FailedPrecondition(NO_ARCHIVE)
        return self.matches.archive

    async def _player(self, player_id: str, context: Context) -> str:
        """The request's player; empty names the caller."""
        if player_id:
            return checked_player(player_id)
        who = await self.auth.require(context.invocation_metadata())
        if who is None:
            raise BadRequest("player_id: name the player (identities are off on this server)")
        return who.player_id

    async def _page(
        self, where: MatchFilter, token: str, size: int
    ) -> tuple[list[ArchivedMatch], str]:
        after = cursor_of(token)
        found = await self._archive().matches(where, after, size + 1)
        next_token = ""
        if len(found) > size:
            found = found[:size]
            next_token = page_token(match_cursor(found[-1]))
        return found, next_token

    @rpc
    async def ListPlayerMatches(  # noqa: N802 (gRPC method names)
        self, request: ar.ListPlayerMatchesRequest, context: Context
    ) -> ar.ListPlayerMatchesResponse:
        size = page_size(request.page_size)
        player = await self._player(request.player_id, context)
        where = MatchFilter(
            player_id=player,
            game=game_of(request.game),
            outcome=OUTCOME_OF.get(request.outcome) if request.outcome else None,
            ended_after_ms=time_ms(
                request.ended_after, request.HasField("ended_after"), "ended_after"
            ),
            ended_before_ms=time_ms(
                request.ended_before, request.HasField("ended_before"), "ended_before"
            ),
        )
        if request.outcome and where.outcome is None:
            raise BadRequest("outcome: MATCH_OUTCOME_WIN, _LOSS or _DRAW")
        found, next_token = await self._page(where, request.page_token, size)
        return ar.ListPlayerMatchesResponse(
            matches=[summary(match, player) for match in found], next_page_token=next_token
        )

    @rpc
    async def GetRatingHistory(  # noqa: N802
        self, request: ar.GetRatingHistoryRequest, context: Context
    ) -> ar.GetRatingHistoryResponse:
        size = page_size(request.page_size)
        game = game_of(request.game, required=True)
        assert game is not None
        player = await self._player(request.player_id, context)
        after = cursor_of(request.page_token)
        found = await self._archive().rating_history(player, game, after, size + 1)
        response = ar.GetRatingHistoryResponse(changes=[rating_change(c) for c in found[:size]])
        if len(found) > size:
            response.next_page_token = page_token(change_cursor(found[size - 1]))
        return response

    @rpc
    async def GetHeadToHead(  # noqa: N802
        self, request: ar.GetHeadToHeadRequest, context: Context
    ) -> ar.GetHeadToHeadResponse:
        size = page_size(request.page_size)
        player = checked_player(request.player_id)
        opponent = checked_player(request.opponent_id, "opponent_id")
        if opponent == player:
            raise BadRequest("opponent_id: another player than player_id")
        where = MatchFilter(player_id=player, game=game_of(request.game), opponent_id=opponent)
        tally = await self._archive().tally(where)
        found, next_token = await self._page(where, request.page_token, size)
        return ar.GetHeadToHeadResponse(
            wins=tally.wins,
            losses=tally.losses,
            draws=tally.draws,
            matches=[summary(match, player) for match in found],
            next_page_token=next_token,
        )

    @rpc
    async def ExportMatch(  # noqa: N802
        self, request: ar.ExportMatchRequest, context: Context
    ) -> ar.ExportMatchResponse:
        match_id = match_id_of(request.match_id)
        if request.format not in exports.FORMATS:
            raise BadRequest("format: EXPORT_FORMAT_MATCH_JSON, _GAME_RECORD_JSON, _GGF or _SGF")
        match = await self._finished_match(match_id)
        try:
            exported = exports.export_file(match, request.format)
        except exports.NotOthello as error:
            raise FailedPrecondition(str(error)) from None
        return ar.ExportMatchResponse(
            content=exported.content, media_type=exported.media_type, file_name=exported.file_name
        )

    async def _finished_match(self, match_id: str) -> ArchivedMatch:
        """The match from the archive, or while the archiver has not written
        it yet, from the store."""
        archived = await self._archive().match(match_id)
        if archived is not None:
            return archived
        live = await self.matches.coordination.load(match_id)
        if live is None:
            raise NotFound(f"no finished match {match_id!r} in the archive")
        if live.status != ms.MATCH_STATUS_FINISHED:
            raise FailedPrecondition("the match is not finished: export it once it ends")
        try:
            return archived_match(live)
        except ValueError as error:  # finished before this server kept results
            raise FailedPrecondition(str(error)) from None

    @rpc_stream
    async def ExportPlayerMatches(  # noqa: N802
        self, request: ar.ExportPlayerMatchesRequest, context: Context
    ) -> AsyncIterator[ar.ExportPlayerMatchesResponse]:
        player = await self._player(request.player_id, context)
        where = MatchFilter(player_id=player, game=game_of(request.game))
        archive = self._archive()
        with self.streams.hold(client_of(context.peer())):
            after = None
            while True:
                found = await archive.matches(where, after, MAX_PAGE_SIZE)
                for match in found:
                    yield ar.ExportPlayerMatchesResponse(line=exports.ndjson_line(match))
                if len(found) < MAX_PAGE_SIZE:
                    return
                after = match_cursor(found[-1])


def service(matches: Matches, auth: Authenticator, settings: Settings) -> Service:
    return Service(
        ArchiveServicer(matches, auth, settings), ar.DESCRIPTOR.services_by_name["ArchiveService"]
    )
