"""rating changes

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02

A rating change may be archived before its match: no foreign key to
``matches``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rating_changes",
        sa.Column("match_id", sa.Text(), nullable=False),
        sa.Column("player_id", sa.Text(), nullable=False),
        sa.Column("game", sa.Text(), nullable=False),
        sa.Column("mu_before", sa.Double(), nullable=False),
        sa.Column("sigma_before", sa.Double(), nullable=False),
        sa.Column("mu_after", sa.Double(), nullable=False),
        sa.Column("sigma_after", sa.Double(), nullable=False),
        sa.Column("matches_after", sa.Integer(), nullable=False),
        sa.Column("rated_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("match_id", "player_id", name=op.f("pk_rating_changes")),
    )
    op.create_index(
        "ix_rating_changes_player_game_rated",
        "rating_changes",
        [
            "player_id",
            "game",
            sa.literal_column("rated_ms DESC"),
            sa.literal_column("match_id DESC"),
        ],
    )


def downgrade() -> None:
    op.drop_index("ix_rating_changes_player_game_rated", table_name="rating_changes")
    op.drop_table("rating_changes")
