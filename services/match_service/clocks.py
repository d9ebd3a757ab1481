"""Turn clocks: a base time per human seat plus an increment per turn.

A seat's clock runs while it is to act in a playing match; when its turn
passes it keeps what is left plus the increment. Bot seats have no clock
(the AI pool bounds their thinking); a match without human seats has a
bot pace instead (``bot_pace_ms``). Times are epoch milliseconds.
"""

from __future__ import annotations

from meeple.v1 import match_service_pb2 as ms

from services.coordination import MatchData
from services.errors import BadRequest
from services.settings import BOT_PACE_MAX, Settings


def time_control_ms(request: ms.TimeControl, settings: Settings) -> tuple[int, int]:
    """(base, increment) in ms from a request's TimeControl (unset: the defaults)."""
    base = settings.clock_base
    increment = settings.clock_increment
    if request.HasField("base"):
        base = request.base.ToNanoseconds() / 1e9
        if not 1.0 <= base <= settings.clock_base_max:
            raise BadRequest(
                f"time_control.base: 1 s to {settings.clock_base_max:g} s, got {base:g} s"
            )
    if request.HasField("increment"):
        increment = request.increment.ToNanoseconds() / 1e9
        if not 0.0 <= increment <= settings.clock_increment_max:
            raise BadRequest(
                "time_control.increment: 0 s to "
                f"{settings.clock_increment_max:g} s, got {increment:g} s"
            )
    return round(base * 1000), round(increment * 1000)


def bot_pace_ms(request: ms.CreateMatchRequest, settings: Settings) -> int:
    """The request's bot pace in ms (unset: the settings'), checked."""
    if not request.HasField("bot_pace"):
        return round(settings.bot_pace * 1000)
    pace = request.bot_pace.ToNanoseconds() / 1e9
    if not 0 <= pace <= BOT_PACE_MAX:
        raise BadRequest(f"bot_pace: 0 s to {BOT_PACE_MAX:g} s, got {pace:g} s")
    return round(pace * 1000)


def start_turn(data: MatchData, seat: int | None, now_ms: int) -> bool:
    """Starts ``seat``'s clock if it is a human seat (None: no seat is to
    act); returns whether a clock now runs."""
    if seat is None or data.seat_kinds[seat] != ms.SEAT_KIND_HUMAN:
        stop(data)
        return False
    data.clock_seat = seat
    data.turn_started_ms = now_ms
    data.deadline_ms = now_ms + data.clocks_ms[seat]
    return True


def charge(data: MatchData, now_ms: int, turn_over: bool) -> None:
    """Charges the running seat the time since its turn (or its last
    submission) began; the increment when its turn is over."""
    seat = data.clock_seat
    if seat < 0:
        return
    left = max(0, data.clocks_ms[seat] - (now_ms - data.turn_started_ms))
    data.clocks_ms[seat] = left + (data.increment_ms if turn_over else 0)
    data.turn_started_ms = now_ms
    data.deadline_ms = now_ms + data.clocks_ms[seat]


def stop(data: MatchData) -> None:
    data.clock_seat = -1
    data.turn_started_ms = 0
    data.deadline_ms = 0


def flagged(data: MatchData, now_ms: int) -> int | None:
    """The seat whose clock ran out, if any."""
    if data.clock_seat >= 0 and data.deadline_ms and now_ms >= data.deadline_ms:
        return data.clock_seat
    return None
