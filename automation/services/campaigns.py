"""Journey campaign writes: create (pins the published version), update, delete (drafts),
activate/pause/resume/cancel.

Status changes go through the campaign lifecycle (``campaigns.services.lifecycle``): its policies refuse
a chain member's start (409 ``CHAIN_MEMBER``) or a start that needs approval (409 ``APPROVAL_REQUIRED``) and
route pause/resume/cancel of a chain member to chain control; the journey's effects (pending executions
activated on start, live ones cancelled on cancel) are registered on its kind (``automation.apps``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from celery import current_app
from django.db import transaction
from django.utils import timezone

from automation.choices import EndReason
from automation.engine.campaign_effects import cancel_live_executions
from automation.engine.registry import FACTS
from automation.engine.scheduler import TICK_TASK, channel_problems
from automation.engine.window import WindowError, window_for_save
from automation.errors import CampaignClosed, CampaignNotDraft, CampaignNotJourney, ChannelUnusable, NotPublished
from automation.launch_check import journey_launch_check
from automation.models import CampaignJourney, Workflow
from automation.selectors import campaign_journey_get
from campaigns.choices import CampaignKind, CampaignStatus, CapPriority
from campaigns.events import campaign_deleted_event, campaign_updated_event
from campaigns.models import Campaign, TargetList
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.services import model_update
from campaigns.platform.tenancy import Actor, get_scoped
from campaigns.platform.text import text_check
from campaigns.services.lifecycle import campaign_assert_editable, campaign_assert_launch_clear, campaign_status_change

SETTINGS_KEYS = {"stop_when_target_status_in", "stop_when_facts", "frequency_cap_priority"}


def _stop_facts_problem(value: Any) -> str | None:
    """``stop_when_facts``: a list of registered facts offered as a stop (``Fact.stop_label``)."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > 20:
        return "stop_when_facts باید فهرستی از حداکثر ۲۰ کلید باشد."
    offered = {key for key, fact in FACTS if fact.stop_label}
    unknown = [str(key)[:60] for key in value if key not in offered]
    return f"شرط توقف ناشناخته: {unknown}" if unknown else None


def _journey_fields(*, starts_at, ends_at, daily_limit, send_window, settings) -> dict[str, Any]:
    """The campaign's journey fields, checked (``ValidationFailed`` naming each wrong one)."""
    errors: dict[str, list[str]] = {}
    if starts_at and ends_at and ends_at <= starts_at:
        errors["ends_at"] = ["پایان باید بعد از شروع باشد."]
    if daily_limit is not None and daily_limit < 1:
        errors["daily_limit"] = ["سقف روزانه باید دست‌کم ۱ باشد."]
    try:
        window_for_save(send_window)
    except WindowError as exc:
        errors["send_window"] = [f"بازه ارسال نامعتبر است: {exc}"]
    unknown = set(settings or {}) - SETTINGS_KEYS
    if unknown:
        errors["settings"] = [f"کلیدهای ناشناخته: {sorted(unknown)}"]
    elif problem := _stop_facts_problem((settings or {}).get("stop_when_facts")):
        errors["settings"] = [problem]
    elif (settings or {}).get("frequency_cap_priority", CapPriority.NORMAL) not in CapPriority.values:
        errors["settings"] = ["اولویت در سقف پیامک تبلیغاتی باید بالا، عادی یا پایین باشد."]
    if errors:
        raise ValidationFailed(details=errors)
    return {
        "starts_at": starts_at,
        "ends_at": ends_at,
        "daily_limit": daily_limit,
        "send_window": send_window,
        "journey_settings": settings or {},
    }


def journey_campaign_create(
    *,
    actor: Actor,
    name: str,
    workflow_id: int,
    description: str = "",
    starts_at: datetime | None = None,
    ends_at: datetime | None = None,
    daily_limit: int | None = None,
    send_window: dict[str, Any] | None = None,
    settings: dict[str, Any] | None = None,
    source_target_list_id: int | None = None,
    **_: Any,
) -> Campaign:
    """Create a draft journey campaign pinned to the workflow's published version."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    text_check(names={"name": name}, descriptions={"description": description})
    if not (name or "").strip():
        raise ValidationFailed.field("name", "نام کمپین لازم است.")
    workflow = get_scoped(Workflow, actor.workspace, workflow_id)
    if workflow.published_version_id is None:
        raise NotPublished()
    fields = _journey_fields(
        starts_at=starts_at, ends_at=ends_at, daily_limit=daily_limit, send_window=send_window, settings=settings
    )
    source = get_scoped(TargetList, actor.workspace, source_target_list_id) if source_target_list_id else None
    with transaction.atomic():
        campaign = Campaign.objects.create(
            workspace=actor.workspace,
            name=name.strip(),
            description=description,
            kind=CampaignKind.JOURNEY,
            created_by=actor.user,
            source_target_list=source,
            **fields,
        )
        CampaignJourney.objects.create(
            campaign=campaign,
            workspace=actor.workspace,
            workflow=workflow,
            workflow_version_id=workflow.published_version_id,
        )
    return campaign


def _journey(actor: Actor, campaign_id: int) -> Campaign:
    campaign = get_scoped(Campaign, actor.workspace, campaign_id)
    if campaign.kind != CampaignKind.JOURNEY:
        raise CampaignNotJourney()
    return campaign


def _channels_usable(campaign: Campaign) -> None:
    problems = channel_problems(campaign) if campaign_journey_get(campaign) else ["no version"]
    if problems:
        raise ChannelUnusable(details={"problems": problems})


def _sendable(actor: Actor, campaign: Campaign, *, starting: bool) -> None:
    """Activate / resume: the channels usable; a start (from draft) also has no blocker in its launch check
    (409 ``LAUNCH_BLOCKED``, the same refusal on the page and in the API)."""
    _channels_usable(campaign)
    if starting:
        check = journey_launch_check(actor=actor, campaign_id=campaign.id)
        campaign_assert_launch_clear(check=check, doing="شروع")


def journey_campaign_transition(*, actor: Actor, campaign_id: int, action: str) -> Campaign:
    """activate (or schedule when starts_at is ahead) / pause / resume / cancel."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    if action not in ("activate", "pause", "resume", "cancel"):
        raise ValidationFailed.field("action", "عملیات ناشناخته است.")
    campaign = _journey(actor, campaign_id)
    now = timezone.now()
    transition = action
    if action == "activate" and campaign.starts_at and campaign.starts_at > now:
        if campaign.status == CampaignStatus.DRAFT:
            transition = "schedule"
    starting = action == "activate" and campaign.status == CampaignStatus.DRAFT
    check = (lambda: _sendable(actor, campaign, starting=starting)) if action in ("activate", "resume") else None
    campaign = campaign_status_change(campaign=campaign, transition=transition, actor=actor, check=check, now=now)
    if campaign.status == CampaignStatus.ACTIVE:
        _tick_soon()
    return campaign


def _tick_soon() -> None:
    """Run the scheduler right after the commit rather than at the next minute's beat, so the first sends of a
    campaign just started or resumed leave within seconds. Safe to add: ticks never overlap (advisory lock),
    and a tick with nothing due claims nothing."""
    transaction.on_commit(lambda: current_app.signature(TICK_TASK).delay())


# --------------------------------------------------------------------------- update / delete
# API field → Campaign column. The workflow and its pinned version never change after creation.
UPDATABLE = {
    "name": "name",
    "description": "description",
    "starts_at": "starts_at",
    "ends_at": "ends_at",
    "daily_limit": "daily_limit",
    "send_window": "send_window",
    "settings": "journey_settings",
}
PINNED = ("workflow_id", "workflow_version_id", "workflow", "workflow_version")


def journey_campaign_update(*, actor: Actor, campaign_id: int, changes: dict[str, Any]) -> Campaign:
    """Change name, description, dates, daily limit, send window or settings (only the keys given).

    The pinned workflow/version → 400 (create a new campaign for another version); a finished or
    cancelled campaign → 409 ``CAMPAIGN_CLOSED``; a chain member → 409 (edited through its chain).
    """
    actor.require(Perm.MANAGE_CAMPAIGNS)
    text_check(names={"name": changes.get("name")}, descriptions={"description": changes.get("description")})
    pinned = [k for k in PINNED if k in changes]
    if pinned:
        raise ValidationFailed(
            details={k: ["گردش‌کار و نسخه کمپین پس از ساخت ثابت‌اند؛ برای نسخه دیگر کمپین تازه بسازید."] for k in pinned}
        )
    unknown = sorted(set(changes) - set(UPDATABLE))
    if unknown:
        raise ValidationFailed(details={k: ["این فیلد قابل ویرایش نیست."] for k in unknown})
    with transaction.atomic():
        campaign = _journey(actor, campaign_id)
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        campaign_assert_editable(campaign=campaign)
        if campaign.status in (CampaignStatus.COMPLETED, CampaignStatus.CANCELLED):
            raise CampaignClosed("کمپین پایان‌یافته یا لغوشده ویرایش نمی‌شود.")
        data = {UPDATABLE[k]: v for k, v in changes.items()}
        if "name" in data:
            data["name"] = (data["name"] or "").strip()
            if not data["name"]:
                raise ValidationFailed.field("name", "نام کمپین لازم است.")
        if "journey_settings" in data:
            data["journey_settings"] = data["journey_settings"] or {}
        merged = {f: data.get(f, getattr(campaign, f)) for f in ("starts_at", "ends_at", "daily_limit", "send_window")}
        _journey_fields(**merged, settings=data.get("journey_settings"))
        campaign, changed = model_update(instance=campaign, fields=list(UPDATABLE.values()), data=data)
        if changed:
            campaign_updated_event(campaign=campaign, actor=actor.user, fields=list(changes))
    return campaign


def journey_campaign_delete(*, actor: Actor, campaign_id: int) -> None:
    """Delete a draft (soft; its pending executions are cancelled, its auto-enroll rule switched off).

    Any other status → 409 ``CAMPAIGN_NOT_DRAFT``: cancel it instead (its history stays). Chain members
    are deleted through their chain (409).
    """
    actor.require(Perm.MANAGE_CAMPAIGNS)
    from automation.models import AutoEnrollRule

    with transaction.atomic():
        campaign = _journey(actor, campaign_id)
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        campaign_assert_editable(campaign=campaign)
        if campaign.status != CampaignStatus.DRAFT:
            raise CampaignNotDraft(
                details={"status": campaign.status, "cancel": f"/api/v1/campaigns/{campaign.id}/journey/cancel"}
            )
        now = timezone.now()
        cancel_live_executions(campaign_id=campaign.id, reason=EndReason.CAMPAIGN_CANCELLED, now=now)
        AutoEnrollRule.objects.filter(campaign=campaign).update(enabled=False, updated_at=now)
        Campaign.objects.filter(pk=campaign.pk, deleted_at__isnull=True).update(deleted_at=now, updated_at=now)
        campaign_deleted_event(campaign=campaign, actor=actor.user)
