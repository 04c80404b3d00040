"""Provider plug-ins, registered by kind. Adding a provider: one module exposing ``PROVIDER`` (see
``base.Provider``) and its path in ``BUILTIN``, registered by ``SmsConfig.ready()``; the account choices
(admin, settings page, the journey builder's SMS step), the API enums, the action's config schema and the
credential validation all read this registry (docs/sms.md)."""

from __future__ import annotations

from importlib import import_module

from campaigns.platform.registry import Registry
from sms.providers.base import Provider, SendRequest, SendResponse, StatusAnswer  # noqa: F401

BUILTIN = (
    "sms.providers.console",
    "sms.providers.kavenegar",
    "sms.providers.melipayamak",
)

PROVIDERS: Registry[Provider] = Registry("sms_providers")


def register(provider: Provider) -> Provider:
    return PROVIDERS.register(provider.kind, provider)


def register_builtin_providers() -> None:
    """Called from ``SmsConfig.ready()``: the providers this app ships, in ``BUILTIN`` order."""
    for path in BUILTIN:
        register(import_module(path).PROVIDER)


def provider_for(kind: str) -> Provider | None:
    return PROVIDERS.get(kind or "")


def provider_kinds() -> list[str]:
    return [p.kind for p in PROVIDERS.in_order()]


def provider_choices() -> list[tuple[str, str]]:
    """(kind, Persian label) of every registered provider, for every form that picks one."""
    return [(p.kind, p.label or p.kind) for p in PROVIDERS.in_order()]


provider_kind_choices = provider_choices


def provider_label(kind: str) -> str:
    """A kind as staff read it («کاوه‌نگار», «کنسول (آزمایشی)»); an unregistered kind as stored."""
    provider = provider_for(kind)
    return (provider.label or provider.kind) if provider else (kind or "")


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
