"""Builders for the reply tests: a provider account, a sent message, a received one."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta

from django.contrib.contenttypes.models import ContentType
from django.utils import timezone

from campaigns.models import Target
from sms.choices import AttemptStatus
from sms.inbound.types import ReceivedSms
from sms.models import SmsAttempt, SmsProviderAccount

_ids = itertools.count(1)


def make_account(workspace, provider: str = "kavenegar", senders=("10004346",)) -> SmsProviderAccount:
    return SmsProviderAccount.objects.create(
        workspace=workspace, name=f"حساب {next(_ids)}", provider=provider, senders=list(senders)
    )


def sent(target: Target, *, line: str = "10004346", campaign=None, at: datetime | None = None, status=None):
    """A message the provider accepted for ``target`` on ``line`` (the attempt's keys carry no constraint)."""
    n = next(_ids)
    return SmsAttempt.objects.create(
        workspace_id=target.workspace_id,
        execution_id=n,
        workflow_id=n,
        campaign_id=campaign.id if campaign else n,
        subject_type=ContentType.objects.get_for_model(Target),
        subject_id=target.id,
        node_id=n,
        phone=target.mobile,
        sender=line,
        message="سلام",
        idempotency_key=f"reply-test:{n}",
        status=status or AttemptStatus.SUBMITTED,
        request_at=at or timezone.now() - timedelta(minutes=5),
    )


def received(text: str, sender: str, *, line: str = "10004346", message_id: str | None = None, at=None):
    return ReceivedSms(
        provider_message_id=message_id or str(900000 + next(_ids)), sender=sender, line=line, text=text, received_at=at
    )
