"""The promises checked once the chaos run has settled, from the database and what the provider accepted.

- duplicates: messages the provider accepted beyond the first per (execution, node, cycle) — a customer
  who got the same step twice;
- lost: attempts the platform records as accepted that the provider never accepted, plus executions
  that keep one and the same claim (queued/processing) for 90 s after the settle (``lingering``);
- unknown_unsettled: attempts still ``sending``/``queued``/``unknown`` 90 s after the settle, and messages the
  provider accepted that no attempt knows of;
- limit_breaches: a campaign's accepted messages beyond its daily limit on a workspace calendar day — the
  day of the send's request (its job's moment, the day the platform charges), not of the provider's answer:
  the run's clock jumps across midnight while a job sends (docs/reliability.md "The chaos run");
- window_breaches: a window journey's message requested outside its daily window on the run's calendar
  clock (clock.py; 1 s grace: the guard runs a moment before the request);
- opt_out_breaches: a message requested more than 2 s (real time) after its number's opt-out was acknowledged —
  the webhook's 200, or a reply that is an opt-out word stored by the inbox poll (``replies``): the journey's
  next step meets the blacklist, so nothing goes after the next tick;
- replies_stored_twice: a recipient's answer (one message id in a provider's inbox) stored more than once;
- period_duplicates: a chain node's messages beyond one per (campaign, period, person), and its executions
  beyond one per (campaign, period, person).

Both providers count: Kavenegar's messages are matched to attempts by our local id, Melipayamak's (no local
id) by the message id it answered; a Melipayamak message whose answer was lost is matched to an ``unknown``
attempt (the step's on_unknown_outcome decided it; it is never sent again), and its duplicates are told by
(number, text).
"""

from __future__ import annotations

import time
import zoneinfo
from collections import Counter
from datetime import datetime, timedelta

from django.utils import timezone

GRACE = timedelta(seconds=1)
OPT_OUT_GRACE = 2.0


def settled(workspace_id: int) -> tuple[bool, dict]:
    from automation.models import EnrollmentBatch, Execution
    from sms.models import SmsAttempt

    claimed = Execution.objects.filter(workspace_id=workspace_id, status__in=("queued", "processing")).count()
    open_attempts = (
        SmsAttempt.objects.filter(workspace_id=workspace_id, status__in=OPEN)
        .exclude(provider="melipayamak", status="unknown")  # decided by on_unknown_outcome: no question to ask
        .count()
    )
    from workers.models import BrowserTask

    batches = EnrollmentBatch.objects.filter(workspace_id=workspace_id, status="committing").count()
    browser = BrowserTask.objects.filter(campaign__workspace_id=workspace_id, status="DISPATCHED").count()
    state = {"claimed": claimed, "open_attempts": open_attempts, "committing_batches": batches, "browser": browser}
    return not any(state.values()), state


STUCK_AFTER = 90.0  # seconds: longer than a lease (8 s) and a tick (3 s), and than a batch of 20 sends timing out


def lingering(workspace_id: int, *, wait: float = STUCK_AFTER) -> tuple[int, set[int]]:
    """What stays unfinished for ``wait`` seconds from now: (executions holding one and the same claim —
    queued or processing, same lock token —, ids of SMS attempts open all along). The ticks keep running after
    the settle (the calendar clock goes on: a chain run falls due, a window opens), so a claim or a send made
    meanwhile is work in flight, which finishes, or changes its claim, within ``wait``; what does not is lost
    (a claim neither finished nor taken back) or unsettled (a send nobody closes)."""
    from automation.models import Execution
    from sms.models import SmsAttempt

    def claims() -> set[tuple[int, object]]:
        rows = Execution.objects.filter(workspace_id=workspace_id, status__in=("queued", "processing"))
        return set(rows.values_list("id", "lock_token"))

    def sends() -> set[int]:
        return set(SmsAttempt.objects.filter(workspace_id=workspace_id, status__in=OPEN).values_list("id", flat=True))

    held, open_ids = claims(), sends()
    deadline = time.monotonic() + wait
    while (held or open_ids) and time.monotonic() < deadline:
        time.sleep(2)
        held &= claims()
        open_ids &= sends()
    return len(held), open_ids


def in_window(config: dict, moment: datetime) -> bool:
    """Whether a daily window (``{"timezone", "days": {"mon": [["09:00", "12:00"]], …}}``) is open at
    ``moment`` or was a second before (the guard runs a moment before the request)."""
    zone = zoneinfo.ZoneInfo(config["timezone"])
    names = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    for at in (moment, moment - GRACE):
        local = at.astimezone(zone)
        for start, end in config["days"].get(names[local.weekday()], []):
            if start <= local.strftime("%H:%M:%S") < (end if end != "24:00" else "24:00:00"):
                return True
    return False


def accepted_total(providers: dict) -> int:
    """Messages the fake providers accepted so far (the ``sms`` figure of ``evaluate``), read at one moment."""
    kavenegar = [k for k in providers["kavenegar"].messages() if not k.startswith("meli-")]
    meli = [k for k in providers["melipayamak"].messages() if k.startswith("meli-")]
    return len(kavenegar) + len(meli)


def replies(world, placed: list[tuple[str, str]], clock) -> dict:
    """The answers the workload left in the providers' inboxes against what the platform stored: stored twice
    (the promise), not stored (yet: the poll may still be behind after the settle — reported only), and when
    each keyword opt-out was stored (real time, national number), for ``opt_out_breaches``."""
    from sms.choices import InboundOutcome
    from sms.inbound.models import InboundSms
    from sms.providers.base import national

    rows = list(
        InboundSms.objects.filter(workspace_id=world.workspace_id).values_list(
            "provider", "provider_message_id", "number", "outcome", "stored_at"
        )
    )
    stored = Counter((provider, message_id) for provider, message_id, *_ in rows)
    opt_outs: dict[str, float] = {}
    for *_, number, outcome, stored_at in rows:
        if outcome == InboundOutcome.OPT_OUT:
            moment = clock.real(stored_at.timestamp())
            opt_outs[national(number)] = min(opt_outs.get(national(number), moment), moment)
    return {
        "replies": len(placed),
        "replies_stored": len(stored),
        "replies_stored_twice": sum(n - 1 for n in stored.values() if n > 1),
        "replies_unstored": sum(1 for key in set(placed) if key not in stored),
        "reply_opt_outs": len(opt_outs),
        "opt_outs": opt_outs,
    }


def earliest(*opt_outs: dict[str, float]) -> dict[str, float]:
    """Opt-out moments by number from several sources, the earliest of each."""
    merged: dict[str, float] = {}
    for source in opt_outs:
        for number, moment in source.items():
            merged[number] = min(merged.get(number, moment), moment)
    return merged


def evaluate(world, providers: dict, opt_outs: dict[str, float], clock, *, stuck: int, open_ids: set[int]) -> dict:
    """``providers``: the fake per provider kind (``kavenegar``, ``melipayamak``); ``stuck`` and ``open_ids``:
    what ``lingering`` found (measured before, while the platform went on)."""
    from automation.models import Execution
    from campaigns.models import Workspace
    from sms.choices import ACCEPTED
    from sms.models import SmsAttempt
    from sms.providers.base import national

    tz = zoneinfo.ZoneInfo(Workspace.objects.get(pk=world.workspace_id).time_zone or "Asia/Tehran")
    fields = ("id", "local_id", "execution_id", "node_id", "cycle", "campaign_id", "status", "request_at", "phone")
    fields += ("error_code",)
    rows = list(
        SmsAttempt.objects.filter(workspace_id=world.workspace_id).only(*fields, "provider", "provider_message_id")
    )
    # A step's attempts share its local id: a message is the one of them the platform counted (accepted, else
    # still open, else the latest) — its request day is the day its unit was charged.
    by_local = {str(a.local_id): a for a in sorted(rows, key=_counted_last) if a.provider != "melipayamak"}
    by_rec = {f"meli-{a.provider_message_id}": a for a in rows if a.provider == "melipayamak" and a.provider_message_id}
    kavenegar = {k: v for k, v in providers["kavenegar"].messages().items() if not k.startswith("meli-")}
    meli = {k: v for k, v in providers["melipayamak"].messages().items() if k.startswith("meli-")}
    by_campaign = {cid: name for name, cid in world.campaigns.items()}
    chain_keys = _chain_keys(world)
    steps: Counter = Counter()
    per_day: Counter = Counter()
    per_period: Counter = Counter()
    window_breaches = opt_out_breaches = unrecorded = 0
    matched: list[tuple[str, object, float]] = []  # (message key, attempt, accepted at, real time)
    for key in kavenegar:
        if key in by_local:
            matched.append((key, by_local[key], providers["kavenegar"].accepted_at.get(key, 0)))
        else:
            unrecorded += 1
    # Melipayamak has no local id: an answer lost after it accepted leaves an attempt ``unknown`` that the
    # step's on_unknown_outcome decided (never sent again); each such message needs one such attempt.
    meli_said: Counter = Counter()
    meli_unknown = [a for a in rows if a.provider == "melipayamak" and a.status == "unknown"]
    meli_unmatched = 0
    for key, message in meli.items():
        meli_said[(message.get("receptor"), message.get("text"))] += 1
        if key in by_rec:
            matched.append((key, by_rec[key], providers["melipayamak"].accepted_at.get(key, 0)))
        else:
            meli_unmatched += 1
    for _key, attempt, _accepted_real in matched:
        steps[(attempt.execution_id, attempt.node_id, attempt.cycle)] += 1
        per_day[(attempt.campaign_id, attempt.request_at.astimezone(tz).date())] += 1
        if attempt.execution_id in chain_keys:
            per_period[chain_keys[attempt.execution_id]] += 1
        window = world.windows.get(by_campaign.get(attempt.campaign_id, ""))
        if window is not None and not in_window(window, attempt.request_at):
            window_breaches += 1
        opted = opt_outs.get(national(attempt.phone))  # real time: the platform had real seconds to see it
        if opted is not None and clock.real(attempt.request_at.timestamp()) > opted + OPT_OUT_GRACE:
            opt_out_breaches += 1
    limit_breaches = 0
    over: list[str] = []  # for the diagnosis: each campaign day over its limit, and how its messages ended
    for (campaign_id, day), count in per_day.items():
        limit = world.limits.get(by_campaign.get(campaign_id, ""))
        if limit is not None and count > limit:
            limit_breaches += count - limit
            ended = Counter(
                f"{a.status}:{a.error_code}" if a.error_code else a.status
                for _k, a, _r in matched
                if a.campaign_id == campaign_id and a.request_at.astimezone(tz).date() == day
            )
            over.append(f"{by_campaign[campaign_id]} {day} accepted {count} > {limit}: attempts {dict(ended)}")
    lost = 0
    for a in rows:
        if a.status in ACCEPTED:
            known = meli if a.provider == "melipayamak" else kavenegar
            key = f"meli-{a.provider_message_id}" if a.provider == "melipayamak" else str(a.local_id)
            lost += key not in known
    lost += stuck
    decided = {a.id for a in meli_unknown}
    open_attempts = [a for a in rows if a.status in OPEN and a.id not in decided and a.id in open_ids]
    held = _held_by_limit(world, open_attempts, per_day, tz)
    unsettled = len(open_attempts) - held
    duplicates = sum(n - 1 for n in steps.values() if n > 1) + sum(n - 1 for n in meli_said.values() if n > 1)
    return {
        "late_landings": _late_landings(world, providers["kavenegar"], clock),
        "sms": len(kavenegar) + len(meli),
        "sms_kavenegar": len(kavenegar),
        "sms_melipayamak": len(meli),
        "duplicates": duplicates,
        "lost": lost,
        "unknown_unsettled": unsettled + unrecorded + max(0, meli_unmatched - len(meli_unknown)),
        "unknown_held_by_limit": held,
        "unknown_decided": len(meli_unknown),
        "limit_breaches": limit_breaches,
        "limit_over": over,
        "window_breaches": window_breaches,
        "opt_out_breaches": opt_out_breaches,
        "period_duplicates": sum(n - 1 for n in per_period.values() if n > 1) + _period_enrollment_duplicates(world),
        "chain_sms": sum(per_period.values()),
        "attempts": dict(Counter(a.status for a in rows)),
        "executions": dict(
            Counter(Execution.objects.filter(workspace_id=world.workspace_id).values_list("status", flat=True))
        ),
    }


OPEN = ("queued", "sending", "unknown")


def _late_landings(world, provider, clock) -> int:
    """Kavenegar messages accepted after a status query about their local id had found nothing and before
    the step's next attempt was made: a request still on its way (a process paused while writing it, or a
    provider slow to take it) when its step was settled "not sent"."""
    from sms.models import SmsAttempt, SmsLogEvent

    asked = SmsLogEvent.objects.filter(
        workspace_id=world.workspace_id, event="status_query", provider_status="not_sent"
    ).values_list("attempt_id", "attempt__local_id", "occurred_at")
    found = 0
    for attempt_id, local_id, at in asked:
        accepted = provider.accepted_at.get(str(local_id))
        if accepted is None or accepted <= clock.real(at.timestamp()):
            continue
        later = SmsAttempt.objects.filter(local_id=local_id, id__gt=attempt_id).order_by("id").first()
        if later is None or accepted < clock.real(later.request_at.timestamp()):
            found += 1
    return found


def _counted_last(attempt) -> tuple[int, int]:
    """Sort key: the attempt the platform counted for its local id comes last (accepted, open, the latest)."""
    from sms.choices import ACCEPTED

    return (2 if attempt.status in ACCEPTED else 1 if attempt.status in OPEN else 0, attempt.id)


def _chain_keys(world) -> dict[int, tuple[int, int, int]]:
    """Execution id → (chain campaign, period, target) for every execution a chain run enrolled."""
    from campaigns.chains.run_models import RunExecution

    links = RunExecution.objects.filter(run__campaign_id__in=list(world.chain.values()), execution_id__isnull=False)
    return {
        execution_id: (campaign_id, period, target_id)
        for execution_id, campaign_id, period, target_id in links.values_list(
            "execution_id", "run__campaign_id", "run__period_key", "target_id"
        )
    }


def _period_enrollment_duplicates(world) -> int:
    """Executions beyond one per (chain campaign, period, person): a period's run enrolled someone twice."""
    keys = Counter(_chain_keys(world).values())
    return sum(n - 1 for n in keys.values() if n > 1)


def chain(world) -> dict:
    """The chain's runs per level and status, and how many root periods started."""
    from campaigns.chains.run_models import CampaignRun

    level = {cid: name for name, cid in world.chain.items()}
    runs = CampaignRun.objects.filter(campaign_id__in=list(level)).values_list("campaign_id", "status", "skip_reason")
    found: dict[str, Counter] = {name: Counter() for name in world.chain}
    for campaign_id, status, skip in runs:
        found[level[campaign_id]][f"{status}:{skip}" if skip else status] += 1
    periods = (
        CampaignRun.objects.filter(campaign_id=world.chain.get("root"), started_at__isnull=False)
        .values("period_key")
        .distinct()
        .count()
    )
    from automation.models import Execution

    executions = Execution.objects.filter(campaign_id__in=list(level)).values_list("campaign_id", "status")
    by_status: dict[str, Counter] = {name: Counter() for name in world.chain}
    for campaign_id, status in executions:
        by_status[level[campaign_id]][status] += 1
    return {
        "periods": periods,
        "runs": {name: dict(c) for name, c in found.items()},
        "executions": {name: dict(c) for name, c in by_status.items()},
    }


def _held_by_limit(world, open_attempts, per_day: Counter, tz) -> int:
    """Open attempts of a campaign whose daily limit is used up today: the scheduler claims no budget-consuming
    step of it before tomorrow, settling an unknown send included (docs/reliability.md "Known gaps")."""
    today = timezone.now().astimezone(tz).date()  # the run's calendar clock
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
    rows = BrowserTask.objects.filter(campaign_id=world.browser_campaign).values_list("status", "error_code")
    tasks = Counter(f"{status}:{code}" if code and status == "FAILED" else status for status, code in rows)
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
