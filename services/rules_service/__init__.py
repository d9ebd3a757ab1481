"""meeple.v1.RulesService: stateless validation and application of actions."""

from services.rules_service.servicer import RulesServicer, service

__all__ = ["RulesServicer", "service"]
