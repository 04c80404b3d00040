"""Lift: conversions of the treated part of a run's frozen audience against its CONTROL part.

* **Treated** = the non-CONTROL members of the FROZEN audience that were actually sent: the run created
  an execution for them (``RunExecution.execution_id``). A member the engine refused (no mobile,
  blacklisted) and the members a FAILED run never reached got no message, so they are in neither part;
  **control** = the CONTROL members (held out deterministically by the campaign's A/B seed, never sent,
  never inherited).
* A member **converted** when a conversion event matching the root goal happened in
  [run started_at, started_at + the campaign's attribution window] (the same window as the audience
  classes); status goals are recorded for control members too (``conversions_from_target_status``).
* Difference = treated rate − control rate with a 95 % confidence interval (two-proportion Wald interval,
  z = 1.96). Below ``MIN_PER_ARM`` people in either part the report says "not enough data" and gives no
  difference. A campaign's (chain node's) report adds up the parts of all its runs that started.
"""

from __future__ import annotations

import math
from datetime import timedelta

from campaigns.chains.node_models import ChainNode
from campaigns.chains.run_models import CampaignRun, ConversionEvent, RunAudienceMember, RunExecution
from campaigns.chains.runs.audience import goal_event_names
from campaigns.chains.runs.choices import SnapshotStatus
from campaigns.platform.jalali import fa_digits

MIN_PER_ARM = 30
Z95 = 1.959964
NOT_ENOUGH = "داده کافی نیست: هر گروه (دریافت‌کنندگان و کنترل) دست‌کم ۳۰ نفر لازم دارد."


def lift_numbers(treated: int, treated_conversions: int, control: int, control_conversions: int) -> dict:
    """Rates, difference and its 95 % interval; ``enough_data`` false (and no difference) below the minimum."""
    result = {
        "treated": treated,
        "treated_conversions": treated_conversions,
        "control": control,
        "control_conversions": control_conversions,
        "treated_rate": treated_conversions / treated if treated else None,
        "control_rate": control_conversions / control if control else None,
        "difference": None,
        "ci_low": None,
        "ci_high": None,
        "enough_data": treated >= MIN_PER_ARM and control >= MIN_PER_ARM,
        "message": NOT_ENOUGH,
    }
    if not result["enough_data"]:
        return result
    pt, pc = result["treated_rate"], result["control_rate"]
    difference = pt - pc
    margin = Z95 * math.sqrt(pt * (1 - pt) / treated + pc * (1 - pc) / control)
    result.update(difference=difference, ci_low=difference - margin, ci_high=difference + margin)
    result["message"] = _verdict(result["ci_low"], result["ci_high"])
    return result


def _verdict(low: float, high: float) -> str:
    if low > 0:
        return "پیام اثر مثبت معنادار داشته است (بازه ۹۵٪ بالای صفر)."
    if high < 0:
        return "دریافت‌کنندگان کمتر از گروه کنترل تبدیل شده‌اند (بازه ۹۵٪ زیر صفر)."
    return "تفاوت معناداری با گروه کنترل دیده نمی‌شود (بازه ۹۵٪ صفر را در بر دارد)."


def _parts(run: CampaignRun) -> tuple[int, int, int, int]:
    """(treated, treated converted, control, control converted) of one started run with a frozen audience."""
    snapshot = run.target_snapshot
    if run.started_at is None or snapshot is None or snapshot.status != SnapshotStatus.FROZEN:
        return 0, 0, 0, 0
    members = dict(RunAudienceMember.objects.filter(build_id=snapshot.build_id).values_list("target_id", "is_control"))
    names = goal_event_names(run.campaign.goal)
    converted: set[int] = set()
    if names and members:
        end = run.started_at + timedelta(days=run.campaign.attribution_window_days or 0)
        converted = set(
            ConversionEvent.objects.filter(
                workspace_id=run.workspace_id,
                target_id__in=list(members),
                name__in=names,
                occurred_at__gte=run.started_at,
                occurred_at__lte=end,
            ).values_list("target_id", flat=True)
        )
    control = {t for t, is_control in members.items() if is_control}
    sent = set(RunExecution.objects.filter(run=run, execution_id__isnull=False).values_list("target_id", flat=True))
    treated = (set(members) - control) & sent
    return len(treated), len(treated & converted), len(control), len(control & converted)


def run_lift(run: CampaignRun) -> dict:
    return {"run_id": run.id, "campaign_id": run.campaign_id, **lift_numbers(*_parts(run))}


def campaign_lift(campaign: ChainNode) -> dict:
    """A chain node's lift over every run of it that started (its parts added up, never averaged)."""
    totals = [0, 0, 0, 0]
    runs = CampaignRun.objects.filter(campaign=campaign, started_at__isnull=False).select_related(
        "campaign", "target_snapshot"
    )
    for run in runs:
        totals = [a + b for a, b in zip(totals, _parts(run), strict=True)]
    return {"run_id": None, "campaign_id": campaign.id, **lift_numbers(*totals)}


def percent_text(value: float | None) -> str:
    """0.125 → «۱۲٫۵٪»; None → «—»."""
    if value is None:
        return "—"
    return fa_digits(f"{value * 100:.1f}".replace(".", "٫")) + "٪"


def lift_rows(lift: dict) -> list[tuple[str, str]]:
    """The report as (label, value) lines — the runs page and the export show the same lines."""
    rows = [
        ("دریافت‌کنندگان", f"{fa_digits(lift['treated'])} نفر، {fa_digits(lift['treated_conversions'])} تبدیل"),
        ("گروه کنترل", f"{fa_digits(lift['control'])} نفر، {fa_digits(lift['control_conversions'])} تبدیل"),
        ("نرخ تبدیل دریافت‌کنندگان", percent_text(lift["treated_rate"])),
        ("نرخ تبدیل گروه کنترل", percent_text(lift["control_rate"])),
    ]
    if lift["enough_data"]:
        interval = f"{percent_text(lift['ci_low'])} تا {percent_text(lift['ci_high'])}"
        rows += [("تفاوت (lift)", percent_text(lift["difference"])), ("بازه اطمینان ۹۵٪", interval)]
    rows.append(("نتیجه", lift["message"]))
    return rows
