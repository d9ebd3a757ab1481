"""The archive's Alembic environment: ``env.py`` (async engines), the
revisions in ``versions/``, and the template new ones start from. It is
configured from code (``services.archive.database.alembic_config``)."""
