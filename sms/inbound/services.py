"""Writes of two-way SMS: store received messages once, match them, apply opt-out / opt-in words."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from automation.services.executions import executions_wake
from campaigns.models import Target
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.search import search_digits
from campaigns.platform.tenancy import Actor
from campaigns.signals import target_replied
from sms import channel, webhook_events
from sms.choices import ACCEPTED, BlacklistSource, InboundOutcome
from sms.inbound.facts import REPLIED, REPLIED_IN_JOURNEY
from sms.inbound.keywords import OPT_IN, OPT_OUT, clean_words, keyword_of, words_problem
from sms.inbound.models import InboundSms
from sms.inbound.notify import inbound_notify
from sms.inbound.types import ReceivedSms
from sms.models import BlacklistEntry, SmsAttempt, SmsProviderAccount, SmsSettings
from sms.services import blacklist_opt_out

logger = logging.getLogger(__name__)

MAX_TEXT = 2000
WAKING_FACTS = [REPLIED, REPLIED_IN_JOURNEY]  # a stored reply may end a wait or a journey at once


def _line(raw: str) -> str:
    return "".join(search_digits(raw).split())[:30]


def _sender(raw: str) -> tuple[str, bool]:
    """(E.164, True) when the sender parses as a phone number, else (its folded text, False)."""
    number = channel.normalize_number(str(raw or ""))
    return (number, True) if number else ("".join(search_digits(str(raw or "")).split())[:40], False)


def _last_attempt(workspace_id: int, number: str, line: str, before, *, whole_second: bool) -> SmsAttempt | None:
    """The last message accepted for ``number`` on ``line`` (any line when the line is unknown) before ``before``.
    ``whole_second``: the reply's time is the provider's in whole seconds, so it stands for any moment of that
    second and is compared at the second's end (a reply stamped 10:00:00 answers a send at 10:00:00.600)."""
    if whole_second:
        sent_before = Q(request_at__lt=before.replace(microsecond=0) + timedelta(seconds=1))
    else:
        sent_before = Q(request_at__lte=before)
    attempts = SmsAttempt.objects.filter(sent_before, workspace_id=workspace_id, phone=number, status__in=ACCEPTED)
    if line:
        attempts = attempts.filter(sender=line)
    return attempts.order_by("-request_at", "-id").only("id", "campaign_id").first()


def _apply_keyword(settings: SmsSettings, message: InboundSms, phone: bool) -> str:
    """Blacklist (opt-out word) or lift a reply's own opt-out (opt-in word); the outcome to record."""
    if not phone:
        return InboundOutcome.NONE
    word = keyword_of(message.text, opt_out_words=settings.opt_out_words, opt_in_words=settings.opt_in_words)
    if word == OPT_OUT:
        blacklist_opt_out(
            workspace_id=message.workspace_id,
            number=message.number,
            source=BlacklistSource.REPLY,
            description=f"پاسخ گیرنده: {message.text}",
        )
        return InboundOutcome.OPT_OUT
    if word == OPT_IN:
        active = BlacklistEntry.objects.filter(
            workspace_id=message.workspace_id, channel="sms", value=message.number, is_active=True
        )
        now = timezone.now()
        lifted = active.filter(source=BlacklistSource.REPLY).update(is_active=False, removed_at=now, updated_at=now)
        if lifted:
            return InboundOutcome.OPT_IN
        return InboundOutcome.OPT_IN_REFUSED if active.exists() else InboundOutcome.NONE
    return InboundOutcome.NONE


def inbound_store(*, account: SmsProviderAccount, messages: list[ReceivedSms]) -> list[InboundSms]:
    """Store each received message once (unique by account + provider message id) and return the new ones.

    Each is matched to the workspace's live target with that mobile (an unknown number is kept unmatched), linked
    to the last message accepted for it on that line, and its opt-out / opt-in word applied — in one transaction
    per message, so a message is either stored with its effect or not at all (the next poll brings it again)."""
    settings = channel.sms_settings(account.workspace_id)
    now = timezone.now()
    wanted = [m for m in messages if str(m.provider_message_id or "").strip()]
    known = set(
        InboundSms.objects.filter(
            account=account, provider_message_id__in=[str(m.provider_message_id)[:64] for m in wanted]
        ).values_list("provider_message_id", flat=True)
    )
    senders = {m.sender: _sender(m.sender) for m in wanted}
    targets = {
        t.mobile: t
        for t in Target.objects.filter(
            workspace_id=account.workspace_id,
            deleted_at__isnull=True,
            mobile__in=[number for number, phone in senders.values() if phone],
        ).only("id", "mobile", "name")
    }
    stored: list[InboundSms] = []
    for received in wanted:
        message_id = str(received.provider_message_id).strip()[:64]
        if message_id in known:
            continue
        known.add(message_id)
        number, phone = senders[received.sender]
        line = _line(received.line)
        received_at = received.received_at or now
        whole_second = received.whole_seconds and received.received_at is not None
        attempt = (
            _last_attempt(account.workspace_id, number, line, received_at, whole_second=whole_second) if phone else None
        )
        target = targets.get(number) if phone else None
        message = InboundSms(
            workspace_id=account.workspace_id,
            account=account,
            provider=account.provider,
            provider_message_id=message_id,
            line=line,
            number=number,
            text=str(received.text or "")[:MAX_TEXT],
            received_at=received_at,
            target=target,
            attempt_id=attempt.id if attempt else None,
            campaign_id=attempt.campaign_id if attempt else None,
        )
        try:
            with transaction.atomic():
                message.save()
                message.outcome = _apply_keyword(settings, message, phone)
                if message.outcome:
                    InboundSms.objects.filter(pk=message.pk).update(outcome=message.outcome)
                webhook_events.reply_received(message=message)
        except IntegrityError:  # stored meanwhile by another poll or push
            continue
        stored.append(message)
    _announce(account, stored)
    try:
        inbound_notify(messages=stored)
    except Exception:  # stored already: a notification must never turn the provider's OK (push) into an error
        logger.exception("reply notifications of account %s failed", account.id)
    return stored


def _announce(account: SmsProviderAccount, stored: list[InboundSms]) -> None:
    """After the store: journeys waiting on these replies wake, and the matched ones are announced
    (``target_replied``: chains record reply conversions). Like the notifications, a failure here is logged and
    never turns the provider's OK (push) into an error — the replies are stored; a waiting journey reads them at
    the end of its wait anyway."""
    try:
        _wake_waiting_journeys(stored)
    except Exception:
        logger.exception("waking journeys on replies of account %s failed", account.id)
    for message in stored:
        if message.target_id is None:
            continue
        answers = target_replied.send_robust(
            sender=InboundSms,
            workspace_id=message.workspace_id,
            target_id=message.target_id,
            reply_id=message.id,
            text=message.text,
            received_at=message.received_at,
        )
        for receiver, answer in answers:
            if isinstance(answer, Exception):
                logger.error("reply %s: %s failed", message.id, receiver.__name__, exc_info=answer)


def _wake_waiting_journeys(messages: list[InboundSms]) -> int:
    """Journeys waiting for these targets' replies (a wait with ``until_fact`` ``reply.received``) or stopping on
    one (``stop_when_facts``) become due now."""
    by_workspace: dict[int, set[int]] = {}
    for message in messages:
        if message.target_id is not None:
            by_workspace.setdefault(message.workspace_id, set()).add(message.target_id)
    if not by_workspace:
        return 0
    target_type = ContentType.objects.get_for_model(Target).id
    return sum(
        executions_wake(workspace_id=ws, subject_type_id=target_type, subject_ids=sorted(ids), facts=WAKING_FACTS)
        for ws, ids in by_workspace.items()
    )


def inbound_words_update(*, actor: Actor, data: dict[str, Any]) -> SmsSettings:
    """Change the workspace's opt-out / opt-in words; a word cannot be both."""
    actor.require(Perm.MANAGE_WORKSPACE)
    unknown = set(data) - {"opt_out_words", "opt_in_words"}
    if unknown:
        raise ValidationFailed(details={key: ["فیلد ناشناخته"] for key in sorted(unknown)})
    settings = channel.sms_settings(actor.workspace.id)
    values = {}
    for field in ("opt_out_words", "opt_in_words"):
        words = data.get(field, getattr(settings, field))
        problem = words_problem(words)
        if problem:
            raise ValidationFailed.field(field, problem)
        values[field] = clean_words(words)
    both = {keyword_of(w, opt_out_words=values["opt_out_words"], opt_in_words=()) for w in values["opt_in_words"]}
    if OPT_OUT in both:
        raise ValidationFailed.field("opt_in_words", "یک کلمه نمی‌تواند هم لغو باشد و هم شروع دوباره.")
    SmsSettings.objects.filter(pk=settings.pk).update(**values, updated_at=timezone.now())
    settings.refresh_from_db()
    return settings


MAX_MARK = 500


def inbound_mark_read(*, actor: Actor, ids: list[int], read: bool = True) -> int:
    """Mark the workspace's replies read (or unread again); other workspaces' ids change nothing."""
    actor.require(Perm.VIEW_SMS_LOGS)
    if len(ids) > MAX_MARK:
        raise ValidationFailed.field("ids", f"حداکثر {MAX_MARK} پیام در هر بار.")
    return (
        InboundSms.objects.filter(workspace_id=actor.workspace.id, id__in=ids)
        .exclude(is_read=read)
        .update(is_read=read)
    )
