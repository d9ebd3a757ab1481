"""The archive's schema revisions, oldest first: 0001 (matches and their
seats), 0002 (rating changes)."""
