"""The archive: finished matches in a database (SQLite or PostgreSQL),
written once through the coordination store's outbox."""
