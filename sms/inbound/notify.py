"""Owners hear of replies to their campaigns: one notification per campaign, recipient and window, never one per
reply at volume (``docs/sms.md`` "Reply notifications")."""

from __future__ import annotations

from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Campaign, Membership, Target
from campaigns.notifications.services import notification_send, workspace_owners
from campaigns.platform.phones import display_phone
from sms.inbound.models import InboundSms

WINDOW = 300  # seconds: at most one notification per campaign and recipient in this window
KIND = "sms_reply"


def inbound_notify(*, messages: list[InboundSms]) -> int:
    """Notify, for each stored reply linked to a campaign, the campaign's creator and the target's assignee (the
    workspace's owners when neither is a member any more) — unless they were notified of that campaign in the
    current window. A cache key claims the window before the
    database is asked (at volume, the window's other replies cost one cache call each); the notification's
    dedupe key keeps it once even without the cache. Returns the notifications created."""
    linked = [m for m in messages if m.campaign_id]
    if not linked:
        return 0
    window = int(timezone.now().timestamp()) // WINDOW
    campaigns = {
        c.id: c
        for c in Campaign.objects.filter(
            workspace_id=linked[0].workspace_id, id__in={m.campaign_id for m in linked}
        ).only("id", "name", "created_by_id")
    }
    owners = dict(
        Target.objects.filter(id__in={m.target_id for m in linked if m.target_id}).values_list("id", "owner_id")
    )
    workspace_id = linked[0].workspace_id
    candidates = {c.created_by_id for c in campaigns.values()} | set(owners.values())
    members = set(
        Membership.objects.filter(workspace_id=workspace_id, user_id__in=candidates - {None}).values_list(
            "user_id", flat=True
        )
    )
    fallback: list[int] | None = None
    created = 0
    for message in linked:
        campaign = campaigns.get(message.campaign_id)
        if campaign is None:
            continue
        recipients = {campaign.created_by_id, owners.get(message.target_id)} & members
        if not recipients:
            fallback = workspace_owners(workspace_id) if fallback is None else fallback
            recipients = set(fallback)
        for user_id in recipients:
            key = f"sms-reply:{campaign.id}:{window}:{user_id}"
            if not cache.add(key, 1, WINDOW * 2):
                continue
            created += len(
                notification_send(
                    workspace=message.workspace_id,
                    recipients=[user_id],
                    kind=KIND,
                    title=f"پاسخ تازه به «{campaign.name}»"[:200],
                    body=_body(message),
                    link=f"{reverse('sms-inbox')}?campaign={campaign.id}",
                    dedupe_key=key,
                )
            )
    return created


def _body(message: InboundSms) -> str:
    who = message.target.name if message.target_id and message.target else display_phone(message.number)
    text = message.text if len(message.text) <= 120 else message.text[:119] + "…"
    return f"{who}: «{text}»\nپاسخ‌های بعدی این کمپین تا چند دقیقه اعلان تازه‌ای نمی‌سازند؛ همه در صندوق پاسخ‌ها هستند."
