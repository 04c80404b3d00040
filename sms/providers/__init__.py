"""Provider adapters behind one interface (``base.Provider``); looked up by kind."""

from .base import Provider, SendRequest, SendResponse, StatusAnswer  # noqa: F401
from .console import ConsoleProvider
from .kavenegar import KavenegarProvider
from .melipayamak import MelipayamakProvider

PROVIDERS: dict[str, Provider] = {p.kind: p for p in (ConsoleProvider(), KavenegarProvider(), MelipayamakProvider())}


def provider_for(kind: str) -> Provider | None:
    return PROVIDERS.get(kind)
