"""Provider plug-ins, registered by kind. Adding a provider: one module exposing ``PROVIDER`` (see
``base.Provider``) and one line in ``BUILTIN``; the account choices, the API enums, the action's config
schema and the credential validation all read this registry (docs/sms.md)."""

from __future__ import annotations

from importlib import import_module

from sms.providers.base import Provider, SendRequest, SendResponse, StatusAnswer  # noqa: F401

BUILTIN = (
    "sms.providers.console",
    "sms.providers.kavenegar",
    "sms.providers.melipayamak",
)

PROVIDERS: dict[str, Provider] = {}


def register(provider: Provider) -> Provider:
    if not provider.kind or provider.kind in PROVIDERS:
        raise ValueError(f"provider kind {provider.kind!r} is empty or taken")
    PROVIDERS[provider.kind] = provider
    return provider


for _path in BUILTIN:
    register(import_module(_path).PROVIDER)


def provider_for(kind: str) -> Provider | None:
    return PROVIDERS.get(kind or "")


def provider_kinds() -> list[str]:
    return list(PROVIDERS)


def provider_choices() -> list[tuple[str, str]]:
    return [(p.kind, p.label or p.kind) for p in PROVIDERS.values()]


provider_kind_choices = provider_choices


def credential_fields(kind: str) -> list[dict]:
    """The credential schema of a kind as plain data (pages and the API): name, label, required, secret."""
    provider = provider_for(kind)
    if provider is None:
        return []
    fields = provider.credentials_serializer().fields
    return [
        {"name": name, "label": str(field.label or name), "required": field.required, "secret": True}
        for name, field in fields.items()
    ]
