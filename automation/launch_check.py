"""The launch check of a journey campaign: what pressing «شروع» would do now, computed without changing anything.

The audience is the campaign's live executions (the counts kept with the writes); each channel of the journey's
steps answers for its part (``Action.launch_facts``: who it will not reach and why, the cost against the
account's credit, its rate, what its provider would refuse); the engine adds the journeys live elsewhere, the
finish time in the workspace calendar and the blockers that disable Start (docs/journeys.md "Launch check").
Every reason is counted among the audience's sample (``campaigns.platform.counts.AudienceSample``: 2,000
targets spread over its ids, taken by index seeks on the audience's small side, read by id): exact for an
audience that small, else scaled to the audience and said as an estimate («حدود …») — never a pass over a
million rows per reason. A chain package's members share the sample and its lookups (``reads_shared``).
"""

from __future__ import annotations

import zoneinfo
from datetime import datetime
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db.models import Exists, OuterRef
from django.utils import timezone

from automation.choices import LIVE_STATUSES, LaunchReason
from automation.engine.context import effective_window, workspace_tz
from automation.engine.graph import published_graph
from automation.engine.registry import ACTIONS
from automation.engine.window import WindowError
from automation.journey_stats import _campaign_limit, cap_priority, cap_priority_said
from automation.launch_estimate import finish_at
from automation.models import AutomationSettings, Execution
from automation.selectors import (
    campaign_journey_get,
    campaign_journey_version_id,
    execution_queryset,
    execution_status_counts,
)
from automation.services.chain_runs import chain_action_graph
from automation.services.enrollment_core import journey_campaign
from campaigns.models import Campaign, Target
from campaigns.platform.bulk import ids_match
from campaigns.platform.counts import AudienceSample, audience_sample, capped_count, reads_shared, shared_read
from campaigns.platform.errors import NotFound
from campaigns.platform.jalali import fa_digits, to_jalali
from campaigns.platform.registry import package_plan
from campaigns.platform.tenancy import Actor, scoped
from campaigns.selectors import target_queryset

COUNT_CAP = 10_000
# Why a target of the audience gets no message, in the order they are met; ``subtracted``: the reason keeps
# the message from going (live elsewhere is shown, not subtracted: the journey still sends to it).
REASONS = dict(LaunchReason.choices)
NOT_BUILT = ("control_group",)
BLOCKER_MESSAGES = {"empty_audience": "کسی نیست که پیامی بگیرد: مخاطبی افزوده نشده یا همه کنار گذاشته شده‌اند."}
WARNING_MESSAGES = {
    "empty_audience": "هنوز کسی پیامی نمی‌گیرد: شروع چیزی نمی‌فرستد تا مخاطبی افزوده شود "
    "(از صفحه مخاطبان، رابط برنامه‌نویسی یا قاعده ثبت‌نام خودکار که فقط در کمپین فعال کار می‌کند).",
    "finish_after_end": "برآورد پایان ارسال بعد از پایان کمپین است؛ بخشی از پیام‌ها نمی‌رود.",
    "finish_unknown": "با بازه ارسال، سقف روزانه و روزهای بدون ارسال، پایان ارسال در یک سال آینده نیست.",
}


def said(count: int, capped: bool) -> str:
    """A count for people: «بیش از ۱۰٬۰۰۰» when it was capped."""
    text = fa_digits(f"{count:,}").replace(",", "٬")
    return f"بیش از {text}" if capped else text


def _row(reason: str, found: dict[str, Any]) -> dict[str, Any]:
    available = reason not in NOT_BUILT
    count, capped, estimated = found.get("count", 0), found.get("capped", False), found.get("estimated", False)
    text = said(count or 0, capped)
    return {
        "reason": reason,
        "label": REASONS[reason],
        "count": count if available else None,
        "capped": capped,
        "estimated": estimated,
        "available": available,
        "subtracted": found.get("subtracted", reason != "live_elsewhere"),
        "text": (f"حدود {text}" if estimated else text) if available else "هنوز ساخته نشده",
    }


def _in_another_journey(campaign) -> Exists:
    """A target (the outer row) that lives in another campaign's journey."""
    return Exists(
        Execution.objects.filter(
            workspace_id=campaign.workspace_id,
            subject_type_id=ContentType.objects.get_for_model(Target).id,
            subject_id=OuterRef("pk"),
            status__in=LIVE_STATUSES,
        ).exclude(campaign_id=campaign.id)
    )


def _live_elsewhere(campaign, people: AudienceSample) -> dict[str, Any]:
    """The sample's targets live in a journey of another campaign: their live executions read once by subject (the
    ``(workspace, subject)`` index; a package's members share the read, each leaves out its own campaign)."""
    ids = people.ids

    def read() -> list[tuple[int, int]]:
        if not ids:
            return []
        live = Execution.objects.filter(
            workspace_id=campaign.workspace_id,
            subject_type_id=ContentType.objects.get_for_model(Target).id,
            status__in=LIVE_STATUSES,
        ).filter(ids_match("subject_id", ids))
        return list(live.order_by().values_list("subject_id", "campaign_id"))

    pairs = shared_read(("live", campaign.workspace_id, tuple(ids)), read)
    return people.counted(len({subject for subject, other in pairs if other != campaign.id}))


def _settings(workspace) -> AutomationSettings:
    # Read, never created (a dry run writes nothing): a workspace without its row has the defaults.
    def read() -> AutomationSettings:
        return AutomationSettings.objects.filter(workspace=workspace).first() or AutomationSettings(workspace=workspace)

    return shared_read(("automation-settings", workspace.id), read)


def _journey_audience(actor: Actor, campaign):
    """A journey's audience as targets: the subjects of its live executions; the workspace's live targets and the
    subject ids of its live executions, in order along the one-live-per-subject index (index only: the
    sample's ids, already the audience's, then read by id among the live targets); the journey's graph."""
    executions = execution_queryset(actor=actor, campaign_id=campaign.id).filter(status__in=LIVE_STATUSES).order_by()
    targets = target_queryset(actor=actor).select_related(None).prefetch_related(None).order_by()
    first_ids = Execution.objects.filter(  # the campaign is the workspace's (scoped above)
        campaign_id=campaign.id, subject_type_id=ContentType.objects.get_for_model(Target).id, status__in=LIVE_STATUSES
    ).order_by("subject_type_id", "subject_id")
    version_id = campaign_journey_version_id(campaign)
    return (
        targets.filter(pk__in=executions.values("subject_id")),
        (targets, first_ids.values_list("subject_id", flat=True)),
        published_graph(version_id) if version_id else None,
    )


def excluded_subject_ids(
    *, actor: Actor, campaign_id: int, reason: str, now: datetime | None = None
) -> tuple[Any, int | None]:
    """The ids (a subquery) of the journey's audience kept from a message for ``reason`` — the people behind a
    count of its launch check (the campaign's targets page, ``?excluded=``) — and, when they were looked for
    among the check's sample of a larger audience (its count an estimate), the number of its targets looked at
    (None: the whole audience, or a reason counted exactly from its small side). Ids None for an unknown
    reason."""
    campaign = journey_campaign(actor.workspace, campaign_id, open_only=False)
    subjects, (targets, first_ids), graph = _journey_audience(actor, campaign)
    people = audience_sample(targets, first_ids, audience=None, members=first_ids)
    return _excluded(actor, campaign, subjects, graph, reason, now, people, sampled=targets)


def package_excluded_subject_ids(
    *, actor: Actor, package_id: int, campaign_id: int, reason: str, now: datetime | None = None
) -> tuple[Any, int | None]:
    """The ids (a subquery) of a chain package's audience as submitted kept from the member ``campaign_id``'s
    message for ``reason`` — the people behind a count of the package's check — and the number of the audience's
    first targets they were looked for among, as ``excluded_subject_ids``. 404 for a package that is not the
    workspace's or a campaign that is not a sending member of it."""
    plan = package_plan(actor=actor, package_id=package_id)
    member, action = next(((m, a) for m, a in (plan.members if plan else []) if m.id == campaign_id), (None, None))
    if member is None or not action:
        raise NotFound()
    people = _package_sample(plan)
    return _excluded(actor, member, plan.subjects, _member_graph(action), reason, now, people, sampled=plan.subjects)


def _package_sample(plan) -> AudienceSample:
    first_ids = plan.first_ids
    if first_ids is None:  # no small side given: the audience's own ids
        first_ids = plan.subjects.order_by("pk").values_list("pk", flat=True)
    return audience_sample(plan.subjects, first_ids, audience=plan.size)


def _member_graph(action: dict):
    try:
        return chain_action_graph(action)
    except ValueError:
        return None


def _excluded(
    actor: Actor, campaign, subjects, graph, reason: str, now: datetime | None, people: AudienceSample, *, sampled
) -> tuple[Any, int | None]:
    """The ids (a subquery) of ``subjects`` kept from ``graph``'s messages for ``reason`` (the same filter its
    count uses; None for a reason no channel answers), and the sample's size when they were looked for among it
    (``sampled``: the queryset the sample's ids are read from) because the audience is larger."""
    looked_at = None if people.complete else len(people.rows)
    among = sampled.filter(ids_match("id", people.ids)) if looked_at else subjects
    if reason == LaunchReason.LIVE_ELSEWHERE:
        return among.filter(_in_another_journey(campaign)).values("pk"), looked_at
    tz = workspace_tz(actor.workspace, _settings(actor.workspace))
    steps = [n for n in (graph.nodes if graph else []) if n.type == "action"]
    for key in sorted({n.subtype for n in steps}):
        hook = getattr(ACTIONS.get(key), "launch_excluded", None)
        if hook is None:
            continue
        found = hook(
            actor.workspace,
            reason=reason,
            configs=[n.config for n in steps if n.subtype == key],
            subjects=among,
            people=people,
            now=now or timezone.now(),
            tz=tz,
            priority=cap_priority(campaign),
        )
        if found is not None:
            rows, exact = found  # exact: counted from the reason's small side, not among the sample
            return rows.values("pk"), None if exact else looked_at
    return None, looked_at


def journey_launch_check(*, actor: Actor, campaign_id: int, now: datetime | None = None) -> dict[str, Any]:
    """The launch check of one journey campaign (read only): its audience is its live executions."""
    campaign = journey_campaign(actor.workspace, campaign_id, open_only=False)
    counts = execution_status_counts(actor=actor, campaign_ids=[campaign.id])[campaign.id]
    audience = sum(counts.get(s, 0) for s in LIVE_STATUSES)
    _, (targets, first_ids), graph = _journey_audience(actor, campaign)
    return campaign_check(
        actor=actor,
        campaign=campaign,
        graph=graph,
        people=audience_sample(targets, first_ids, audience=audience, members=first_ids),
        audience=audience,
        capped=False,
        now=now,
        empty_blocks=False,
    )


def campaign_check(
    *,
    actor: Actor,
    campaign,
    graph,
    people: AudienceSample,
    audience: int,
    capped: bool,
    now: datetime | None = None,
    empty_blocks: bool = True,
    first_send_at: datetime | None = None,
) -> dict[str, Any]:
    """The check of one campaign sending ``graph``'s steps to an audience of ``audience`` targets, counted among
    its sample ``people``.
    ``empty_blocks``: nobody to send to is a blocker (a chain package: its audience is the one submitted), or
    only a warning (a journey: people are enrolled after its start too, an auto-enroll rule only then).
    ``first_send_at``: nothing goes before it (a chain's first scheduled run), where the finish estimate starts."""
    now = now or timezone.now()
    settings = _settings(actor.workspace)
    tz = workspace_tz(actor.workspace, settings)
    first = people.ids[:1]
    sample = shared_read(("first", *first), lambda: Target.objects.filter(pk__in=first).first()) if first else None
    exclusions: dict[str, dict[str, Any]] = {}
    channels: list[dict[str, Any]] = []
    blockers: list[dict[str, str]] = []
    warnings: list[dict[str, str]] = []
    messages, rate, quiet, frees, cap_on = 0, None, None, None, False
    steps = [n for n in (graph.nodes if graph else []) if n.type == "action"]
    for key in sorted({n.subtype for n in steps}):
        action = ACTIONS.get(key)
        hook = getattr(action, "launch_facts", None)
        if hook is None:
            continue
        facts = hook(
            actor.workspace,
            configs=[n.config for n in steps if n.subtype == key],
            people=people,
            audience=audience,
            sample=sample,
            now=now,
            tz=tz,
            priority=cap_priority(campaign),
        )
        for reason, found in facts["exclusions"].items():
            exclusions.setdefault(reason, found)
        messages += facts["messages"]
        rate = facts["rate_per_minute"] if rate is None else min(rate, facts["rate_per_minute"] or rate)
        blockers += facts["blockers"]
        warnings += facts["warnings"]
        quiet = facts.get("quiet_day") or quiet
        frees = max(filter(None, (frees, facts.get("frees_at"))), default=None)  # the cap's waits end then
        cap_on = cap_on or bool(facts.get("frequency_cap_on"))
        channels.append(facts["details"])
    exclusions["live_elsewhere"] = _live_elsewhere(campaign, people)
    rows = [_row(r, exclusions.get(r, {})) for r in REASONS]
    capped = capped or any(r["capped"] or r["estimated"] for r in rows)
    receivers = max(0, audience - sum(r["count"] or 0 for r in rows if r["subtracted"]))
    if receivers == 0 and empty_blocks:
        blockers.insert(0, {"code": "empty_audience", "message": BLOCKER_MESSAGES["empty_audience"]})
    elif receivers == 0:
        warnings.insert(0, {"code": "empty_audience", "message": WARNING_MESSAGES["empty_audience"]})

    try:
        window = effective_window(campaign, graph.settings if graph else {}, settings, tz)
    except WindowError:
        window = None
    start = max([now, *(t for t in (campaign.starts_at, first_send_at) if t is not None)])
    limits = [x for x in (_campaign_limit(campaign), settings.global_daily_limit) if x is not None]
    finish = finish_at(
        start=start,
        messages=messages,
        rate_per_minute=rate,
        window=window,
        daily_limit=min(limits) if limits else None,
        tz=tz,
        quiet_day=quiet,
    )
    if finish is not None and frees is not None and messages:
        finish = max(finish, frees)
    if finish is None and messages:
        warnings.append({"code": "finish_unknown", "message": WARNING_MESSAGES["finish_unknown"]})
    elif finish is not None and campaign.ends_at and finish > campaign.ends_at:
        warnings.append({"code": "finish_after_end", "message": WARNING_MESSAGES["finish_after_end"]})
    return {
        "campaign_id": campaign.id,
        "campaign_name": campaign.name,
        "checked_at": now,
        "audience": audience,
        "audience_text": said(audience, capped and audience >= COUNT_CAP),
        "receivers": receivers,
        "receivers_text": said(receivers, False) + (" (برآورد)" if capped else ""),
        "receivers_estimated": capped,
        "count_cap": COUNT_CAP,
        "exclusions": rows,
        "messages": messages,
        "channels": channels,
        "finish": {
            "at": finish,
            "at_text": to_jalali(finish, with_time=True, tz=zoneinfo.ZoneInfo(tz)) if finish else "",
            "rate_per_minute": rate,
            "daily_limit": min(limits) if limits else None,
            "time_zone": tz,
        },
        "frequency_cap_priority": cap_priority_said(campaign) if cap_on else None,
        "blockers": blockers,
        "warnings": warnings,
        "ok": not blockers,
    }


def single_launch_check(*, actor: Actor, campaign_id: int, now: datetime | None = None) -> dict[str, Any] | None:
    """A standalone campaign's check before its single-campaign approval: a journey's, None for another kind."""
    campaign = scoped(Campaign, actor.workspace).filter(pk=campaign_id).first()
    if campaign is None or campaign_journey_get(campaign) is None:
        return None
    return journey_launch_check(actor=actor, campaign_id=campaign.id, now=now)


def package_launch_check(*, actor: Actor, package_id: int, now: datetime | None = None) -> dict[str, Any]:
    """The check of every member of a chain approval package (read only). The root sends to its audience now
    (its list and filters as submitted); a follow-up reaches at most the root's audience (who is in it depends on
    the runs), so its counts are that upper bound; its finish estimate starts at its own first planned run
    (``first_runs``). The package's app gives its plan through the kernel registry (``package_plan``): the engine
    names no chain code."""
    plan = package_plan(actor=actor, package_id=package_id)
    if plan is None:
        raise NotFound()
    checks = []
    with reads_shared():  # every member reads the same audience: its sample and lookups are read once
        people = _package_sample(plan)
        if plan.size is not None or people.complete:  # a whole list's kept size, or all of it in the sample
            audience, capped = people.audience, False
        else:  # a filtered audience larger than the sample: counted up to the cap
            found = capped_count(plan.subjects, COUNT_CAP)
            audience, capped = found["count"], found["capped"]
        for member, action in plan.members:
            if not action:
                continue
            checks.append(
                campaign_check(
                    actor=actor,
                    campaign=member,
                    graph=_member_graph(action),
                    people=people,
                    audience=audience,
                    capped=capped,
                    now=now,
                    first_send_at=plan.first_runs.get(member.id, plan.first_run_at),
                )
            )
    blockers = [
        {"code": b["code"], "message": f"«{c['campaign_name']}»: {b['message']}"} for c in checks for b in c["blockers"]
    ]
    return {"package_id": plan.package_id, "members": checks, "blockers": blockers, "ok": not blockers}
