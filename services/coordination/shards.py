"""Where a match's keys and its bot jobs live on Redis: in one of
``SHARDS`` shards, each a hash tag of its own, so that a match's record, its
event stream and the job stream its bot turns go through sit in one Cluster
slot, and one script commits a change, settles the job it played and
queues the next one.

The shards' tags are chosen so that their slots spread evenly over the
Cluster's 16,384 (tag ``k`` hashes into the ``k``-th sixteenth), so a
Cluster whose masters own contiguous ranges of slots (as ``redis-cli
--cluster create`` and ``reshard`` leave them) holds about ``SHARDS /
masters`` shards on each. A match's shard is a hash of its id; every
process must agree on ``SHARDS`` (it is part of the key layout, not a
setting): on up to 16 masters every master holds at least one shard.
"""

from __future__ import annotations

import itertools
import zlib

from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot

SHARDS = 16


def _tag(shard: int) -> str:
    """The first ``meeple:<shard>:<n>`` whose slot is in the shard's range."""
    low = shard * REDIS_CLUSTER_HASH_SLOTS // SHARDS
    high = (shard + 1) * REDIS_CLUSTER_HASH_SLOTS // SHARDS
    for n in itertools.count():
        tag = f"meeple:{shard}:{n}"
        if low <= key_slot(tag.encode()) < high:
            return tag
    raise AssertionError("unreachable")


TAGS = tuple(_tag(shard) for shard in range(SHARDS))


def shard_of(match_id: str) -> int:
    return zlib.crc32(match_id.encode()) % SHARDS


def data_key(match_id: str) -> str:
    """The match's record: a hash (``version``, ``record``, ``status``, ``rated``)."""
    return f"{{{TAGS[shard_of(match_id)]}}}:m:{match_id}"


def events_key(match_id: str) -> str:
    """The match's event stream."""
    return f"{{{TAGS[shard_of(match_id)]}}}:e:{match_id}"


def jobs_key(shard: int) -> str:
    """The shard's job stream (consumer group ``workers``)."""
    return f"{{{TAGS[shard]}}}:jobs"


def delayed_key(shard: int) -> str:
    """The shard's retries, a sorted set by due time."""
    return f"{{{TAGS[shard]}}}:delayed"


def dead_key(shard: int) -> str:
    """The shard's recent dead letters, a stream."""
    return f"{{{TAGS[shard]}}}:dead"


JOB_STREAMS = tuple(jobs_key(shard) for shard in range(SHARDS))


def outbox_key(shard: int) -> str:
    """The shard's finished matches for the archive, a stream (``redis_outbox``)."""
    return f"{{{TAGS[shard]}}}:archive"


def outbox_marker_key(shard: int) -> str:
    """While it exists, the shard's finishing changes write outbox entries."""
    return f"{{{TAGS[shard]}}}:archiving"
