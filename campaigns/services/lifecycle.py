"""The one owner of a Campaign's status: every transition and its ``status_changed`` event go through here.

``campaign_status_change`` runs, in this order:

1. the **policies** other parts of the product registered (``register_campaign_policy``; chains
   registers the chain-member guard and routes a chain root's pause / resume / cancel to chain
   control) — only for a request (``guarded=True``, the default). A policy raises to refuse, returns a
   ``Campaign`` when it handled the request itself, or ``None`` to go on; then the **approval gate**
   (``campaign_assert_startable``): a draft does not start where the workspace's campaigns need approval
   (``campaigns.services.approval``);
2. the request's own ``check`` (e.g. a journey's channels must be usable to start or resume it), after
   the policies so that a chain member is routed before its channels are looked at;
3. the compare-and-set UPDATE (``campaigns.platform.fsm.fsm_apply``) with the lifecycle's own columns
   (``paused_at`` / ``paused_by``) and one ``CampaignEvent`` row, in one transaction;
4. a start (first time active) or a finish notifies the campaign's creator
   (``campaigns.notifications.services.campaign_status_notify``), in the same transaction;
5. the kind's **effects** for the moment (``CampaignKindHandler.effects``, e.g. a journey activates its
   pending executions on start), in the same transaction.

A lost race (another writer changed the row first) raises ``StaleRevision``: no event, no effect.
System paths that only continue what a request or an approval already allowed (the scheduler at
``starts_at`` / ``ends_at``, the browser creation job, chain approval, runs and chain control) pass
``guarded=False``; ``UNGUARDED`` below names each of them and why, and
``tests/platform/test_unguarded_transitions.py`` fails on any other. ``tests/platform/test_activation_guard.py``
fails when another module applies a Campaign transition itself.
"""

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from campaigns.approval_selectors import workspace_needs_approval
from campaigns.choices import CampaignStatus
from campaigns.errors import ApprovalRequired, LaunchBlocked
from campaigns.events import campaign_status_changed_event
from campaigns.models import Campaign
from campaigns.platform.fsm import fsm_apply
from campaigns.platform.registry import Registry, campaign_kind_handler
from campaigns.platform.tenancy import Actor

# Transition → the moment a campaign kind reacts to (its effects, after the write).
MOMENTS = {
    "activate": "start",
    "pause": "pause",
    "resume": "resume",
    "cancel": "cancel",
    "complete": "finish",
}

# Transitions that start a campaign (``scheduled`` turns ``active`` at its start without a person).
START_TRANSITIONS = ("schedule", "activate")

# The system paths that change a status with ``guarded=False`` (module, function) → why they skip the
# policies and the approval gate: each only continues what a request or an approval already allowed.
UNGUARDED: dict[tuple[str, str], str] = {
    ("automation/engine/scheduler.py", "_campaign_transition"): "the journey scheduler at starts_at / ends_at",
    ("workers/services/creation.py", "scheduled_campaigns_activate"): "the browser creation job at the start date",
    ("workers/services/campaigns.py", "campaign_follow_platforms"): "a browser campaign follows its platforms",
    ("campaigns/chains/services/approval.py", "campaign_submit"): "a chain submits as one package",
    ("campaigns/chains/services/approval.py", "package_approve"): "chain approval",
    ("campaigns/chains/services/approval.py", "_close"): "chain approval: reject / withdraw a package",
    ("campaigns/chains/services/common.py", "withdraw_current_package"): "an edit returns a package to draft",
    ("campaigns/chains/runs/dispatch.py", "_campaign_started"): "the first chain run starts its campaign",
    ("campaigns/chains/runs/completion.py", "_finish"): "the chain's schedule is exhausted",
    ("campaigns/chains/runs/control.py", "chain_control_effects"): "chain control (pause / resume / stop)",
}

# transition(*, actor: Actor | None, campaign: Campaign, transition: str) → Campaign | None (raise to refuse)
POLICIES: Registry[Callable] = Registry("campaign_policies")
# edit(*, campaign: Campaign) → None (raise to refuse a change of the campaign's configuration)
EDIT_POLICIES: Registry[Callable] = Registry("campaign_edit_policies")


def register_campaign_policy(name: str, *, transition: Callable | None = None, edit: Callable | None = None) -> None:
    """Called from an ``AppConfig.ready()`` (chains registers its approval and chain-control rules)."""
    if transition is not None:
        POLICIES.register(name, transition)
    if edit is not None:
        EDIT_POLICIES.register(name, edit)


def campaign_assert_editable(*, campaign: Campaign) -> None:
    """Before a service changes a campaign's configuration (a chain member is edited through its chain)."""
    for _, edit in EDIT_POLICIES:
        edit(campaign=campaign)


def campaign_assert_startable(*, campaign: Campaign, transition: str = "activate") -> None:
    """The approval gate: a draft does not start without approval where the workspace's campaigns need it."""
    if transition in START_TRANSITIONS and campaign.status == CampaignStatus.DRAFT:
        if workspace_needs_approval(campaign.workspace):
            raise ApprovalRequired()


def campaign_assert_launch_clear(*, check: dict | None, doing: str) -> None:
    """Start and Approve refuse (409 ``LAUNCH_BLOCKED``, every blocker in ``details``) while the launch check
    ``check`` has blockers; its warnings never refuse, and nobody overrides a blocker: its cause is fixed
    (docs/journeys.md "Launch check"). ``None``: no check for this campaign (no engine, another kind)."""
    blockers = (check or {}).get("blockers") or []
    if blockers:
        raise LaunchBlocked.naming(blockers, doing=doing)


def _own_updates(transition: str, actor: Actor | None, now: datetime) -> dict[str, Any]:
    if transition == "pause":
        return {"paused_at": now, "paused_by": actor.user if actor else None}
    if transition == "resume":
        return {"paused_at": None, "paused_by": None}
    return {}


def campaign_status_change(
    *,
    campaign: Campaign,
    transition: str,
    actor: Actor | None = None,
    extra_updates: dict[str, Any] | None = None,
    event_data: dict[str, Any] | None = None,
    guarded: bool = True,
    check: Callable[[], None] | None = None,
    now: datetime | None = None,
) -> Campaign:
    """Apply one Campaign FSM transition (see the module docstring); returns the updated campaign."""
    now = now or timezone.now()
    if guarded:
        for _, policy in POLICIES:
            handled = policy(actor=actor, campaign=campaign, transition=transition)
            if handled is not None:
                return handled
        campaign_assert_startable(campaign=campaign, transition=transition)
    if check is not None:
        check()
    user = actor.user if actor else None

    def record(from_status: str, to_status: str) -> None:
        from campaigns.notifications.services import campaign_status_notify

        campaign_status_changed_event(
            campaign=campaign, from_status=from_status, to_status=to_status, actor=user, data=event_data
        )
        campaign_status_notify(campaign=campaign, from_status=from_status, to_status=to_status, data=event_data)

    updates = {**_own_updates(transition, actor, now), **(extra_updates or {})}
    with transaction.atomic():
        fsm_apply(campaign, transition, values=updates, now=now, on_applied=record)
        handler = campaign_kind_handler(campaign.kind)
        effect = handler.effects.get(MOMENTS.get(transition)) if handler else None
        if effect is not None:
            effect(campaign=campaign, actor=user, now=now)
    return campaign


def campaign_status_change_all(campaigns: list[Campaign], transition: str, **kwargs) -> None:
    """The same transition on several campaigns (a chain); a lost race raises and the caller rolls back all."""
    for campaign in campaigns:
        campaign_status_change(campaign=campaign, transition=transition, **kwargs)
