"""The providers' credit and prices, read on a timer (beat ``sms-credit-read``, every 15 minutes, queue ``sms``).

Every active account whose provider can be asked (``Provider.credit_query``: Kavenegar ``account/info``,
Melipayamak ``GetCredit``; the console answers a fixed demo credit) is asked once per run, no transaction open
during the call; the answer is kept on the account (``credit``, ``credit_checked_at``) for the SMS settings page
and the launch check, counted in the account's ``credit_unit`` (rials, or message parts: Melipayamak). A credit
below the threshold of its unit (``SMS_LOW_CREDIT_RIALS`` / ``SMS_LOW_CREDIT_MESSAGES``) tells the workspace's
owners (``credit_low``: once per account and day).

A provider that prices a message part per operator (``Provider.price_query``: Melipayamak ``GetSmsPrice``) is
asked in the same run: the prices are kept (``provider_prices``, ``prices_checked_at``) and the launch check uses
them; a failed read keeps the last prices and keeps why (``prices_error``, ``prices_error_at``) for the page.

A workspace whose sends paused because the provider answered that the credit cannot pay (Kavenegar 418,
Melipayamak 2: ``channel.CREDIT_EXHAUSTED``) resumes here once an account of it is read with credit again — more
than the read before it (a recharge), or at least the low-credit threshold (``credit_returned``): the circuit
closes and the steps that waited for it are due now (``channel.resume_after_credit``). The circuit's own probe
after ``SMS_CIRCUIT_PAUSE_MINUTES`` stays the fallback for a provider whose credit cannot be read.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime

from django.conf import settings as django_settings
from django.dispatch import Signal
from django.utils import timezone

from sms import channel
from sms.choices import CreditUnit
from sms.models import SmsProviderAccount
from sms.providers import PROVIDERS, provider_for
from sms.providers.base import PriceQueryFailed

logger = logging.getLogger(__name__)

# Sent with kwargs workspace_id, account_id, account_name, credit, credit_unit, day (the owners' notification).
credit_low = Signal()


def low_credit_threshold(unit: str = CreditUnit.RIAL) -> int:
    """The credit below which the owners are told, in ``unit`` (``CreditUnit``)."""
    if unit == CreditUnit.MESSAGE:
        return int(django_settings.SMS_LOW_CREDIT_MESSAGES)
    return int(django_settings.SMS_LOW_CREDIT_RIALS)


def credit_read(*, now: datetime | None = None, account_ids: Iterable[int] | None = None) -> dict[str, int]:
    """Ask every askable active account (or only those of ``account_ids``: the demo reads its console account at
    once) for its credit (and its prices, where the provider gives them); keep the answers; tell owners of a low
    credit."""
    now = now or timezone.now()
    kinds = [p.kind for p in PROVIDERS.values() if p.credit_query or p.price_query]
    report = {"asked": 0, "read": 0, "low": 0, "priced": 0, "price_failed": 0, "resumed": 0}
    accounts = SmsProviderAccount.objects.filter(is_active=True, provider__in=kinds).order_by("id")
    if account_ids is not None:
        accounts = accounts.filter(pk__in=list(account_ids))
    for account in accounts.iterator():
        provider = provider_for(account.provider)
        credentials = channel.account_credentials(account)
        if provider is None or provider.credentials_problem(credentials):
            continue
        if provider.price_query:
            _read_prices(account, provider, credentials, now, report)
        if not provider.credit_query:
            continue
        report["asked"] += 1
        try:
            credit = provider.query_credit(credentials, unit=account.credit_in)
        except Exception:  # one account's failure never stops the others
            logger.exception("credit query failed for account %s", account.pk)
            continue
        if credit is None:
            continue
        report["read"] += 1
        SmsProviderAccount.objects.filter(pk=account.pk).update(credit=credit, credit_checked_at=now)
        if credit_returned(credit, before=account.credit, unit=account.credit_in):
            report["resumed"] += channel.resume_after_credit(account.workspace_id, account_id=account.pk, now=now)
        if credit < low_credit_threshold(account.credit_in):
            report["low"] += 1
            credit_low.send(
                sender=SmsProviderAccount,
                workspace_id=account.workspace_id,
                account_id=account.pk,
                account_name=account.name,
                credit=credit,
                credit_unit=account.credit_in,
                day=timezone.localdate(now),
            )
    return report


def credit_returned(credit: int, *, before: int | None, unit: str) -> bool:
    """Whether a credit read shows credit a send can use again: some credit, and either more than the read before
    it (a recharge) or at least the low-credit threshold of its unit."""
    if credit <= 0:
        return False
    return before is None or credit > before or credit >= low_credit_threshold(unit)


def _read_prices(account: SmsProviderAccount, provider, credentials: dict, now: datetime, report: dict) -> None:
    """The provider's prices of one part per operator kept on the account; a failure keeps the last prices and
    says why (never raises: one account's failure never stops the others)."""
    error = ""
    if not account.default_sender:
        error = "برای پرسیدن بها از سرویس‌دهنده، حساب خط ارسالی ندارد."
    else:
        try:
            prices = provider.query_prices(credentials, sender=account.default_sender)
        except PriceQueryFailed as exc:
            error = str(exc)[:200]
        except Exception:
            logger.exception("price query failed for account %s", account.pk)
            error = "پرسیدن بها از سرویس‌دهنده با خطا روبه‌رو شد."
    if error:
        report["price_failed"] += 1
        SmsProviderAccount.objects.filter(pk=account.pk).update(prices_error=error, prices_error_at=now)
        return
    report["priced"] += 1
    SmsProviderAccount.objects.filter(pk=account.pk).update(
        provider_prices=prices, prices_checked_at=now, prices_error="", prices_error_at=None
    )
