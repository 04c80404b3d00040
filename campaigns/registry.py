"""Campaign kinds plug their creation into ``POST /api/v1/campaigns``.

Each channel app registers, in its ``AppConfig.ready()``, the input
serializer and the service that create a campaign of its kind:

    register_campaign_kind("browser", input_serializer=BrowserCampaignInput, create=browser_campaign_create)

The API picks the handler from the body's ``kind``, validates with the
serializer and calls ``create(actor=actor, **validated_data)``, which must
return the ``Campaign`` (created in one transaction). The campaigns app never
imports a channel.
"""

from collections.abc import Callable
from dataclasses import dataclass

from .permissions import Perm


@dataclass(frozen=True)
class CampaignKindHandler:
    kind: str
    input_serializer: type
    create: Callable
    permission: str


_KINDS: dict[str, CampaignKindHandler] = {}


def register_campaign_kind(
    kind: str, *, input_serializer: type, create: Callable, permission: str = Perm.MANAGE_CAMPAIGNS
) -> None:
    _KINDS[kind] = CampaignKindHandler(kind, input_serializer, create, permission)


def campaign_kind_handler(kind: str) -> CampaignKindHandler | None:
    return _KINDS.get(kind)


def campaign_kind_handlers() -> list[CampaignKindHandler]:
    return [_KINDS[k] for k in sorted(_KINDS)]
