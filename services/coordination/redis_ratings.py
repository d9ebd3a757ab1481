"""The ratings half of the Redis store (see ``coordination.matchmaking``):
players' ratings and the leaderboard, written only with a marker per
match, and the queue of finished rated matches the rater takes.

Keys, one hash tag per game so that one script rates a match:

- ``{r:<game>}:ratings`` (a hash of JSON ratings), ``{r:<game>}:board``
  (a sorted set by ordinal) and ``{r:<game>}:rated:<match>`` (a marker, so
  a match is rated once); ``{r:<game>}:archive``, the archive's outbox of
  the game's rating updates, written while ``{r:<game>}:archiving``
  exists (``redis_outbox``);
- ``{meeple:jobs}:results``: a stream of finished rated matches with the
  consumer group ``raters`` (the commit of a match's last change queues its
  entry: ``redis``).

A Redis that comes back empty has lost the results stream's group: the
rater makes it again.
"""

from __future__ import annotations

import json
import time
from typing import Any

from redis.exceptions import ResponseError

from services.coordination.matchmaking import Applied, PlayerRating, ResultJob
from services.coordination.redis_client import (
    create_group,
    recreate_group,
    unavailable_on_connection_errors,
)

RESULTS = "{meeple:jobs}:results"
RATERS = "raters"
RATED_MARKER_SECONDS = 30 * 24 * 3600
RESULT_SLICE_SECONDS = 0.25

# KEYS: ratings, board, marker, the game's archive outbox and its marker
# (while it exists, the update writes its outbox entry); ARGV: n, marker
# TTL, then n times: player, expected version, new rating (JSON), ordinal;
# then the match id and the game. The entry's "c" lists each player's
# rating before (false: none) and after.
APPLY = """
if redis.call('EXISTS', KEYS[3]) == 1 then return 'already' end
local n = tonumber(ARGV[1])
local changes = {}
for i = 0, n - 1 do
  local current = redis.call('HGET', KEYS[1], ARGV[3 + 4 * i])
  local version = 0
  local before = false
  if current then
    before = cjson.decode(current)
    version = before['version']
  end
  if version ~= tonumber(ARGV[4 + 4 * i]) then return 'conflict' end
  changes[i + 1] = {p = ARGV[3 + 4 * i], b = before, a = cjson.decode(ARGV[5 + 4 * i])}
end
for i = 0, n - 1 do
  redis.call('HSET', KEYS[1], ARGV[3 + 4 * i], ARGV[5 + 4 * i])
  redis.call('ZADD', KEYS[2], ARGV[6 + 4 * i], ARGV[3 + 4 * i])
end
redis.call('SET', KEYS[3], '1', 'EX', ARGV[2])
if redis.call('EXISTS', KEYS[5]) == 1 then
  redis.call('XADD', KEYS[4], '*', 'm', ARGV[3 + 4 * n], 'g', ARGV[4 + 4 * n],
    'c', cjson.encode(changes))
end
return 'applied'
"""


def ratings_outbox_key(game: str) -> str:
    """The game's rating updates for the archive, a stream (``redis_outbox``)."""
    return f"{{r:{game}}}:archive"


def ratings_outbox_marker_key(game: str) -> str:
    """While it exists, the game's rating updates write outbox entries."""
    return f"{{r:{game}}}:archiving"


def _rating(player_id: str, raw: bytes) -> PlayerRating:
    return rating_of(player_id, json.loads(raw))


def rating_of(player_id: str, fields: dict[str, Any]) -> PlayerRating:
    """A rating from its stored JSON fields."""
    return PlayerRating(
        player_id,
        fields["mu"],
        fields["sigma"],
        fields["matches"],
        fields["version"],
        fields.get("name", ""),  # missing in ratings stored before names
    )


class RedisRatings:
    """Mixed into RedisCoordination, which sets the client, its consumer name
    and the visibility timeout."""

    client: Any
    consumer: str
    visibility_timeout: float

    def _register_rating_scripts(self) -> None:
        self._apply = self.client.register_script(APPLY)

    async def _create_results_group(self) -> None:
        await create_group(self.client, RESULTS, RATERS)

    # --- ratings -------------------------------------------------------------------

    @unavailable_on_connection_errors
    async def ratings(self, game: str, player_ids: list[str]) -> dict[str, PlayerRating]:
        if not player_ids:
            return {}
        raws = await self.client.hmget(f"{{r:{game}}}:ratings", player_ids)
        return {p: _rating(p, raw) for p, raw in zip(player_ids, raws, strict=True) if raw}

    @unavailable_on_connection_errors
    async def apply_ratings(
        self, game: str, match_id: str, before: dict[str, int], after: list[PlayerRating]
    ) -> Applied:
        keys = [f"{{r:{game}}}:ratings", f"{{r:{game}}}:board", f"{{r:{game}}}:rated:{match_id}"]
        keys += [ratings_outbox_key(game), ratings_outbox_marker_key(game)]
        args: list[Any] = [len(after), RATED_MARKER_SECONDS]
        for rating in after:
            fields = {
                "mu": rating.mu,
                "sigma": rating.sigma,
                "matches": rating.matches,
                "version": rating.version,
                "name": rating.display_name,
            }
            args += [rating.player_id, before[rating.player_id], json.dumps(fields), rating.ordinal]
        args += [match_id, game]
        answer = await self._apply(keys=keys, args=args)
        return Applied(answer.decode() if isinstance(answer, bytes) else answer)

    @unavailable_on_connection_errors
    async def leaderboard(self, game: str, offset: int, limit: int) -> list[PlayerRating]:
        ids = await self.client.zrevrange(f"{{r:{game}}}:board", offset, offset + limit - 1)
        players = [raw.decode() for raw in ids]
        stored = await self.ratings(game, players)
        return [stored[p] for p in players if p in stored]

    # --- finished rated matches ------------------------------------------------------------

    @unavailable_on_connection_errors
    async def pull_result(self, timeout: float) -> ResultJob | None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                job = await self._pull_result_once(min(timeout, RESULT_SLICE_SECONDS))
            except ResponseError as error:  # the group is gone: made again, pulled next time
                await recreate_group(self.client, RESULTS, RATERS, error)
                job = None
            timeout = deadline - time.monotonic()
            if job is not None or timeout <= 0:
                return job

    async def _pull_result_once(self, timeout: float) -> ResultJob | None:
        """A result whose rater went quiet past the visibility timeout, else
        a new one (waiting up to ``timeout``)."""
        idle_ms = round(self.visibility_timeout * 1000)
        _, claimed, *_ = await self.client.xautoclaim(
            RESULTS, RATERS, self.consumer, idle_ms, start_id="0-0", count=1
        )
        if not claimed:
            block = max(1, round(timeout * 1000))
            answer = await self.client.xreadgroup(
                RATERS, self.consumer, {RESULTS: ">"}, count=1, block=block
            )
            claimed = answer[0][1] if answer else []
        for entry_id, fields in claimed:
            if fields is not None:
                return ResultJob(entry_id.decode(), fields[b"m"].decode(), int(fields[b"v"]))
        return None

    @unavailable_on_connection_errors
    async def ack_result(self, receipt: str) -> None:
        await self.client.xack(RESULTS, RATERS, receipt)
        await self.client.xdel(RESULTS, receipt)
