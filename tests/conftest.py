"""Suite-wide settings: hypothesis runs derandomized so the suite is deterministic."""

from hypothesis import settings

settings.register_profile("deterministic", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("deterministic")
