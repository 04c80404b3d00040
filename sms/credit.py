"""The providers' credit, read on a timer (beat ``sms-credit-read``, every 15 minutes, queue ``sms``).

Every active account whose provider can be asked (``Provider.credit_query``: Kavenegar ``account/info``,
Melipayamak ``GetCredit``) is asked once per run, no transaction open during the call; the answer is kept on the
account (``credit``, ``credit_checked_at``) for the SMS settings page and the launch check. A credit below
``SMS_LOW_CREDIT_RIALS`` tells the workspace's owners (``credit_low``: once per account and day).
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings as django_settings
from django.dispatch import Signal
from django.utils import timezone

from sms import channel
from sms.models import SmsProviderAccount
from sms.providers import PROVIDERS, provider_for

logger = logging.getLogger(__name__)

# Sent with kwargs workspace_id, account_id, account_name, credit, day (the owners' notification).
credit_low = Signal()


def low_credit_threshold() -> int:
    return int(django_settings.SMS_LOW_CREDIT_RIALS)


def credit_read(*, now: datetime | None = None) -> dict[str, int]:
    """Ask every askable active account for its credit; keep the answers; tell owners of a low one."""
    now = now or timezone.now()
    kinds = [p.kind for p in PROVIDERS.values() if p.credit_query]
    report = {"asked": 0, "read": 0, "low": 0}
    accounts = SmsProviderAccount.objects.filter(is_active=True, provider__in=kinds).order_by("id")
    for account in accounts.iterator():
        provider = provider_for(account.provider)
        credentials = channel.account_credentials(account)
        if provider is None or provider.credentials_problem(credentials):
            continue
        report["asked"] += 1
        try:
            credit = provider.query_credit(credentials)
        except Exception:  # one account's failure never stops the others
            logger.exception("credit query failed for account %s", account.pk)
            continue
        if credit is None:
            continue
        report["read"] += 1
        SmsProviderAccount.objects.filter(pk=account.pk).update(credit=credit, credit_checked_at=now)
        if credit < low_credit_threshold():
            report["low"] += 1
            credit_low.send(
                sender=SmsProviderAccount,
                workspace_id=account.workspace_id,
                account_id=account.pk,
                account_name=account.name,
                credit=credit,
                day=timezone.localdate(now),
            )
    return report
