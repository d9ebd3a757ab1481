"""meeple.v1.MatchService: authoritative matches, bot seats and event streams."""

from services.match_service.bots import run_bots
from services.match_service.servicer import MatchServicer, service

__all__ = ["MatchServicer", "run_bots", "service"]
