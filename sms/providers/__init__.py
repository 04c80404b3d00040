"""Provider adapters behind one interface (``base.Provider``); looked up by kind."""

from sms.providers.base import Provider, SendRequest, SendResponse, StatusAnswer  # noqa: F401
from sms.providers.console import ConsoleProvider
from sms.providers.kavenegar import KavenegarProvider
from sms.providers.melipayamak import MelipayamakProvider

PROVIDERS: dict[str, Provider] = {p.kind: p for p in (ConsoleProvider(), KavenegarProvider(), MelipayamakProvider())}


def provider_for(kind: str) -> Provider | None:
    return PROVIDERS.get(kind)
