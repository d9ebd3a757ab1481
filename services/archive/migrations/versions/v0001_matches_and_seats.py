"""matches and their seats

Revision ID: 0001
Revises:
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("match_id", sa.Text(), nullable=False),
        sa.Column("game", sa.Text(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("reason", sa.Integer(), nullable=False),
        sa.Column("end_seat", sa.Integer(), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("started_ms", sa.BigInteger(), nullable=False),
        sa.Column("ended_ms", sa.BigInteger(), nullable=False),
        sa.Column("plies", sa.Integer(), nullable=False),
        sa.Column("record", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_matches")),
    )
    op.create_index(op.f("ix_matches_ended_ms"), "matches", ["ended_ms"])
    op.create_table(
        "match_seats",
        sa.Column("match_id", sa.Text(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("kind", sa.Integer(), nullable=False),
        sa.Column("bot_spec", sa.Text(), nullable=False),
        sa.Column("player_id", sa.Text(), nullable=False),
        sa.Column("display_name", sa.Text(), nullable=False),
        sa.Column("result", sa.Double(), nullable=False),
        sa.Column("outcome", sa.Text(), nullable=False),
        sa.Column("game", sa.Text(), nullable=False),
        sa.Column("ended_ms", sa.BigInteger(), nullable=False),
        sa.CheckConstraint(
            "outcome IN ('win', 'loss', 'draw')", name=op.f("ck_match_seats_outcome")
        ),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.match_id"],
            name=op.f("fk_match_seats_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_match_seats")),
    )
    op.create_index(
        "ix_match_seats_player_ended",
        "match_seats",
        ["player_id", sa.literal_column("ended_ms DESC"), sa.literal_column("match_id DESC")],
    )
    op.create_index(
        "ix_match_seats_player_game_ended",
        "match_seats",
        [
            "player_id",
            "game",
            sa.literal_column("ended_ms DESC"),
            sa.literal_column("match_id DESC"),
        ],
    )


def downgrade() -> None:
    op.drop_index("ix_match_seats_player_game_ended", table_name="match_seats")
    op.drop_index("ix_match_seats_player_ended", table_name="match_seats")
    op.drop_table("match_seats")
    op.drop_index(op.f("ix_matches_ended_ms"), table_name="matches")
    op.drop_table("matches")
