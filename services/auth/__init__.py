"""Identity: who a caller is, from a verified bearer token (``tokens``),
guest sessions this server signs (``guests``), a studio provider's keys
(``provider``), and the AuthService (``servicer``)."""

from services.auth.identity import Identity, Source
from services.auth.tokens import Authenticator

__all__ = ["Authenticator", "Identity", "Source"]
