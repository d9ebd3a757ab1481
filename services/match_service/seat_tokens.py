"""Seat and owner tokens: kept as their SHA-256 hashes, and a player's
seat token derived, so that the player gets the same one each time."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

from services.coordination import MatchData


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def holds(token: str | None, stored: str) -> bool:
    return bool(token) and bool(stored) and hmac.compare_digest(stored, token_hash(token or ""))


def seat_token(data: MatchData, seat: int, player_id: str) -> str:
    """The token of ``player_id``'s seat in its current round: the same
    each time it is made (HMAC-SHA256 under the match's seat key), so a
    player who joins its seat again, from anywhere, gets the token it had."""
    round_ = data.seat_rounds[seat] if seat < len(data.seat_rounds) else 0
    message = json.dumps([data.match_id, seat, player_id, round_]).encode()
    mac = hmac.new(bytes.fromhex(data.seat_key), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()
