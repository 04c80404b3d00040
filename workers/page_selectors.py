"""Reads the browser pages need beyond the API's: pickers, failure groups, the progress chart."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, OuterRef, Q, Subquery
from django.db.models.functions import Trunc

from campaigns.platform.jalali import fa_digits, to_jalali
from campaigns.platform.tenancy import Actor, scoped
from workers.choices import ActionType, ErrorCode, TaskStatus
from workers.models import ActionConfig, BrowserTask
from workers.selectors import account_queryset, proxy_queryset

EXAMPLES = 3
BUCKETS = [  # (Trunc kind, width): the finest that keeps a chart within ~40 bars
    ("minute", timedelta(minutes=1)),
    ("hour", timedelta(hours=1)),
    ("day", timedelta(days=1)),
]


def live_accounts(*, actor: Actor):
    """Accounts not deleted, with the error of their latest failed task (the list's "last error")."""
    last_failure = BrowserTask.objects.filter(account=OuterRef("pk"), status=TaskStatus.FAILED).order_by(
        "-finished_at", "-id"
    )
    return (
        account_queryset(actor=actor)
        .filter(deleted_at__isnull=True)
        .select_related("proxy")
        .defer("proxy__password")
        .annotate(
            last_error_code=Subquery(last_failure.values("error_code")[:1]),
            last_error_at=Subquery(last_failure.values("finished_at")[:1]),
        )
    )


def live_proxies(*, actor: Actor):
    return proxy_queryset(actor=actor).filter(deleted_at__isnull=True)


def configured_platforms(*, actor: Actor) -> list[str]:
    """Platforms with an action config: the ones a new account may be for (its tasks come from those configs)."""
    return sorted(set(scoped(ActionConfig, actor.workspace).values_list("platform", flat=True)))


def platform_names(*, actor: Actor) -> list[str]:
    """Platforms the workspace has accounts or action configs for (the create page's choices)."""
    names = set(live_accounts(actor=actor).values_list("platform", flat=True))
    names |= set(scoped(ActionConfig, actor.workspace).values_list("platform", flat=True))
    return sorted(names)


def action_config_rows(*, actor: Actor) -> list[dict]:
    """The workspace's action configs as "platform / action: goto → click #like → …" (the create page's hint)."""
    labels = dict(ActionType.choices)
    rows = []
    for config in scoped(ActionConfig, actor.workspace).order_by("platform", "action_type"):
        steps = [
            " ".join(str(v) for v in (s.get("action"), s.get("selector") or s.get("text")) if v) for s in config.steps
        ]
        rows.append({"platform": config.platform, "action": labels.get(config.action_type), "steps": " → ".join(steps)})
    return rows


def failure_groups(*, actor: Actor, campaign) -> list[dict]:
    """Failed tasks by error code: count (of them taken over by a spare account), a few examples (newest first)."""
    failed = scoped(BrowserTask, actor.workspace).filter(campaign=campaign, status=TaskStatus.FAILED)
    groups = []
    labels = dict(ErrorCode.choices)
    rows = failed.values("error_code").annotate(n=Count("id"), replaced=Count("replaced_by"))
    for row in rows.order_by("-n", "error_code"):
        examples = list(
            failed.filter(error_code=row["error_code"])
            .select_related("account")
            .defer("account__cookies")
            .order_by("-finished_at", "-id")[:EXAMPLES]
        )
        code = row["error_code"]
        groups.append(
            {
                "code": code or "—",
                "label": labels.get(code, code or "—"),
                "count": row["n"],
                "replaced": row["replaced"],
                "examples": examples,
            }
        )
    return groups


@dataclass
class Bar:
    label: str
    completed: int
    failed: int
    x: float
    y: float
    height: float
    failed_y: float
    failed_height: float
    center: float
    show_label: bool


def progress_chart(*, actor: Actor, campaign, tz, width: int = 600, height: int = 120) -> dict:
    """Completed / failed tasks per time bucket, as coordinates for an inline SVG (right to left, RTL)."""
    finished = scoped(BrowserTask, actor.workspace).filter(
        campaign=campaign, status__in=[TaskStatus.COMPLETED, TaskStatus.FAILED], finished_at__isnull=False
    )
    span = finished.order_by("finished_at").values_list("finished_at", flat=True)
    first, last = span.first(), finished.order_by("-finished_at").values_list("finished_at", flat=True).first()
    if first is None:
        return {"bars": [], "peak": 0, "width": width, "height": height, "bar_width": 0}
    kind, step_width = next(((k, w) for k, w in BUCKETS if (last - first) / w <= 40), BUCKETS[-1])
    rows = (
        finished.annotate(bucket=Trunc("finished_at", kind, tzinfo=tz))
        .values("bucket")
        .annotate(
            completed=Count("id", filter=Q(status=TaskStatus.COMPLETED)),
            failed=Count("id", filter=Q(status=TaskStatus.FAILED)),
        )
        .order_by("bucket")
    )
    by_bucket = {r["bucket"]: r for r in rows}
    buckets: list[datetime] = []
    at = min(by_bucket)
    while at <= max(by_bucket) and len(buckets) < 60:
        buckets.append(at)
        at = at + step_width
    peak = max([r["completed"] + r["failed"] for r in by_bucket.values()] + [1])
    step = width / max(len(buckets), 12)  # a few bars stay bar-shaped
    bars = []
    for i, at in enumerate(buckets):
        row = by_bucket.get(at, {"completed": 0, "failed": 0})
        x = round(width - (i + 1) * step + step * 0.15, 2)
        done_h = round(height * row["completed"] / peak, 2)
        failed_h = round(height * row["failed"] / peak, 2)
        label = to_jalali(at, with_time=kind != "day", tz=tz)
        bars.append(
            Bar(
                label=fa_digits(label if kind == "day" else label[-5:]),
                completed=row["completed"],
                failed=row["failed"],
                x=x,
                y=round(height - done_h, 2),
                height=done_h,
                failed_y=round(height - done_h - failed_h, 2),
                failed_height=failed_h,
                center=round(x + step * 0.35, 2),
                show_label=i % 6 == 0 or i == len(buckets) - 1,
            )
        )
    return {"bars": bars, "peak": peak, "width": width, "height": height, "bar_width": round(step * 0.7, 2)}
