"""ArchiveService: finished matches read from the archive."""

from services.archive_service.servicer import service

__all__ = ["service"]
