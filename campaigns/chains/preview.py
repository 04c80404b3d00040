"""Inheritance preview: the next periods of a source's chain with the planned child time (no audience built)."""

from django.utils import timezone

from campaigns.chains import schedule as sched
from campaigns.chains.node_models import ChainNode
from campaigns.chains.nodes import node_get
from campaigns.chains.tree import path_to
from campaigns.platform.tenancy import Actor, scoped

# What the audience estimate can say (an enum in the API schema): only UNKNOWN, a future run's audience being
# frozen when its source runs.
AUDIENCE_ESTIMATE_STATUSES = ("UNKNOWN",)
UNKNOWN_AUDIENCE = {"status": AUDIENCE_ESTIMATE_STATUSES[0], "count": None, "cost": None}


def inheritance_preview(*, actor: Actor, source_campaign_id: int, schedule: dict, periods: int = 4, now=None) -> dict:
    """Up to four periods (period_start, next_root_at, planned_source_at, planned_child_at) plus field errors.

    The audience of a future run is unknown until its source run freezes it:
    the estimate says UNKNOWN, never a count of 0.
    """
    now = now or timezone.now()
    tz = sched.workspace_zone(actor.workspace)
    source = node_get(actor.workspace, source_campaign_id)
    result = {
        "time_zone": str(tz),
        "calendar": sched.calendar_of(tz),
        "periods": [],
        "errors": {},
        "reasons": [],
        "audience_estimate": UNKNOWN_AUDIENCE,
    }
    if source.root_id is not None:
        nodes = {n.id: n for n in scoped(ChainNode, actor.workspace).filter(root_id=source.root_id)}
        root = nodes.get(source.root_id, source)
        ancestors = path_to(source, nodes) or []
    else:
        root, ancestors = source, []
    try:
        child = sched.parse_child_schedule(schedule, prefix="schedule")
    except sched.ScheduleErrors as exc:
        result["errors"] = exc.errors
        return result
    try:
        rs = sched.parse_root_schedule(root.root_schedule or {"type": "EVENT"})
    except sched.ScheduleErrors as exc:
        result["errors"] = {"source_campaign_id": [m for ms in exc.errors.values() for m in ms]}
        return result
    structural = sched.compatibility_errors(child, rs, prefix="schedule")
    if structural:
        result["errors"] = {
            ("source_campaign_id" if k == "parent_campaign_id" else k): v for k, v in structural.items()
        }
        return result
    try:
        path = [sched.parse_child_schedule((n.inheritance or {}).get("schedule")) for n in ancestors] + [child]
    except sched.ScheduleErrors:
        result["errors"] = {"source_campaign_id": ["زمان‌بندی منبع نامعتبر است؛ ابتدا منبع را اصلاح کنید."]}
        return result
    problem = sched.feasibility_errors(rs, path, tz, now, prefix="")
    if problem is not None:
        result["errors"] = {k.lstrip("."): v for k, v in problem.errors.items()}
        result["reasons"] = [{**r, "field": r["field"].lstrip(".")} for r in problem.reasons]
    for planned in sched.preview(rs, path, tz, now, count=periods):
        result["periods"].append(
            {
                "period_start": planned.period_start,
                "next_root_at": planned.next_root_at,
                "planned_source_at": planned.planned_source_at,
                "planned_child_at": planned.planned_child_at,
                "feasible": planned.feasible,
                "shown": {  # the same times as the workspace calendar writes them (Jalali by default)
                    key: sched.show_time(value, tz) if value else None
                    for key, value in (
                        ("period_start", planned.period_start),
                        ("next_root_at", planned.next_root_at),
                        ("planned_source_at", planned.planned_source_at),
                        ("planned_child_at", planned.planned_child_at),
                    )
                },
            }
        )
    return result


ROOT_PREVIEW_RUNS = 4
WEEKDAY_NAMES = ("دوشنبه", "سه‌شنبه", "چهارشنبه", "پنجشنبه", "جمعه", "شنبه", "یکشنبه")  # Python's Monday = 0


def root_preview(*, actor: Actor, when: dict | None, count: int = ROOT_PREVIEW_RUNS, now=None) -> dict:
    """A root's next ``count`` run times from its ``when`` (the form's schedule, not yet saved), each opening a
    period, in the workspace's time zone and calendar (``shown``: «1405/01/01 09:00» in a Jalali workspace).

    ``errors``: the schedule's field errors; ``ends``: the schedule ends within the runs shown (its end date);
    ``recurring``: false for a one-off or event schedule (no period, no follow-up can run after it)."""
    now = now or timezone.now()
    tz = sched.workspace_zone(actor.workspace)
    result = {
        "time_zone": str(tz),
        "calendar": sched.calendar_of(tz),
        "runs": [],
        "errors": {},
        "ends": False,
        "recurring": False,
    }
    if not when:
        result["errors"] = {"when": ["نوع زمان‌بندی را انتخاب کنید."]}
        return result
    try:
        rs = sched.parse_root_schedule(when)
    except sched.ScheduleErrors as exc:
        result["errors"] = exc.errors
        return result
    result["recurring"] = rs.recurring
    occurrences = sched.root_occurrences(rs, tz, now)
    for at in occurrences:
        weekday = WEEKDAY_NAMES[at.astimezone(tz).weekday()]
        result["runs"].append({"at": at, "shown": sched.show_time(at, tz), "weekday": weekday})
        if len(result["runs"]) == count:
            break
    result["ends"] = len(result["runs"]) < count or next(occurrences, None) is None
    return result
