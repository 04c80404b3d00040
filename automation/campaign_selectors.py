"""Reads of the journey campaign pages: list rows with counts, health banner, names, logs, the sends chart.

Every query starts from ``scoped`` / ``execution_queryset`` (owner visibility included); numbers of the dashboard
come from ``automation.journey_stats`` (the same function as the stats endpoint).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from django.db.models import Count
from django.utils import timezone

from automation.choices import EndReason, EventType, ExecutionStatus, execution_status_badge, execution_status_label
from automation.engine.graph import published_graph
from automation.engine.registry import ACTIONS
from automation.engine.scheduler import HEARTBEAT
from automation.health import due_unclaimed, stale_queued
from automation.models import Execution, ExecutionEvent, Workflow
from automation.reasons import reason_label
from automation.selectors import execution_queryset, execution_status_counts
from campaigns.choices import CampaignKind, CampaignStatus
from campaigns.models import Campaign, PlatformHeartbeat, TargetList
from campaigns.platform.errors import NotFound
from campaigns.platform.jalali import fa_digits, to_jalali
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, scoped
from campaigns.selectors import target_queryset

S = ExecutionStatus
ENDED = "ended_with_campaign"  # a campaign row's count of journeys closed by the campaign's end time
END_REASON_LABELS = dict(EndReason.choices)
ENDING_EVENTS = {EventType.CANCELLED, EventType.COMPLETED, EventType.FAILED, EventType.BLACKLISTED}
STALE_HEARTBEAT = timedelta(minutes=5)
LIVE_CAMPAIGN = (CampaignStatus.ACTIVE, CampaignStatus.PAUSED, CampaignStatus.SCHEDULED)
# Why-not-sent reasons and channel problems in Persian (timeline, messages).
WHY_NOT_SENT_LABELS = {
    "window_closed": "بیرون از بازه ارسال",
    "limit_reached": "سقف روزانه پر بود",
    "blacklisted": "شماره در لیست سیاه است",
    "circuit_open": "کانال پیامک موقتاً قطع است",
    "no_valid_mobile": "موبایل معتبر ندارد",
    "telecom_blocked": "شماره در فهرست سیاه مخابرات برای پیامک تبلیغاتی است",
    "frequency_cap": "سقف ارسال: سقف پیامک تبلیغاتی این نفر (روز، هفته یا ماه) در همهٔ کمپین‌ها پر بود",
    "quiet_day": "روز بدون پیامک تبلیغاتی (تعطیل)",
    "conflict_skipped": "در کمپین دیگری فعال بود و افزوده نشد",
}
PROBLEM_LABELS = {
    "sms_not_configured": "سرویس پیامک تنظیم نشده است (تنظیمات ← پیامک).",
    "sms_disabled": "ارسال پیامک در تنظیمات خاموش است.",
    "sms_provider_unknown": "سرویس‌دهنده پیامک حساب اصلی شناخته‌شده نیست.",
    "no version": "کمپین نسخه گردش‌کار ندارد.",
}
# A send's status as the SMS log and a target's SMS thread name it (sms.choices.AttemptStatus), plus the outcomes of
# a step that sent nothing.
SEND_STATUS_LABELS = {
    "queued": "در نوبت ارسال",
    "sending": "در حال ارسال",
    "submitted": "تحویل پنل",
    "sent": "ارسال‌شده",
    "delivered": "رسیده",
    "failed": "ناموفق",
    "rejected": "ردشده",
    "unknown": "نامعلوم",
    "skipped": "رد شدن از گام",
    "blacklisted": "لیست سیاه",
    "cancelled": "لغوشده",
}
ENROLL_REASONS = {
    "not_found": "پیدا نشد یا در دسترس شما نیست",
    "no_valid_mobile": "موبایل معتبر ندارد",
    "blacklisted": "در لیست سیاه",
}


def journey_campaigns(*, actor: Actor, status: str = ""):
    qs = (
        scoped(Campaign, actor.workspace)
        .filter(kind=CampaignKind.JOURNEY, deleted_at__isnull=True, journey__isnull=False)
        .select_related("journey__workflow", "journey__workflow_version")
        .order_by("-id")
    )
    return qs.filter(status=status) if status else qs


@dataclass
class CampaignRow:
    campaign: Campaign
    counts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def running(self) -> int:
        return sum(self.counts.get(s, 0) for s in (S.ACTIVE, S.QUEUED, S.PROCESSING, S.WAITING))

    @property
    def done(self) -> int:
        """Finished: the path's end, or closed with the campaign at its end time (not "stopped")."""
        return self.counts.get(S.COMPLETED, 0) + self.counts.get(ENDED, 0)

    @property
    def stopped(self) -> int:
        return sum(self.counts.get(s, 0) for s in (S.FAILED, S.BLACKLISTED, S.CANCELLED))


def campaign_rows(*, actor: Actor, campaigns: list[Campaign]) -> list[CampaignRow]:
    """Execution counts per status for each campaign of one page (the counts kept with the writes); a closed
    campaign's journeys its end time cancelled count as finished (one grouped query over those campaigns)."""
    counts = execution_status_counts(actor=actor, campaign_ids=[c.id for c in campaigns])
    closed = [c.id for c in campaigns if c.status not in LIVE_CAMPAIGN]
    if closed:
        ended = (
            execution_queryset(actor=actor)
            .filter(campaign_id__in=closed, status=S.CANCELLED, end_reason=EndReason.CAMPAIGN_ENDED)
            .order_by()
            .values_list("campaign_id")
            .annotate(n=Count("id"))
        )
        for campaign_id, n in ended:
            row = counts.setdefault(campaign_id, {})
            row[S.CANCELLED] = max(row.get(S.CANCELLED, 0) - n, 0)
            row[ENDED] = n  # closed with the campaign: counted as finished
    return [CampaignRow(c, counts[c.id]) for c in campaigns]


def campaign_page_get(*, actor: Actor, campaign_id: int) -> Campaign:
    campaign = journey_campaigns(actor=actor).filter(pk=campaign_id).first()
    if campaign is None:
        raise NotFound()
    return campaign


def publishable_workflows(*, actor: Actor):
    """Workflows a campaign can be created on (a published version)."""
    return (
        scoped(Workflow, actor.workspace)
        .filter(published_version__isnull=False)
        .exclude(status="archived")
        .select_related("published_version")
        .order_by("name")
    )


def target_names(*, actor: Actor, ids) -> dict[int, Any]:
    """Visible targets by id (name, mobile) for the rows of a page."""
    return {t.id: t for t in target_queryset(actor=actor).filter(pk__in=list(set(ids)))}


# --------------------------------------------------------------------------- health
def enrollment_batch_source(*, actor: Actor, batch) -> str:
    """What an enrollment review was made from, as its heading says it: the list picked on the enroll page (a
    filter on that list alone) by its name, else «نتایج فیلتر» or «انتخاب»."""
    if batch.source != "filter":
        return "انتخاب"
    if set(batch.filters or {}) == {"list"}:
        name = scoped(TargetList, actor.workspace).filter(pk=batch.filters["list"]).values_list("name", flat=True)
        if name:
            return f"فهرست «{name[0]}»"
    return "نتایج فیلتر"


def _channel_actions(campaigns) -> dict[str, Any]:
    keys: set[str] = set()
    for campaign in campaigns:
        version_id = campaign.journey.workflow_version_id
        keys |= {n.subtype for n in published_graph(version_id).nodes if n.type == "action"}
    return {k: ACTIONS.get(k) for k in sorted(keys) if ACTIONS.get(k) is not None}


BANNER_COUNT_CAP = 1_000  # a banner says how bad it is, not the exact size of a backlog


def _capped_count(queryset) -> str:
    """ "" when nothing matches, else the count in Persian digits ("بیش از ۱٬۰۰۰" past the cap: bounded work)."""
    n = queryset.order_by()[: BANNER_COUNT_CAP + 1].count()
    if not n:
        return ""
    shown = fa_digits(f"{min(n, BANNER_COUNT_CAP):,}".replace(",", "٬"))
    return f"بیش از {shown}" if n > BANNER_COUNT_CAP else shown


def journey_health(*, actor: Actor, campaigns=None, now: datetime | None = None) -> list[dict[str, str]]:
    """Banner lines: the channel's circuit is open, the scheduler's heartbeat is stale, executions stuck queued.

    ``campaigns``: the campaigns the page is about (default: the workspace's live journey campaigns)."""
    now = now or timezone.now()
    if campaigns is None:
        campaigns = list(journey_campaigns(actor=actor).filter(status__in=LIVE_CAMPAIGN))
    live = [c for c in campaigns if c.status in LIVE_CAMPAIGN]
    lines: list[dict[str, str]] = []
    for action in _channel_actions(live).values():
        paused = action.channel_paused(actor.workspace, now)
        if paused:
            until = to_jalali(paused["until"], with_time=True)
            lines.append(
                {
                    "code": "circuit_open",
                    "text": f"کانال «{action.label or action.key}» قطع است و ارسال‌ها تا {fa_digits(until)} "
                    f"به تعویق می‌افتند ({paused['reason'] or 'بدون توضیح'}). پس از رفع مشکل، در تنظیمات پیامک "
                    "«مشکل برطرف شد؛ ادامه» را بزنید.",
                }
            )
    if any(c.status == CampaignStatus.ACTIVE for c in live):
        beat = PlatformHeartbeat.objects.filter(name=HEARTBEAT).values_list("beat_at", flat=True).first()
        if beat is None or beat < now - STALE_HEARTBEAT:
            when = "هرگز" if beat is None else f"آخرین بار {fa_digits(to_jalali(beat, with_time=True))}"
            lines.append(
                {
                    "code": "heartbeat_stale",
                    "text": f"زمان‌بند اجرا نمی‌شود ({when}): "
                    "تا زمان‌بند و پردازشگر کارهای سامانه روشن نشوند پیامکی فرستاده نمی‌شود.",
                }
            )
        executions = scoped(Execution, actor.workspace)
        stuck = _capped_count(stale_queued(executions, now))
        if stuck:
            lines.append(
                {
                    "code": "queue_stuck",
                    "text": f"{stuck} اجرا بیش از ۵ دقیقه در صف مانده‌اند: پردازشگر کارهای سفرها را بررسی کنید.",
                }
            )
        due = _capped_count(due_unclaimed(executions, now))
        if due:
            lines.append(
                {
                    "code": "due_unclaimed",
                    "text": f"{due} اجرا بیش از ۵ دقیقه از موعدشان گذشته و برداشته نشده‌اند: زمان‌بند عقب است.",
                }
            )
    return lines


def problem_text(problems) -> str:
    return " ".join(PROBLEM_LABELS.get(str(p), str(p)) for p in problems or [])


_CODE = re.compile(r"[a-z0-9_.:-]+")


def labelled(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Timeline rows (``journey_stats.timeline_entries``) with Persian labels for the event and the send."""
    out = []
    for entry in entries:
        row = entry | {"label": EventType(entry["type"]).label if entry["type"] in EventType.values else entry["type"]}
        message = entry.get("message") or ""
        data = entry.get("data") or {}
        if entry["type"] == EventType.VERSION_MIGRATED and data.get("to_version_number"):
            row["message"] = "از نسخهٔ {} به نسخهٔ {}".format(
                fa_digits(data.get("from_version_number", "")), fa_digits(data["to_version_number"])
            )
        elif entry["type"] == EventType.CANCELLED and message == EndReason.CAMPAIGN_ENDED:
            row |= {"label": EndReason.CAMPAIGN_ENDED.label, "message": "", "finished": True}  # reads finished
        elif message in END_REASON_LABELS and entry["type"] in ENDING_EVENTS:
            row["message"] = END_REASON_LABELS[message]  # why it ended, in Persian
        elif _CODE.fullmatch(message):
            row["message"] = ""  # a machine code (the why-not-sent line or the label already says it)
        else:
            row["message"] = reason_label(message)  # the engine's reason in Persian (the row keeps its own)
        if entry.get("send"):
            status = entry["send"]["status"]
            row["send"] = entry["send"] | {"status_label": SEND_STATUS_LABELS.get(status, status)}
        out.append(row)
    return out


def journeys_labelled(journeys: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The target's journeys for people: a journey its campaign's end closed reads finished, and a finished or
    cancelled campaign says so next to its name."""
    closed = (CampaignStatus.COMPLETED, CampaignStatus.CANCELLED)
    return [
        j
        | {
            "status_label": execution_status_label(j["status"], j.get("end_reason", "")),
            "status_badge": execution_status_badge(j["status"], j.get("end_reason", "")),
            "campaign_finished": j.get("campaign_status") in closed,
            "campaign_status_label": dict(CampaignStatus.choices).get(j.get("campaign_status"), ""),
        }
        for j in journeys
    ]


# --------------------------------------------------------------------------- logs, chart
def campaign_events(*, actor: Actor, campaign: Campaign, type: str = ""):
    """The campaign's execution events, newest first (roles limited to own targets see only theirs)."""
    qs = (
        scoped(ExecutionEvent, actor.workspace)
        .filter(campaign_id=campaign.id)
        .select_related("actor", "node", "campaign")
        .order_by("-occurred_at", "-id")
    )
    if actor.has(Perm.OWN_TARGETS_ONLY):  # everyone else sees every execution of the campaign: no semi-join
        qs = qs.filter(execution_id__in=execution_queryset(actor=actor, campaign_id=campaign.id).values("id"))
    return qs.filter(type=type) if type else qs


@dataclass
class Bar:
    day: date
    sent: int
    failed: int
    x: float
    height: float
    failed_height: float
    y: float
    failed_y: float
    center: float
    label: str
    show_label: bool


def sends_chart(series: list[dict[str, Any]], *, height: int = 120, width: int = 600) -> dict[str, Any]:
    """Bars of sends per day (the stats' series) for an inline SVG: coordinates computed here, drawn by the
    template (no script, no library)."""
    peak = max([s["sent"] + s["failed"] for s in series] + [1])
    step = width / max(len(series), 1)
    bars = []
    for i, s in enumerate(series):
        day = date.fromisoformat(s["day"])
        x = round(width - (i + 1) * step + step * 0.15, 2)  # right to left: the newest day on the left
        sent_h = round(height * s["sent"] / peak, 2)
        failed_h = round(height * s["failed"] / peak, 2)
        bars.append(
            Bar(
                day=day,
                sent=s["sent"],
                failed=s["failed"],
                x=x,
                center=round(x + step * 0.35, 2),
                height=sent_h,
                failed_height=failed_h,
                y=round(height - sent_h, 2),
                failed_y=round(height - sent_h - failed_h, 2),
                label=fa_digits(to_jalali(day)[5:]),
                show_label=i % 5 == 0 or i == len(series) - 1,
            )
        )
    return {"bars": bars, "peak": peak, "width": width, "height": height, "bar_width": round(step * 0.7, 2)}
