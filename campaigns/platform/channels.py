"""The channel contract: what a channel app (SMS, browser tasks; e-mail, WhatsApp, voice) declares, so that
adding one is a folder and one line in ``INSTALLED_APPS`` (after RapidPro's ``CHANNEL_TYPES`` and NetBox's
``PluginConfig``).

A channel app's ``AppConfig`` carries a ``channel = Channel(...)`` class attribute. The platform reads it in
two moments:

- **settings** (before any app loads; ``channels_in(INSTALLED_APPS)`` imports each ``AppConfig`` class, as
  NetBox reads a plugin's config): its Celery ``queues`` and ``routes``, its API area (``api_area``: the
  Swagger tag and the ``/api/v1/<prefix>`` paths it owns) and its OpenAPI ``enum_names``;
- **start-up** (``installed_channels()``, the loaded app configs): the URLconf mounts (``urls`` at ``/``,
  ``api_urls`` at ``/api/v1/``, any other ``mounts``), the periodic jobs (``beat_schedule``, a dotted path to
  a dict like ``config/celery.py``'s), the append-only ``history_tables`` partitioned by month (table → time
  column), the engine action that sends a chain step over it (``chain_action``; the chain pages offer the
  channel), its campaign kind's value and label (``campaign_kind``: the model's, filters', serializers' and
  the OpenAPI enum's choices) and the apps whose fields get Persian labels.

What needs code stays in the app's ``ready()``: the menu (``register_menu``), the campaign kind's creation
(``register_campaign_kind``), engine actions, demo data. docs/architecture.md "Adding a channel" walks
through it. This module imports nothing but the standard library and Django's app registry, so settings
may import it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from campaigns.platform.app_settings import config_class

# The core's own kind: the engine's journey campaign (``campaigns.choices.CampaignKind``).
CORE_CAMPAIGN_KINDS = (("journey", "سفر پیامکی"),)


@dataclass(frozen=True)
class ApiArea:
    """A Swagger UI tag: its name, one line in Persian and English, and the path prefix under /api/v1/."""

    name: str
    description: str
    path_prefix: str


@dataclass(frozen=True)
class Channel:
    name: str  # the channel's key ("sms"): chain actions store it
    label: str  # Persian, for the pages
    queues: tuple[str, ...] = ()
    routes: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # task glob → queue
    beat_schedule: str = ""  # "sms.schedule.BEAT_SCHEDULE"
    urls: str = ""  # the pages' URLconf, mounted at /
    api_urls: str = ""  # the API's URLconf, mounted at /api/v1/
    mounts: tuple[tuple[str, str], ...] = ()  # other (prefix, URLconf) pairs: ("api/webhooks/", "sms.webhook_urls")
    api_area: ApiArea | None = None
    enum_names: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    history_tables: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    chain_action: str = ""  # the engine action a chain step over this channel runs ("send_sms"); "": none
    campaign_kind: tuple[str, str] | None = None  # (value, Persian label) of the campaign kind it brings


def channels_in(installed_apps: Iterable[str]) -> list[Channel]:
    """The channels the ``INSTALLED_APPS`` entries declare, in their order (settings use this)."""
    out = []
    for entry in installed_apps:
        spec = getattr(config_class(entry), "channel", None)
        if isinstance(spec, Channel):
            out.append(spec)
    return out


def installed_channels() -> list[Channel]:
    """The channels of the loaded apps, in ``INSTALLED_APPS`` order."""
    from django.apps import apps

    return [
        config.channel for config in apps.get_app_configs() if isinstance(getattr(config, "channel", None), Channel)
    ]


def installed_channel_apps() -> tuple[str, ...]:
    """The app labels of the installed channels."""
    from django.apps import apps

    return tuple(c.label for c in apps.get_app_configs() if isinstance(getattr(c, "channel", None), Channel))


def campaign_kind_choices(channels: Iterable[Channel] | None = None) -> list[tuple[str, str]]:
    """Every campaign kind: the core's journey, then each channel's."""
    channels = installed_channels() if channels is None else channels
    return [*CORE_CAMPAIGN_KINDS, *(c.campaign_kind for c in channels if c.campaign_kind)]


class CampaignKindChoices:
    """``campaign_kind_choices()`` read each time it is iterated (a form's or serializer's ``choices``)."""

    def __iter__(self):
        return iter(campaign_kind_choices())

    def __deepcopy__(self, memo):
        return self


def chain_channels() -> list[Channel]:
    """The channels a chain step can send over (those with an engine action)."""
    return [c for c in installed_channels() if c.chain_action]
