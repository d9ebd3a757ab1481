"""meeple.v1.MatchmakingService: tickets, rating windows, tables of 2 to 4
seats with bot fill, and openskill ratings."""

from services.matchmaking.logic import Matchmaker
from services.matchmaking.loops import run_matchmaker, run_rater
from services.matchmaking.servicer import MatchmakingServicer, service

__all__ = ["Matchmaker", "MatchmakingServicer", "run_matchmaker", "run_rater", "service"]
