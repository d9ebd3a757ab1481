"""meeple.v1.MatchService: authoritative matches, bot seats, clocks and event streams."""

from services.match_service.bots import run_bot_turns
from services.match_service.logic import Matches
from services.match_service.servicer import MatchServicer, service
from services.match_service.sweeper import run_sweeper

__all__ = ["MatchServicer", "Matches", "run_bot_turns", "run_sweeper", "service"]
