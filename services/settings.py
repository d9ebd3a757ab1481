"""Every knob of a meeple server in one place, with the defaults that
``meeple up`` runs with. Limits are per client address; times in seconds."""

from __future__ import annotations

import dataclasses
import os
import typing
from collections.abc import Mapping
from dataclasses import dataclass, fields

ENV_PREFIX = "MEEPLE_"
OFF = ("off", "none")
MIN_SECRET_CHARS = 16
# The JWT algorithms a provider's tokens may use: asymmetric ones only.
PROVIDER_ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)


BOT_PACE_MAX = 10.0  # seconds: the longest pace between a bot-only match's moves


@dataclass(frozen=True)
class Settings:
    # Calls a second per client across all services: bursts of
    # ``rate_burst``, refilled at ``rate_per_second``. None turns it off.
    rate_per_second: float | None = 500.0
    rate_burst: float = 1000.0
    # Matches per client: bursts of this many, refilled over a minute. Both
    # CreateMatch and the matchmaker's matches count (a matchmade match is
    # charged once to each address whose ticket sits at its table).
    matches_per_minute: int = 300
    # CreateTicket per client: bursts of this many, refilled over a minute;
    # and the most tickets a client may have open (queued) at once, across
    # every queue and replica.
    tickets_per_minute: int = 120
    open_tickets: int = 16
    # The server secret that ticket ids and tokens of a CreateTicket with a
    # request_id derive from (HMAC-SHA256): at least 16 characters, the same
    # on every replica. None: a random one, made once per process in
    # memory, or once per Redis (stored there, shared by its replicas).
    # Never printed (repr=False).
    token_secret: str | None = dataclasses.field(default=None, repr=False)
    # Open WatchMatch streams per client.
    watch_streams: int = 64
    # AIService calls in flight (waiting or thinking) per client.
    ai_calls_per_client: int = 4
    # AIService calls waiting for a worker, all clients together; bot
    # seats' turns go first and are never refused.
    ai_queue_limit: int = 64
    # The longest one AI decision may take, whatever its spec asks; a bot
    # turn over it fails and is retried.
    ai_max_think_seconds: float = 30.0
    # Tries of a bot turn before the fallback move plays it (dead letter).
    bot_attempts: int = 3
    # The longest a live worker may hold a bot turn, however often it renews
    # it, before the turn is delivered again (a hung worker).
    bot_visibility_timeout: float = 60.0
    # A worker renews each bot turn it holds well within this lease; a dead
    # worker's turns are delivered again once it lapses.
    bot_lease: float = 5.0
    # A waiting match expires when not full within this time.
    waiting_ttl: float = 600.0
    # A finished match stays readable this long, then is deleted.
    finished_retention: float = 3600.0
    # A bot-only match's least time between moves (CreateMatch's bot_pace
    # when unset), so that its spectators can follow it; at most
    # BOT_PACE_MAX in a request.
    bot_pace: float = 0.5
    # ListMatches leaves out a match whose human seat to act has not moved
    # for this long (abandoned; its clock still ends it).
    abandoned_after: float = 120.0
    # The turn clocks when CreateMatch sets none, and the most it may set.
    clock_base: float = 300.0
    clock_increment: float = 5.0
    clock_base_max: float = 24 * 3600.0
    clock_increment_max: float = 3600.0
    # How often a server ends matches whose clock ran out.
    sweep_interval: float = 1.0
    # Matchmaking: a ticket without a heartbeat (an open WatchTicket) for
    # this long expires; the default and the longest max_wait; the wait
    # before bots fill a table; how often a matchmaker runs its passes, and
    # how long its lease on a queue lasts without renewal.
    ticket_heartbeat_timeout: float = 10.0
    ticket_max_wait: float = 120.0
    ticket_max_wait_max: float = 600.0
    bot_fill_after: float = 10.0
    matchmaker_interval: float = 0.05
    matchmaker_lease: float = 2.0
    # The web port: a request's body must arrive within web_body_timeout of
    # its headers, and headers within web_idle_timeout of the connection's
    # start or last answer (408, closed); connections per client address.
    web_body_timeout: float = 10.0
    web_idle_timeout: float = 5.0
    web_connections: int = 64
    # Identity (``services.auth``): "on" verifies a bearer token on every
    # call that acts for a player; "off" trusts the player ids in requests
    # (experiments only; loudly logged). Guest sign-in ("on"/"off"), with
    # its access and refresh tokens' lifetimes and the sign-ins a minute
    # per client address. A studio's provider: its JWKS URL, the issuer and
    # audience its tokens must name, the algorithms accepted (asymmetric
    # only), how long its key set is cached and how soon an unknown key id
    # may fetch it again. The leeway allowed on exp and nbf.
    auth: str = "on"
    auth_guests: str = "on"
    auth_access_ttl: float = 3600.0
    auth_refresh_ttl: float = 30 * 86400.0
    guest_signins_per_minute: int = 30
    auth_jwks_url: str | None = None
    auth_issuer: str | None = None
    auth_audience: str | None = None
    auth_algorithms: str = "RS256,ES256,EdDSA"
    auth_jwks_refresh: float = 300.0
    auth_jwks_cooldown: float = 10.0
    auth_leeway: float = 10.0
    # Where a server without Redis keeps what outlives it (the guest
    # signing key, and the archive's SQLite file unless database_url is
    # set): None keeps it in memory, for this process only.
    data_dir: str | None = None
    # The archive's database (postgresql://… or sqlite:///…); None: the
    # SQLite file in data_dir, or no archive without one.
    database_url: str | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> Settings:
        """The defaults, with each field overridden by ``MEEPLE_<FIELD>`` when
        set (``MEEPLE_WAITING_TTL=120``; ``MEEPLE_RATE_PER_SECOND=off``)."""
        types = typing.get_type_hints(cls)
        values: dict[str, object] = {}
        for field in fields(cls):
            name = ENV_PREFIX + field.name.upper()
            raw = environ.get(name)
            if raw is None:
                continue
            kind = types[field.name]
            if kind == str | None:
                values[field.name] = raw or None  # set but empty: unset
                continue
            if kind is str:
                values[field.name] = raw.strip()
                continue
            if kind == float | None and raw.strip().lower() in OFF:
                values[field.name] = None
                continue
            number, what = (int, "a whole number") if kind is int else (float, "a number")
            try:
                values[field.name] = number(raw)
            except ValueError:
                raise ValueError(f"{name} must be {what}, got {raw!r}") from None
        return cls(**values)  # type: ignore[arg-type]

    def __post_init__(self) -> None:
        positive = {
            "rate_burst": self.rate_burst,
            "ai_max_think_seconds": self.ai_max_think_seconds,
            "bot_visibility_timeout": self.bot_visibility_timeout,
            "bot_lease": self.bot_lease,
            "web_body_timeout": self.web_body_timeout,
            "web_idle_timeout": self.web_idle_timeout,
            "waiting_ttl": self.waiting_ttl,
            "finished_retention": self.finished_retention,
            "clock_base": self.clock_base,
            "sweep_interval": self.sweep_interval,
            "ticket_heartbeat_timeout": self.ticket_heartbeat_timeout,
            "ticket_max_wait": self.ticket_max_wait,
            "matchmaker_interval": self.matchmaker_interval,
            "matchmaker_lease": self.matchmaker_lease,
            "auth_access_ttl": self.auth_access_ttl,
            "auth_refresh_ttl": self.auth_refresh_ttl,
            "auth_jwks_refresh": self.auth_jwks_refresh,
            "abandoned_after": self.abandoned_after,
        }
        counts = {
            "matches_per_minute": self.matches_per_minute,
            "watch_streams": self.watch_streams,
            "ai_calls_per_client": self.ai_calls_per_client,
            "ai_queue_limit": self.ai_queue_limit,
            "bot_attempts": self.bot_attempts,
            "tickets_per_minute": self.tickets_per_minute,
            "open_tickets": self.open_tickets,
            "web_connections": self.web_connections,
            "guest_signins_per_minute": self.guest_signins_per_minute,
        }
        for name, value in positive.items():
            if not value > 0:
                raise ValueError(f"settings: {name} must be > 0, got {value}")
        for name, count in counts.items():
            if count < 1:
                raise ValueError(f"settings: {name} must be >= 1, got {count}")
        if self.rate_per_second is not None and not self.rate_per_second > 0:
            raise ValueError(f"settings: rate_per_second must be > 0, got {self.rate_per_second}")
        if not 0 <= self.clock_increment <= self.clock_increment_max:
            raise ValueError("settings: clock_increment must be within 0..clock_increment_max")
        if self.clock_base > self.clock_base_max:
            raise ValueError("settings: clock_base must be at most clock_base_max")
        if self.ticket_max_wait > self.ticket_max_wait_max:
            raise ValueError("settings: ticket_max_wait must be at most ticket_max_wait_max")
        if not 0 <= self.bot_pace <= BOT_PACE_MAX:
            raise ValueError(f"settings: bot_pace must be within 0..{BOT_PACE_MAX:g} s")
        if self.bot_fill_after < 0:
            raise ValueError(f"settings: bot_fill_after must be >= 0, got {self.bot_fill_after}")
        if self.token_secret is not None and len(self.token_secret) < MIN_SECRET_CHARS:
            # The message names the rule, never the value.
            raise ValueError(
                f"settings: token_secret must be at least {MIN_SECRET_CHARS} characters"
            )
        self._check_auth()

    def _check_auth(self) -> None:
        for name in ("auth", "auth_guests"):
            if getattr(self, name) not in ("on", "off"):
                raise ValueError(f"settings: {name} is 'on' or 'off', got {getattr(self, name)!r}")
        if self.auth_leeway < 0 or self.auth_jwks_cooldown < 0:
            raise ValueError("settings: auth_leeway and auth_jwks_cooldown must be >= 0")
        algorithms = [a.strip() for a in self.auth_algorithms.split(",") if a.strip()]
        unknown = sorted(set(algorithms) - PROVIDER_ALGORITHMS)
        if not algorithms or unknown:
            raise ValueError(
                "settings: auth_algorithms lists asymmetric JWT algorithms "
                f"({', '.join(sorted(PROVIDER_ALGORITHMS))}), got {self.auth_algorithms!r}"
            )
        if self.auth_jwks_url and not (self.auth_issuer and self.auth_audience):
            raise ValueError(
                "settings: auth_jwks_url needs auth_issuer and auth_audience "
                "(MEEPLE_AUTH_ISSUER, MEEPLE_AUTH_AUDIENCE): the iss and aud its tokens name"
            )
        if self.auth == "on" and self.auth_guests == "off" and not self.auth_jwks_url:
            raise ValueError(
                "settings: with auth on and guest sign-in off, set auth_jwks_url "
                "(MEEPLE_AUTH_JWKS_URL): players need some way to sign in"
            )
