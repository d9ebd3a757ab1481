"""Coordination: the only state services share.

One small interface (``base.Coordination``): match records with
compare-and-set on their version, an append-only event stream per match
and a job queue for bot turns with acknowledgement, retries and dead
letters; every write of a match (record, events, job) is one atomic step.
``memory`` implements it in one process; a Redis implementation can follow
without touching the servicers.
"""

from services.coordination.base import (
    BotJob,
    Coordination,
    DeadLetter,
    Delivery,
    Event,
    EventBatch,
    MatchData,
    Store,
)
from services.coordination.memory import MemoryCoordination

__all__ = [
    "BotJob",
    "Coordination",
    "DeadLetter",
    "Delivery",
    "Event",
    "EventBatch",
    "MatchData",
    "MemoryCoordination",
    "Store",
]
