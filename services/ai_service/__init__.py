"""meeple.v1.AIService: bots' suggestions for hints and analysis, and the AI
worker pool that hints and bot seats share."""

from services.ai_service.pool import AIPool, Priority
from services.ai_service.servicer import AIServicer, service

__all__ = ["AIPool", "AIServicer", "Priority", "service"]
