"""Browser campaigns: creation (``POST /api/v1/campaigns`` kind=browser) and platform pause/resume."""

from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from campaigns.approval_selectors import workspace_needs_approval
from campaigns.choices import CampaignStatus
from campaigns.models import Campaign
from campaigns.platform.errors import InvalidTransition, NotFound, StaleRevision, ValidationFailed
from campaigns.platform.fsm import fsm_apply
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, get_scoped, scoped
from campaigns.platform.text import text_check
from campaigns.services.lifecycle import campaign_assert_editable, campaign_status_change
from workers import conf, events
from workers.choices import BROWSER_KIND, ActionType, PlatformStatus, SessionStatus
from workers.errors import (
    AccountInactive,
    AccountNotFound,
    ActionConfigNotFound,
    CampaignNotEditable,
    PlatformNotFound,
    TooManyTasks,
)
from workers.links import MAX_LINK_LENGTH, link_hash
from workers.models import ActionConfig, BrowserAccount, CampaignPlatform, CampaignStatistics
from workers.steps import check_goto_urls, check_links, validate_login_check, validate_steps


def _accounts(actor: Actor, ids: list[int], platform: str, field: str) -> list[int]:
    ids = list(dict.fromkeys(ids))
    found = {
        a.id: a
        for a in scoped(BrowserAccount, actor.workspace).filter(pk__in=ids).only("id", "platform", "session_status")
    }
    missing = [i for i in ids if i not in found]
    if missing:
        raise AccountNotFound(details={field: [f"حساب‌های {missing} پیدا نشد."]})
    wrong_platform = [i for i in ids if found[i].platform != platform]
    if wrong_platform:
        raise AccountNotFound(details={field: [f"حساب‌های {wrong_platform} برای سکوی {platform} نیستند."]})
    inactive = [i for i in ids if found[i].session_status != SessionStatus.ACTIVE]
    if inactive:
        raise AccountInactive(details={field: [f"حساب‌های {inactive} فعال نیستند."]})
    return ids


def browser_campaign_plan(
    *,
    actor: Actor,
    platform: str,
    accounts: list[int],
    target_links: list[str],
    action: str,
    content_template: str = "",
    spare_accounts: list[int] | None = None,
    steps: list[dict] | None = None,
    login_check: dict | None = None,
    action_params: dict | None = None,
    pacing_seconds: int | None = None,
    concurrency_cap: int | None = None,
    max_attempts: int | None = None,
    backoff_seconds: int | None = None,
    priority: int = 0,
) -> dict:
    """The platform's metadata from a campaign body, every rule checked (create and draft edit share it)."""
    text_check(texts={"content_template": content_template})
    if action not in ActionType.values:
        raise ValidationFailed.field("action", f"نوع کار باید یکی از {ActionType.values} باشد.")
    if action == ActionType.COMMENT and not content_template.strip():
        raise ValidationFailed.field("content_template", "برای دیدگاه، متن الگو لازم است.")
    by_hash: dict[str, str] = {}
    for link in (link.strip() for link in target_links):
        if link:
            by_hash.setdefault(link_hash(link), link)  # one task slot per normalised link
    links = list(by_hash.values())
    if not links:
        raise ValidationFailed.field("target_links", "دست‌کم یک نشانی لازم است.")
    if any(len(link) > MAX_LINK_LENGTH for link in links):
        raise ValidationFailed.field("target_links", f"هر نشانی حداکثر {MAX_LINK_LENGTH} نویسه است.")
    account_ids = _accounts(actor, accounts, platform, "accounts")
    cap = conf.setting("MAX_TASKS_PER_PLATFORM")
    if len(account_ids) * len(links) > cap:
        raise TooManyTasks(
            f"{len(account_ids)} حساب × {len(links)} نشانی = {len(account_ids) * len(links)} وظیفه؛ "
            f"سقف هر سکو {cap} وظیفه است. حساب‌ها یا نشانی‌ها را کم کنید یا کمپین را تقسیم کنید.",
            details={
                "accounts": [f"{len(account_ids)} حساب"],
                "target_links": [f"{len(links)} نشانی"],
                "max_tasks": [str(cap)],
            },
        )
    spare_ids = [i for i in _accounts(actor, spare_accounts or [], platform, "spare_accounts") if i not in account_ids]
    if steps is None:
        config = scoped(ActionConfig, actor.workspace).filter(platform=platform, action_type=action).first()
        if config is None:
            raise ActionConfigNotFound(details={"steps": ["گام‌ها را بفرستید یا برای این سکو پیکربندی بسازید."]})
        steps = config.steps
        login_check = login_check if login_check is not None else config.login_check
    steps = validate_steps(steps)
    login_check = validate_login_check(login_check)
    check_links(links)  # where a worker may go: http(s) and public addresses only (workers.netguard)
    check_goto_urls(steps, links=links, values={"action": action})
    return {
        "account_ids": account_ids,
        "spare_account_ids": spare_ids,
        "target_links": links,
        "action_type": action,
        "action_params": action_params or {},
        "content_template": content_template,
        "steps": steps,
        "login_check": login_check,
        "pacing_seconds": conf.setting("DEFAULT_PACING_SECONDS") if pacing_seconds is None else pacing_seconds,
        "concurrency_cap": conf.setting("DEFAULT_CONCURRENCY_CAP") if concurrency_cap is None else concurrency_cap,
        "retry": {
            "max_attempts": conf.setting("DEFAULT_MAX_ATTEMPTS") if max_attempts is None else max_attempts,
            "backoff_seconds": conf.setting("DEFAULT_BACKOFF_SECONDS") if backoff_seconds is None else backoff_seconds,
        },
        "priority": priority,
    }


def browser_campaign_create(
    *,
    actor: Actor,
    name: str,
    platform: str,
    start_date: datetime | None = None,
    description: str = "",
    kind: str = BROWSER_KIND,
    **body,
) -> Campaign:
    """Campaign + platform + metadata in one transaction (the seed's CampaignService.create).

    ``body``: the arguments of ``browser_campaign_plan`` (accounts, target_links, action, …).
    """
    actor.require(Perm.MANAGE_CAMPAIGNS)
    text_check(names={"name": name}, descriptions={"description": description})
    metadata = browser_campaign_plan(actor=actor, platform=platform, **body)
    now = timezone.now()
    start_date = start_date or now
    with transaction.atomic():
        campaign = Campaign.objects.create(
            workspace=actor.workspace,
            name=name.strip(),
            description=description,
            kind=BROWSER_KIND,
            created_by=actor.user,
        )
        CampaignPlatform.objects.create(
            workspace=actor.workspace, campaign=campaign, platform=platform, start_date=start_date, metadata=metadata
        )
        CampaignStatistics.objects.create(workspace=actor.workspace, campaign=campaign)
        # active=true in the seed; a future start waits as "scheduled" and the creation job activates it.
        # In a workspace whose campaigns need approval it stays a draft: submit → approve (→ scheduled) and
        # the creation job activates it at its start date, like any approved campaign.
        if workspace_needs_approval(actor.workspace):
            return campaign
        transition = "activate" if start_date <= now else "schedule"
        return campaign_status_change(campaign=campaign, transition=transition, actor=actor, now=now)


def platform_transition(*, actor: Actor, platform_id: int, transition: str) -> CampaignPlatform:
    """Pause or resume one platform (dispatch skips paused platforms; in-flight tasks finish)."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    if transition not in {"pause", "resume"}:
        raise ValidationFailed.field("transition", "تغییر وضعیت ناشناخته است.")
    try:
        platform = get_scoped(CampaignPlatform, actor.workspace, platform_id)
    except NotFound as exc:  # the typed code of this app
        raise PlatformNotFound() from exc

    fsm_apply(platform, transition, on_applied=events.platform_status_recorder(platform, actor.user))
    return platform


def campaign_follow_platforms(*, campaign_id: int, retried: bool = False) -> str | None:
    """A browser campaign's status follows its platforms; returns the transition applied, if any.

    Every platform completed → the campaign is completed. A staff retry (``retried``) that put a
    platform back to running makes a completed campaign active again; nothing else reopens one (a
    campaign staff completed by hand stays completed). A lost race changes nothing (the next refresh
    looks again).
    """
    campaign = Campaign.objects.filter(pk=campaign_id, kind=BROWSER_KIND).first()
    if campaign is None:
        return None
    statuses = set(CampaignPlatform.objects.filter(campaign_id=campaign_id).values_list("status", flat=True))
    if campaign.status in {CampaignStatus.ACTIVE, CampaignStatus.PAUSED} and statuses == {PlatformStatus.COMPLETED}:
        transition = "complete"
    elif retried and campaign.status == CampaignStatus.COMPLETED and statuses - {PlatformStatus.COMPLETED}:
        transition = "reopen"
    else:
        return None

    try:  # the job's (or a staff retry's) continuation of what started the campaign
        campaign_status_change(campaign=campaign, transition=transition, guarded=False)
    except (StaleRevision, InvalidTransition):
        return None
    return transition


EDITABLE = {CampaignStatus.DRAFT}


def browser_campaign_update(
    *,
    actor: Actor,
    campaign_id: int,
    name: str,
    platform: str,
    start_date: datetime | None = None,
    description: str = "",
    **body,
) -> Campaign:
    """A draft's whole body again (same rules as creation); submitted or started campaigns are refused (409)."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    campaign = get_scoped(Campaign, actor.workspace, campaign_id)
    if campaign.kind != BROWSER_KIND:
        raise NotFound()
    if campaign.status not in EDITABLE:
        raise CampaignNotEditable(details={"status": campaign.status})
    campaign_assert_editable(campaign=campaign)  # the lifecycle's edit policies (chains)
    text_check(names={"name": name}, descriptions={"description": description})
    metadata = browser_campaign_plan(actor=actor, platform=platform, **body)
    with transaction.atomic():
        updated = Campaign.objects.filter(pk=campaign.pk, status__in=EDITABLE, revision=campaign.revision).update(
            name=name.strip(), description=description, revision=F("revision") + 1, updated_at=timezone.now()
        )
        if not updated:
            raise StaleRevision(details={"current_revision": campaign.revision})
        CampaignPlatform.objects.filter(campaign=campaign).update(
            platform=platform, start_date=start_date or timezone.now(), metadata=metadata, updated_at=timezone.now()
        )
    campaign.refresh_from_db()
    return campaign
