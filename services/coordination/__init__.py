"""Coordination: the only state services share (DESIGN.md, Coordination).

One small interface: match records with compare-and-set on their version,
an append-only event stream per match (appended in the same atomic step as
the record it follows), and a job queue for bot turns with acknowledgement
and redelivery of jobs a worker took but never acknowledged. ``memory``
implements it in one process; a Redis implementation can follow without
touching the servicers.
"""

from services.coordination.base import BotJob, Coordination, MatchData
from services.coordination.memory import MemoryCoordination

__all__ = ["BotJob", "Coordination", "MatchData", "MemoryCoordination"]
