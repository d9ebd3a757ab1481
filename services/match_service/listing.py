"""ListMatches: pages of the playing matches, the most recently started
first, optionally of one game, without the abandoned ones (a human seat to
act that has not moved for ``settings.abandoned_after``). A page token is
the position in that order where the next page starts."""

from __future__ import annotations

from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms

from services.convert import WIRE_OF_KIND
from services.coordination import MatchData
from services.errors import BadRequest
from services.match_service.logic import Matches
from services.match_service.views import match_message

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
MAX_SCANNED = 1000  # index entries one call looks at, however few match the game
MAX_TOKEN_DIGITS = 9


def page_start(token: str) -> int:
    if not token:
        return 0
    if not token.isdigit() or len(token) > MAX_TOKEN_DIGITS:
        raise BadRequest("page_token: give the next_page_token of the previous page")
    return int(token)


def game_kind(data_config: bytes) -> pb.GameKind:
    return pb.GameConfig.FromString(data_config).kind


def abandoned(data: MatchData, now_ms: int, after_ms: int) -> bool:
    """Whether the human seat whose clock runs has not moved for ``after_ms``."""
    return (
        data.clock_seat >= 0
        and data.turn_started_ms > 0
        and (now_ms - data.turn_started_ms >= after_ms)
    )


async def list_matches(m: Matches, request: ms.ListMatchesRequest) -> ms.ListMatchesResponse:
    size = request.page_size or DEFAULT_PAGE_SIZE
    if size > MAX_PAGE_SIZE:
        raise BadRequest(f"page_size: at most {MAX_PAGE_SIZE}")
    if request.kind and request.kind not in WIRE_OF_KIND:
        raise BadRequest("kind: a GameKind, or unset for every game")
    position = start = page_start(request.page_token)
    response = ms.ListMatchesResponse()
    idle_ms = round(m.settings.abandoned_after * 1000)
    while len(response.matches) < size and position - start < MAX_SCANNED:
        wanted = size - len(response.matches)
        records, after = await m.coordination.live_matches(position, wanted)
        now = m.now_ms()
        for data in records:
            if request.kind and game_kind(data.config) != request.kind:
                continue
            if not abandoned(data, now, idle_ms):
                response.matches.append(match_message(data, await m.states.state(data)))
        ended = after - position < wanted
        position = after
        if ended:
            return response
    response.next_page_token = str(position)
    return response
