"""Numbers blocked for advertising by the operators (Melipayamak delivery status 35, Kavenegar status 14).

A provider answer carrying one of its ``ad_blocked_codes`` (a send entry's error code or a delivery status) is
remembered per workspace; an SMS step sent through an advertising line skips such a number (its own
why-not-sent reason, ``telecom_blocked``) while service lines still reach it (docs/sms.md "Line kinds").
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import QuerySet
from django.utils import timezone

from campaigns.platform.bulk import texts_match
from sms.choices import LineKind
from sms.models import SmsProviderAccount, TelecomBlockedNumber
from sms.providers import provider_for

REASON = "telecom_blocked"


def is_ad_blocked_code(provider_kind: str, code: str) -> bool:
    provider = provider_for(provider_kind or "")
    return provider is not None and str(code or "") in provider.ad_blocked_codes


def remember(*, workspace_id: int, phone: str, provider: str, code: str, at: datetime | None = None) -> None:
    """Record (or refresh) one blocked number; one statement, safe under concurrent reports."""
    if not phone:
        return
    at = at or timezone.now()
    TelecomBlockedNumber.objects.update_or_create(
        workspace_id=workspace_id,
        phone=phone,
        defaults={"provider": provider[:20], "code": str(code)[:40], "last_seen_at": at},
    )


def remember_if_blocked(*, workspace_id: int, phone: str, provider: str, code: str) -> bool:
    """Remember the number when ``code`` is one of the provider's "blocked for advertising" answers."""
    if not is_ad_blocked_code(provider, code):
        return False
    remember(workspace_id=workspace_id, phone=phone, provider=provider, code=code)
    return True


def blocked_numbers(workspace_id: int, numbers: list[str]) -> set[str]:
    numbers = [n for n in numbers if n]
    if not numbers:
        return set()
    rows = TelecomBlockedNumber.objects.filter(texts_match("phone", numbers), workspace_id=workspace_id)
    return set(rows.order_by().values_list("phone", flat=True))


def blocked_values(workspace_id: int) -> QuerySet:
    """The workspace's blocked numbers as a subquery (``mobile__in=…``)."""
    return TelecomBlockedNumber.objects.filter(workspace_id=workspace_id).values("phone")


def is_advertising(account: SmsProviderAccount | None) -> bool:
    return account is not None and account.line_kind == LineKind.ADVERTISING
