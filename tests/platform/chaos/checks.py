"""The promises checked once the chaos run has settled, from the database and what the provider accepted.

- duplicates: messages the provider accepted beyond the first per (execution, node, cycle) — a customer
  who got the same step twice;
- lost: attempts the platform records as accepted that the provider never accepted, plus executions
  still claimed (queued/processing) after the settle;
- unknown_unsettled: attempts still ``sending``/``queued``/``unknown`` after the settle, and messages the
  provider accepted that no attempt knows of;
- limit_breaches: a campaign's accepted messages beyond its daily limit on a workspace calendar day;
- window_breaches: a window journey's message requested outside the window (1 s grace: the guard runs a
  moment before the request);
- opt_out_breaches: a message requested more than 2 s after its number's opt-out was acknowledged.
"""

from __future__ import annotations

import zoneinfo
from collections import Counter
from datetime import UTC, datetime, timedelta

GRACE = timedelta(seconds=1)
OPT_OUT_GRACE = 2.0


def settled(workspace_id: int) -> tuple[bool, dict]:
    from automation.models import EnrollmentBatch, Execution
    from sms.models import SmsAttempt

    claimed = Execution.objects.filter(workspace_id=workspace_id, status__in=("queued", "processing")).count()
    open_attempts = SmsAttempt.objects.filter(
        workspace_id=workspace_id, status__in=("queued", "sending", "unknown")
    ).count()
    from workers.models import BrowserTask

    batches = EnrollmentBatch.objects.filter(workspace_id=workspace_id, status="committing").count()
    browser = BrowserTask.objects.filter(campaign__workspace_id=workspace_id, status="DISPATCHED").count()
    state = {"claimed": claimed, "open_attempts": open_attempts, "committing_batches": batches, "browser": browser}
    return not any(state.values()), state


def evaluate(world, provider, opt_outs: dict[str, float]) -> dict:
    from campaigns.models import Workspace
    from sms.choices import ACCEPTED
    from sms.models import SmsAttempt
    from sms.providers.base import national

    tz = zoneinfo.ZoneInfo(Workspace.objects.get(pk=world.workspace_id).time_zone or "Asia/Tehran")
    messages = {k: v for k, v in provider.messages().items() if not k.startswith("meli-")}
    attempts = {
        str(a.local_id): a
        for a in SmsAttempt.objects.filter(workspace_id=world.workspace_id).only(
            "local_id", "execution_id", "node_id", "cycle", "campaign_id", "status", "request_at", "phone"
        )
    }
    by_campaign = {cid: name for name, cid in world.campaigns.items()}
    steps: Counter = Counter()
    per_day: Counter = Counter()
    window_breaches = opt_out_breaches = unrecorded = 0
    for local_id in messages:
        attempt = attempts.get(local_id)
        if attempt is None:
            unrecorded += 1
            continue
        steps[(attempt.execution_id, attempt.node_id, attempt.cycle)] += 1
        accepted = datetime.fromtimestamp(provider.accepted_at.get(local_id, 0), UTC)
        per_day[(attempt.campaign_id, accepted.astimezone(tz).date())] += 1
        opens = world.windows.get(by_campaign.get(attempt.campaign_id, ""))
        if opens is not None and not any(a <= attempt.request_at <= b + GRACE for a, b in opens):
            window_breaches += 1
        opted = opt_outs.get(national(attempt.phone))
        if opted is not None and attempt.request_at.timestamp() > opted + OPT_OUT_GRACE:
            opt_out_breaches += 1
    limit_breaches = 0
    for (campaign_id, _day), count in per_day.items():
        limit = world.limits.get(by_campaign.get(campaign_id, ""))
        if limit is not None and count > limit:
            limit_breaches += count - limit
    recorded_accepted = [a for a in attempts.values() if a.status in ACCEPTED]
    lost = sum(1 for a in recorded_accepted if str(a.local_id) not in messages)
    from automation.models import Execution

    lost += Execution.objects.filter(workspace_id=world.workspace_id, status__in=("queued", "processing")).count()
    open_attempts = [a for a in attempts.values() if a.status in ("queued", "sending", "unknown")]
    held = _held_by_limit(world, open_attempts, per_day, tz)
    unsettled = len(open_attempts) - held
    return {
        "sms": len(messages),
        "duplicates": sum(n - 1 for n in steps.values() if n > 1),
        "lost": lost,
        "unknown_unsettled": unsettled + unrecorded,
        "unknown_held_by_limit": held,
        "limit_breaches": limit_breaches,
        "window_breaches": window_breaches,
        "opt_out_breaches": opt_out_breaches,
        "attempts": dict(Counter(a.status for a in attempts.values())),
        "executions": dict(
            Counter(Execution.objects.filter(workspace_id=world.workspace_id).values_list("status", flat=True))
        ),
    }


def _held_by_limit(world, open_attempts, per_day: Counter, tz) -> int:
    """Open attempts of a campaign whose daily limit is used up today: the scheduler claims no budget-consuming
    step of it before tomorrow, settling an unknown send included (docs/reliability.md "Known gaps")."""
    today = datetime.now(UTC).astimezone(tz).date()
    by_campaign = {cid: name for name, cid in world.campaigns.items()}
    reserved = Counter(a.campaign_id for a in open_attempts)  # an open attempt keeps its unit
    held = 0
    for attempt in open_attempts:
        limit = world.limits.get(by_campaign.get(attempt.campaign_id, ""))
        cid = attempt.campaign_id
        if limit is not None and per_day[(cid, today)] + reserved[cid] >= limit:
            held += 1
    return held


def browser(world, site) -> dict:
    """Clicks the demo site counted per (post, account session): more than one is a double click."""
    from workers.models import BrowserTask

    with site.lock:
        likes = dict(site.likes)
    tasks = Counter(BrowserTask.objects.filter(campaign_id=world.browser_campaign).values_list("status", flat=True))
    return {
        "double_clicks": sum(n - 1 for n in likes.values() if n > 1),
        "likes": sum(likes.values()),
        "tasks": dict(tasks),
    }


def api_errors(calls, db_down: list[tuple[float, float]], *, grace: float = 5.0) -> tuple[int, list]:
    """All 5xx answers, and those not explained by PostgreSQL being down (with a few seconds to reconnect)."""
    errors = [c for c in calls if c.status >= 500]
    unexpected = [c for c in errors if not any(a - 1 <= c.at <= b + grace for a, b in db_down)]
    return len(errors), unexpected


def diagnose(world, limit: int = 10) -> list[str]:
    """For a failed run: the unsettled attempts, their executions and last events (before the cluster goes)."""
    from automation.models import Execution, ExecutionEvent
    from sms.models import SmsAttempt

    by_campaign = {cid: name for name, cid in world.campaigns.items()}
    lines = []
    open_attempts = SmsAttempt.objects.filter(
        workspace_id=world.workspace_id, status__in=("queued", "sending", "unknown")
    ).order_by("id")[:limit]
    for attempt in open_attempts:
        execution = Execution.objects.get(pk=attempt.execution_id)
        events = ExecutionEvent.objects.filter(execution_id=execution.id).order_by("-id")[:6]
        lines.append(
            f"attempt {attempt.id} {attempt.status} {attempt.error_code!r} "
            f"campaign {by_campaign.get(attempt.campaign_id)} "
            f"request_at {attempt.request_at:%H:%M:%S} execution {execution.id} {execution.status} "
            f"next_run_at {execution.next_run_at and execution.next_run_at.strftime('%H:%M:%S')} "
            f"events {[(e.occurred_at.strftime('%H:%M:%S'), e.type, e.message[:60]) for e in events]}"
        )
    return lines


def scrape(web_url: str, token: str) -> dict[str, float]:
    """The ops' view: sums of the platform's Prometheus counters, read from ``/metrics`` like a scraper."""
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families

    request = urllib.request.Request(web_url + "/metrics", headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read().decode()
    sums: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name.endswith("_created"):
                continue
            labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()) if k in ("result", "queue"))
            key = f"{sample.name}{{{labels}}}" if labels else sample.name
            sums[key] = sums.get(key, 0.0) + sample.value
    return sums
