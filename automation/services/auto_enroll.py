"""Auto-enroll: a campaign's rule that brings matching targets in while it runs (journeys.md "Auto-enroll").

The rule is a target filter (the targets page's FilterSet; an empty rule is refused) plus a cursor:
the last target id examined. Each check (beat, every 5 minutes, for active campaigns) looks at
targets above the cursor in id order — by default only targets created since the rule was switched
on (``since``); existing ones only when ``include_existing`` was chosen after seeing their count.
Conflicts (live in another campaign), blacklisted and invalid targets are skipped and counted; the
system never adds a conflict on its own. At most ``PER_CHECK`` targets are added per check and
``daily_cap`` per workspace calendar day (the workspace's time zone); the cursor stops at the last
target decided, so the surplus waits for the next check. Changing the filter resets the cursor.

Two checks of one rule never run at once: a check holds the rule's row lock for its whole
transaction and another check skips a locked rule (``SKIP LOCKED``).
"""

from __future__ import annotations

import hashlib
import json
import logging
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from automation.choices import EnrollmentClass
from automation.engine.context import workspace_tz
from automation.engine.window import local_day
from automation.models import AutoEnrollRule
from automation.services.enrollment_core import CHUNK, EnrollmentReport, classify, enroll_chunk, journey_campaign
from campaigns.choices import CampaignStatus
from campaigns.filters import TargetFilter
from campaigns.models import Campaign, Membership
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.services import model_update
from campaigns.platform.tenancy import Actor, scoped
from campaigns.selectors import list_member_count, target_queryset

PER_CHECK = 200
# The columns a rule change writes (the check writes its cursor, day counts and last check itself).
RULE_FIELDS = ("filters", "filters_hash", "enabled", "daily_cap", "include_existing", "since", "cursor", "updated_by")
DEFAULT_DAILY_CAP = 200
MAX_DAILY_CAP = 5000
# Targets examined per check at most (skipped ones included); the cursor continues next time.
SCAN_MAX = 5000
K = EnrollmentClass
logger = logging.getLogger("automation.auto_enroll")


# --------------------------------------------------------------------------- filter
def _clean_filters(filters: dict[str, Any] | None) -> dict[str, Any]:
    """The filter without empty values; unknown keys and an empty rule are refused (400)."""
    if not isinstance(filters, dict):
        raise ValidationFailed.field("filters", "شرط‌ها باید یک شیء باشند.")
    known = set(TargetFilter.base_filters)
    unknown = sorted(set(filters) - known)
    if unknown:
        raise ValidationFailed.field("filters", f"شرط‌های ناشناخته: {unknown}؛ مجاز: {sorted(known)}.")
    cleaned = {k: v for k, v in filters.items() if v not in (None, "", [], {})}
    if not cleaned:
        raise ValidationFailed.field("filters", "قاعده خالی پذیرفته نیست: دست‌کم یک شرط بگذارید.")
    return dict(sorted(cleaned.items()))


def _hash(filters: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(filters, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _matching(actor: Actor, filters: dict[str, Any]):
    fs = TargetFilter(data=filters, queryset=target_queryset(actor=actor).order_by())
    if not fs.is_valid():
        raise ValidationFailed(details={"filters": fs.errors})
    return fs.qs.order_by()


def _matching_count(actor: Actor, filters: dict[str, Any], *, cap: int | None = None) -> int:
    """How many targets match; a rule on a list is counted along the list's members (``list_member_count``:
    the list's index, one probe per member) instead of the planner's scan of every target. ``cap``: at most
    ``cap + 1``."""
    list_id = filters.get("list")
    if list_id not in (None, ""):
        others = {key: value for key, value in filters.items() if key != "list"}
        fs = TargetFilter(data={**others, "list": list_id}, queryset=target_queryset(actor=actor).order_by())
        if not fs.is_valid():
            raise ValidationFailed(details={"filters": fs.errors})
        narrowed = TargetFilter(data=others, queryset=target_queryset(actor=actor).order_by()).qs.order_by()
        return list_member_count(narrowed, list_id=int(fs.form.cleaned_data["list"]), cap=cap)
    matching = _matching(actor, filters).values("id").distinct()
    return matching.count() if cap is None else matching[: cap + 1].count()


# --------------------------------------------------------------------------- reads
def auto_enroll_rule_get(*, actor: Actor, campaign_id: int) -> AutoEnrollRule | None:
    campaign = journey_campaign(actor.workspace, campaign_id, open_only=False)
    return scoped(AutoEnrollRule, actor.workspace).filter(campaign=campaign).first()


def auto_enroll_existing_count(
    *, actor: Actor, campaign_id: int, filters: dict[str, Any], cap: int | None = None
) -> int:
    """How many targets match the filter today (shown before a rule may include existing targets). ``cap`` (the
    page's live count: ``COUNT_CAP``) stops the count at ``cap + 1``, said «بیش از …»; the API counts them all."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    journey_campaign(actor.workspace, campaign_id)
    return _matching_count(actor, _clean_filters(filters), cap=cap)


# --------------------------------------------------------------------------- write
def auto_enroll_rule_set(
    *,
    actor: Actor,
    campaign_id: int,
    filters: dict[str, Any],
    enabled: bool = True,
    daily_cap: int = DEFAULT_DAILY_CAP,
    include_existing: bool = False,
    confirmed_existing_count: int | None = None,
    now: datetime | None = None,
) -> AutoEnrollRule:
    """Create or change the rule. ``include_existing`` needs ``confirmed_existing_count`` (the count the
    person saw); without it the answer is 400 carrying the count. A changed filter resets the cursor."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    now = now or timezone.now()
    campaign = journey_campaign(actor.workspace, campaign_id)
    cleaned = _clean_filters(filters)
    if not isinstance(daily_cap, int) or not 1 <= daily_cap <= MAX_DAILY_CAP:
        raise ValidationFailed.field("daily_cap", f"سقف روزانه بین ۱ و {MAX_DAILY_CAP} است.")
    digest = _hash(cleaned)
    with transaction.atomic():
        rule = scoped(AutoEnrollRule, actor.workspace).select_for_update().filter(campaign=campaign).first()
        existing_now = bool(rule and rule.include_existing and rule.filters_hash == digest)
        if include_existing and not existing_now and confirmed_existing_count is None:
            count = _matching_count(actor, cleaned)
            raise ValidationFailed(
                details={
                    "confirmed_existing_count": [
                        f"{count} مخاطب موجود با این شرط‌ها مطابق‌اند؛ برای افزودن آن‌ها همین عدد را بفرستید."
                    ],
                    "existing_count": count,
                }
            )
        is_new = rule is None
        if is_new:
            rule = AutoEnrollRule(workspace=actor.workspace, campaign=campaign)
        changed_filter = rule.filters_hash != digest
        switched_on = enabled and (is_new or not rule.enabled)
        data: dict[str, Any] = {
            "filters": cleaned,
            "filters_hash": digest,
            "enabled": enabled,
            "daily_cap": daily_cap,
            "include_existing": include_existing,
            "updated_by": actor.user,
        }
        if changed_filter or include_existing != rule.include_existing:
            data["cursor"] = 0
        if include_existing:
            data["since"] = None
        elif changed_filter or switched_on or rule.include_existing or rule.since is None:
            data["since"] = now  # "new targets": created from now on
        if is_new:
            for field, value in data.items():
                setattr(rule, field, value)
            rule.full_clean()
            rule.save()
        else:  # only the columns that changed; the check's own columns (cursor aside, day counts) stay its own
            model_update(instance=rule, fields=RULE_FIELDS, data=data)
    return rule


# --------------------------------------------------------------------------- the check
def _rule_actor(rule: AutoEnrollRule, campaign: Campaign) -> Actor:
    """The person who last set the rule, in its workspace (the check runs without a request)."""
    membership = Membership.objects.filter(workspace_id=rule.workspace_id, user_id=rule.updated_by_id).first()
    if membership is None:  # that person left: the rule runs with the workspace-wide view of targets
        membership = Membership(workspace=campaign.workspace, role="manager")
    return Actor(user=rule.updated_by if membership.pk else None, workspace=campaign.workspace, membership=membership)


def auto_enroll_check(*, rule_id: int, now: datetime | None = None) -> dict[str, Any]:
    """One check of one rule; ``{"skipped": reason}`` when it is locked by another check, off or not running."""
    now = now or timezone.now()
    with transaction.atomic():
        rule = (
            AutoEnrollRule.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("campaign__workspace")
            .filter(pk=rule_id)
            .first()
        )
        if rule is None:
            return {"skipped": "busy"}
        campaign = rule.campaign
        if not rule.enabled or campaign.deleted_at is not None or campaign.status != CampaignStatus.ACTIVE:
            return {"skipped": "not_running"}
        today = local_day(now, workspace_tz(campaign.workspace))
        if rule.day != today:
            rule.day, rule.day_count = today, 0
        budget = min(PER_CHECK, max(0, rule.daily_cap - rule.day_count))
        stats = _scan(rule, campaign, budget)
        rule.day_count += stats["enrolled"]
        rule.last_check_at = now
        if stats["examined"] or not rule.last_check:  # a check that found nobody new keeps the last useful numbers
            rule.last_check = {"at": now.isoformat(), "day": today.isoformat(), "day_count": rule.day_count, **stats}
        rule.save(update_fields=["cursor", "day", "day_count", "last_check_at", "last_check", "updated_at"])
    return stats


def _scan(rule: AutoEnrollRule, campaign: Campaign, budget: int) -> dict[str, Any]:
    actor = _rule_actor(rule, campaign)
    stats = {
        "examined": 0,
        "enrolled": 0,
        "conflicts": 0,
        "blacklisted": 0,
        "invalid": 0,
        "already_live": 0,
        "added_concurrently": 0,
        "waiting": False,
        "capped_by": "",
    }
    if budget <= 0:
        stats["waiting"] = _has_more(actor, rule)
        stats["capped_by"] = "daily_cap" if stats["waiting"] else ""
        return stats
    matching = _matching(actor, rule.filters)
    if rule.since is not None:
        matching = matching.filter(created_at__gte=rule.since)
    visible = target_queryset(actor=actor).order_by()
    remaining = budget
    while remaining > 0 and stats["examined"] < SCAN_MAX:
        ids = list(matching.filter(id__gt=rule.cursor).values_list("id", flat=True).distinct().order_by("id")[:CHUNK])
        if not ids:
            return stats
        verdicts = classify(campaign, ids, visible)
        ready: list[int] = []
        for tid in ids:
            verdict = verdicts[tid]
            if verdict.klass == K.READY:
                if remaining == 0:
                    break  # the surplus waits for the next check; the cursor stays before it
                ready.append(tid)
                remaining -= 1
            else:
                stats[
                    {K.CONFLICT: "conflicts", K.BLACKLISTED: "blacklisted", K.ALREADY_LIVE: "already_live"}.get(
                        verdict.klass, "invalid"
                    )
                ] += 1
            stats["examined"] += 1
            rule.cursor = tid
        if ready:
            report = EnrollmentReport()
            enroll_chunk(actor, campaign, ready, report, source="auto")
            stats["enrolled"] += len(report.added)
            stats["added_concurrently"] += len(report.added_concurrently)
            stats["already_live"] += len(report.already_live)
            stats["blacklisted"] += len(report.blacklisted)
            stats["invalid"] += len(report.invalid)
    stats["waiting"] = _has_more(actor, rule)
    if stats["waiting"]:
        stats["capped_by"] = (
            "daily_cap"
            if rule.day_count + stats["enrolled"] >= rule.daily_cap
            else "per_check"
            if remaining == 0
            else "scan"
        )
    return stats


def _has_more(actor: Actor, rule: AutoEnrollRule) -> bool:
    matching = _matching(actor, rule.filters).filter(id__gt=rule.cursor)
    if rule.since is not None:
        matching = matching.filter(created_at__gte=rule.since)
    return matching.exists()


def auto_enroll_check_all(*, now: datetime | None = None) -> dict[str, int]:
    """Beat (every 5 minutes): check every enabled rule of an active campaign, each in its own transaction."""
    now = now or timezone.now()
    rule_ids = list(
        AutoEnrollRule.objects.filter(
            enabled=True, campaign__status=CampaignStatus.ACTIVE, campaign__deleted_at__isnull=True
        )
        .order_by("id")
        .values_list("id", flat=True)
    )
    totals = {"rules": 0, "enrolled": 0, "busy": 0, "errors": 0}
    for rule_id in rule_ids:
        try:
            stats = auto_enroll_check(rule_id=rule_id, now=now)
        except Exception:  # one rule's failure never stops the others
            logger.exception("auto-enroll check of rule %s failed", rule_id)
            totals["errors"] += 1
            continue
        if stats.get("skipped") == "busy":
            totals["busy"] += 1
            continue
        totals["rules"] += 1
        totals["enrolled"] += stats.get("enrolled", 0)
    return totals
