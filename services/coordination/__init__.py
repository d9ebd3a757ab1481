"""Coordination: the only state services share.

One small interface (``base.Coordination``): match records with
compare-and-set on their version, an append-only event stream per match
and a job queue for bot turns with acknowledgement, retries and dead
letters; every write of a match (record, events, the job it queues and
the one it settles) is one atomic step. ``memory`` implements it in one
process, ``redis`` on Redis or a Redis Cluster (``shards``: where a
match's keys and its bot jobs live).
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
