"""The archive's tables (SQLAlchemy Core), the same on SQLite and PostgreSQL.

``matches`` holds one row per finished match with its record (the JSON
bytes); ``match_seats`` one row per seat, with the match's game and end time
copied in so that a player's lists are read from one index, latest first;
``rating_changes`` one row per rated player of a rated match. A rating change
may be archived before its match (they travel separately through the
outbox), so it has no foreign key to ``matches``.

The migrations under ``migrations/`` build exactly this schema (a test
compares them); a change here needs a new revision there.
"""

from __future__ import annotations

import sqlalchemy as sa

# Constraint and index names that are the same on every database and in
# every migration (Alembic needs names to drop or alter them later).
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = sa.MetaData(naming_convention=NAMING_CONVENTION)

matches = sa.Table(
    "matches",
    metadata,
    sa.Column("match_id", sa.Text, primary_key=True),
    sa.Column("game", sa.Text, nullable=False),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("reason", sa.Integer, nullable=False),
    sa.Column("end_seat", sa.Integer, nullable=False),
    sa.Column("created_ms", sa.BigInteger, nullable=False),
    sa.Column("started_ms", sa.BigInteger, nullable=False),
    sa.Column("ended_ms", sa.BigInteger, nullable=False),
    sa.Column("plies", sa.Integer, nullable=False),
    sa.Column("record", sa.LargeBinary, nullable=False),
    # prune() deletes by end time.
    sa.Index(None, "ended_ms"),
)

match_seats = sa.Table(
    "match_seats",
    metadata,
    sa.Column(
        "match_id",
        sa.Text,
        sa.ForeignKey("matches.match_id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("kind", sa.Integer, nullable=False),
    sa.Column("bot_spec", sa.Text, nullable=False),
    sa.Column("player_id", sa.Text, nullable=False),
    sa.Column("display_name", sa.Text, nullable=False),
    sa.Column("result", sa.Double, nullable=False),
    sa.Column("outcome", sa.Text, nullable=False),
    # The match's, copied: a player's list is one range of one index.
    sa.Column("game", sa.Text, nullable=False),
    sa.Column("ended_ms", sa.BigInteger, nullable=False),
    sa.CheckConstraint("outcome IN ('win', 'loss', 'draw')", name="outcome"),
    sa.Index(
        "ix_match_seats_player_ended",
        "player_id",
        sa.desc("ended_ms"),
        sa.desc("match_id"),
    ),
    sa.Index(
        "ix_match_seats_player_game_ended",
        "player_id",
        "game",
        sa.desc("ended_ms"),
        sa.desc("match_id"),
    ),
)

rating_changes = sa.Table(
    "rating_changes",
    metadata,
    sa.Column("match_id", sa.Text, primary_key=True),
    sa.Column("player_id", sa.Text, primary_key=True),
    sa.Column("game", sa.Text, nullable=False),
    sa.Column("mu_before", sa.Double, nullable=False),
    sa.Column("sigma_before", sa.Double, nullable=False),
    sa.Column("mu_after", sa.Double, nullable=False),
    sa.Column("sigma_after", sa.Double, nullable=False),
    sa.Column("matches_after", sa.Integer, nullable=False),
    sa.Column("rated_ms", sa.BigInteger, nullable=False),
    sa.Index(
        "ix_rating_changes_player_game_rated",
        "player_id",
        "game",
        sa.desc("rated_ms"),
        sa.desc("match_id"),
    ),
)

TABLES = (matches, match_seats, rating_changes)
