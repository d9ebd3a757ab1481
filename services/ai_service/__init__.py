"""meeple.v1.AIService: bots' suggestions for hints and analysis."""

from services.ai_service.servicer import AIServicer, service

__all__ = ["AIServicer", "service"]
