"""The inbox poll (beat ``sms-inbox-poll``): read every account that can receive, fairly and bounded per run.

One ``SmsInboxCursor`` per inbox (a Kavenegar line, a whole Melipayamak account) is created for every active
account of a provider that receives and is not pushed to. A run claims at most ``SMS_INBOX_POLL_BATCH`` inboxes
not read for ``SMS_INBOX_POLL_INTERVAL_SECONDS`` (``SELECT … FOR UPDATE SKIP LOCKED`` + ``polled_at``: two runs
never read the same inbox), shared max-min fair between workspaces, the longest-unread first. Each request goes
through the account's rate limit (a limited one is given back for the next run), outside any transaction; the
answer is stored with ``inbound_store`` (once per message id) and only then the cursor moves forward.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings as django_settings
from django.db.models import F, Q
from django.utils import timezone

from campaigns.platform.fairness import claim_fairly
from sms import channel, rate_limits
from sms.inbound.models import SmsInboxCursor
from sms.inbound.services import inbound_store
from sms.models import SmsProviderAccount
from sms.providers import PROVIDERS, provider_for


def _receiving_kinds() -> list[str]:
    return [p.kind for p in PROVIDERS.values() if p.receives]


def _polled_accounts(kinds: list[str]):
    return SmsProviderAccount.objects.filter(is_active=True, inbound_push=False, provider__in=kinds)


def cursors_ensure(kinds: list[str]) -> int:
    """An inbox row for every line of every polled account (existing ones untouched)."""
    rows = [
        SmsInboxCursor(workspace_id=account.workspace_id, account=account, line=line)
        for account in _polled_accounts(kinds).only("id", "workspace_id", "provider", "senders")
        for line in provider_for(account.provider).receive_lines(account)
    ]
    return len(SmsInboxCursor.objects.bulk_create(rows, ignore_conflicts=True)) if rows else 0


def _claim(now: datetime, kinds: list[str], batch: int) -> list[int]:
    interval = timedelta(seconds=int(django_settings.SMS_INBOX_POLL_INTERVAL_SECONDS))
    due = (
        SmsInboxCursor.objects.filter(account__is_active=True, account__inbound_push=False, account__provider__in=kinds)
        .filter(Q(polled_at__isnull=True) | Q(polled_at__lte=now - interval))
        .order_by(F("polled_at").asc(nulls_first=True), "id")
    )
    return claim_fairly(due, batch, polled_at=now)


def inbox_poll(*, now: datetime | None = None, batch: int | None = None) -> dict[str, int]:
    """Read the due inboxes once each; returns counts (inboxes read, messages stored, limited, failed)."""
    now = now or timezone.now()
    report = {"read": 0, "stored": 0, "limited": 0, "failed": 0}
    kinds = _receiving_kinds()
    if not kinds:
        return report
    cursors_ensure(kinds)
    ids = _claim(now, kinds, batch or int(django_settings.SMS_INBOX_POLL_BATCH))
    for cursor in SmsInboxCursor.objects.filter(id__in=ids).select_related("account").order_by("id"):
        account = cursor.account
        provider = provider_for(account.provider)
        if provider is None or cursor.line not in provider.receive_lines(account):
            continue  # a line the account no longer has
        if rate_limits.take(account, requests=1):
            SmsInboxCursor.objects.filter(pk=cursor.pk, polled_at=now).update(polled_at=None)
            report["limited"] += 1
            continue
        answer = provider.receive(channel.account_credentials(account), line=cursor.line, cursor=cursor.cursor)
        if answer is None:
            report["failed"] += 1  # asked again after the interval
            continue
        report["read"] += 1
        report["stored"] += len(inbound_store(account=account, messages=answer.messages))
        if answer.cursor and answer.cursor != cursor.cursor:
            SmsInboxCursor.objects.filter(pk=cursor.pk, cursor=cursor.cursor).update(cursor=answer.cursor)
    return report
