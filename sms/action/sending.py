"""The provider calls of planned attempts (no transaction of ours open) and their results, written once."""

from __future__ import annotations

import logging
from datetime import timedelta

from automation.choices import EventType
from automation.engine.guards import next_opening_tomorrow
from automation.engine.lease import STOP_EXCEPTIONS
from automation.engine.registry import RETRY_STRATEGIES, ActionResult, ResultStatus
from sms import channel, filtered_words, rate_limits, telecom_blocks
from sms.action import capping
from sms.action.attempts import Plan, name_provider_many, record_many, stamp_sending
from sms.action.guards import cached_settings
from sms.action.unknowns import release_kept_units, settle_delay, unknown_result
from sms.choices import ACCEPTED, AttemptStatus
from sms.models import SmsAttempt
from sms.providers import SendResponse, provider_for

logger = logging.getLogger("sms.action")

RESULT_STATUS = {
    "submitted": AttemptStatus.SUBMITTED,
    "rejected": AttemptStatus.REJECTED,
    "failed": AttemptStatus.FAILED,
    "unavailable": AttemptStatus.UNAVAILABLE,
    "unknown": AttemptStatus.UNKNOWN,
}


def deferred_by_limit(ctx) -> ActionResult:
    return ActionResult(
        ResultStatus.DEFERRED,
        until=next_opening_tomorrow(ctx),
        message="daily limit",
        data={"event": EventType.DEFERRED_LIMIT},
    )


def send(plans: list[Plan]) -> None:
    """Call the provider for the planned attempts in batches, with no transaction of ours open.

    The batch is what the job holds of one workspace and provider: the provider's calls of up to its
    ``batch_size`` receptors (grouped by text where it needs one text per call). Before each call the
    account's rate limit takes the call's whole cost at once (one request, every receptor's message parts);
    a part it holds goes and the rest takes again (waiting in place up to ``SMS_RATE_LIMIT_MAX_WAIT_SECONDS``);
    what it cannot take soon is deferred without a call (row dropped, unit back).

    An attempt whose every possible account answers "was local id N sent?" was written ``sending`` by its
    INSERT: after a crash it is asked about, and if it was never called it is sent again with the same
    local id. Any other attempt is written ``queued`` and the call's attempts are stamped ``sending``
    (one committed UPDATE per call) just before that call, so a crash leaves at most that call's sends
    undecided and every attempt of a later call ``queued`` (journeys.md "Decisions")."""
    groups: dict[tuple, list[Plan]] = {}
    for plan in plans:
        groups.setdefault((plan.ctx.workspace.id, plan.ctx.node.config.get("provider") or ""), []).append(plan)
    for members in groups.values():
        ctx = members[0].ctx
        settings, kind = cached_settings(ctx), ctx.node.config.get("provider")
        account = channel.first_account(settings, kind)
        provider = provider_for(account.provider) if account is not None else None
        size = max(1, provider.batch_size if provider is not None else 1)
        for chunk in (members[i : i + size] for i in range(0, len(members), size)):
            rest = chunk
            while rest:  # the account's rate limit first: what it cannot take soon is deferred without a call
                ctx.heartbeat()
                granted, wait = channel.rate_take_first(
                    settings,
                    kind,
                    [p.segments for p in rest],
                    senders=[p.ctx.node.config.get("sender") for p in rest],
                )
                if not granted:
                    for plan in rest:
                        plan.gateway = channel.limited_result(settings, kind, wait)
                    break
                going, rest = rest[:granted], rest[granted:]
                stamped = stamp_sending([p.attempt.id for p in going if not p.answerable])
                for plan in going:
                    if not plan.answerable and plan.attempt.id not in stamped:
                        plan.lost = True  # pragma: no cover - one job holds an execution at a time
                going = [p for p in going if not p.lost]
                if going:
                    call(going)


def call(plans: list[Plan]) -> None:
    """One batched provider call of stamped attempts of one workspace (no transaction of ours is open)."""
    ctx = plans[0].ctx
    items = [channel.BatchItem(p.phone, p.text, p.ctx.node.config.get("sender"), str(p.local_id)) for p in plans]
    try:
        gateways = channel.send_batch_through_gateway(
            cached_settings(ctx),
            items,
            provider_kind=ctx.node.config.get("provider"),
            primary_rate_taken=True,
            before_fallback=lambda kind, sender, positions: name_provider_many(
                [plans[i].attempt.id for i in positions], kind, sender
            ),
        )
    except STOP_EXCEPTIONS:
        raise  # the task's time is up; the rows stay ``sending`` and are settled by the next run
    except Exception as exc:  # the outcome is unknown: never resend blindly
        logger.exception("provider call raised for attempts %s", [p.attempt.id for p in plans])
        gateways = [
            channel.GatewayResult(
                SendResponse("unknown", error_code="exception", error_message=type(exc).__name__),
                p.attempt.provider,
                p.attempt.sender,
            )
            for p in plans
        ]
    for plan, gateway in zip(plans, gateways, strict=True):
        plan.gateway = gateway


def settle(plans: list[Plan]) -> list[ActionResult]:
    """Write every result once (status only while ``sending``), give back the budget of what surely was not
    sent (an unknown keeps its unit until settled), drive the circuit."""
    results, updates, never_called, give_back_cap = [], [], [], []
    refused: set[tuple[int, str, str]] = set()  # (account, step text, answer) refused for a filtered word
    release: dict[int, int] = {}
    for plan in plans:
        ctx, gateway = plan.ctx, plan.gateway
        if plan.lost:
            results.append(ActionResult(ResultStatus.DEFERRED, until=ctx.now + settle_delay(), message="busy"))
            continue
        if gateway.retry_after:  # the account's rate limit: nothing was called
            results.append(rate_limited(plan, gateway))
            never_called.append(plan.attempt.id)
            give_back_cap.append(plan)
            release[id(plan.budget)] = release.get(id(plan.budget), 0) + 1
            continue
        response = gateway.response
        data = {"attempt_id": plan.attempt.id, "provider": gateway.provider, "event": EventType.ACTION_ATTEMPT}
        status = RESULT_STATUS.get(response.status, AttemptStatus.FAILED)
        retry_at = retry_time(ctx) if status == AttemptStatus.FAILED else None
        updates.append((plan.attempt.id, status, response, gateway.provider, gateway.sender, retry_at))
        if status not in (AttemptStatus.SUBMITTED, AttemptStatus.UNKNOWN):
            release[id(plan.budget)] = release.get(id(plan.budget), 0) + 1
        if status == AttemptStatus.SUBMITTED:
            if cached_settings(ctx).paused_until is not None:  # this send was the probe after an outage
                channel.close_circuit(ctx.workspace.id)
                ctx.cache.pop(("sms_settings", ctx.workspace.id), None)
            results.append(ActionResult(ResultStatus.SUCCESS, data=data))
        elif status == AttemptStatus.UNAVAILABLE:
            reason = response.error_message or response.error_code
            provider = provider_for(gateway.provider)
            if provider is not None and provider.is_no_credit(response.error_code):
                reason = channel.CREDIT_EXHAUSTED  # resumed by the credit read once it sees credit again
            until = channel.trip_circuit(ctx.workspace.id, reason, ctx.now)
            ctx.cache.pop(("sms_settings", ctx.workspace.id), None)  # later executions of this job see the pause
            results.append(ActionResult(ResultStatus.UNAVAILABLE, until=until, message=response.error_code, data=data))
        elif status == AttemptStatus.UNKNOWN:
            results.append(unknown_result(ctx, gateway.provider, response.error_code, data))
        elif status == AttemptStatus.REJECTED:
            telecom_blocks.remember_if_blocked(
                workspace_id=ctx.workspace.id, phone=plan.phone, provider=gateway.provider, code=response.error_code
            )
            if filtered_words.is_filtered_code(provider_for(gateway.provider), response.error_code):
                account = channel.pick_account(cached_settings(ctx), gateway.provider)
                if account is not None:
                    template = ctx.node.config.get("body") or ""
                    refused.add((account.id, template, response.error_message or ""))
            results.append(ActionResult(ResultStatus.REJECTED, message=response.error_code, data=data))
        else:
            results.append(ActionResult(ResultStatus.FAILED, retryable=True, message=response.error_code, data=data))
    # A step's first attempt has no earlier one that kept a unit: only later attempts are looked up.
    accepted = [
        p
        for p in plans
        if p.attempt_number > 1 and not p.lost and p.gateway and p.gateway.response.status == "submitted"
    ]
    release_kept_units({(p.ctx.execution.id, p.ctx.execution.cycle, p.ctx.node.id): p.ctx for p in accepted})
    budgets = {id(p.budget): p.budget for p in plans}
    for key, count in release.items():  # only accepted (or possibly accepted) attempts consume the budget
        if count == 1:
            budgets[key].release()
        else:
            budgets[key].release_many(count)
    record_many(updates, workspace_ids={p.ctx.workspace.id for p in plans})
    for account_id, template, answer in refused:
        filtered_words.remember_refusal(account_id=account_id, template=template, answer=answer)
    capping.give_back(give_back_cap)  # held back by the rate limit: the send's unit of the cap comes back
    if never_called:  # the limited steps' rows, never called: gone in one statement
        SmsAttempt.objects.filter(
            pk__in=never_called, status__in=(AttemptStatus.QUEUED, AttemptStatus.SENDING)
        ).delete()
    return results


def rate_limited(plan: Plan, gateway: channel.GatewayResult) -> ActionResult:
    """A limited step is deferred shortly: its never-called row goes (the caller deletes it) and its unit comes
    back (the caller releases it), no retry is consumed."""
    return ActionResult(
        ResultStatus.DEFERRED,
        until=plan.ctx.now + timedelta(seconds=rate_limits.defer_seconds(gateway.retry_after)),
        message="rate limited",
        data={"event": EventType.DEFERRED_CHANNEL, "reason": "rate_limited", "provider": gateway.provider},
    )


def retry_time(ctx):
    retry = ctx.node.config.get("retry") or {}
    if not retry.get("enabled", True) or ctx.execution.retry_count >= int(retry.get("max_attempts", 0)):
        return None
    strategy = RETRY_STRATEGIES.get(retry.get("strategy", "fixed"))
    return ctx.now + timedelta(seconds=strategy.delay_seconds(ctx.execution.retry_count + 1, retry))


def existing_attempt(key: str, ctx) -> ActionResult:
    """The key exists (another run wrote it first): never send again; decide from what it recorded."""
    existing = SmsAttempt.objects.get(idempotency_key=key)
    data = {"attempt_id": existing.id, "duplicate": True}
    if existing.status in (AttemptStatus.QUEUED, AttemptStatus.SENDING, AttemptStatus.UNKNOWN):
        return ActionResult(ResultStatus.DEFERRED, until=ctx.now + settle_delay(), message="busy", data=data)
    if existing.status in ACCEPTED:
        return ActionResult(ResultStatus.SUCCESS, data=data)
    if existing.status == AttemptStatus.FAILED:
        return ActionResult(ResultStatus.FAILED, retryable=True, data=data)
    if existing.status == AttemptStatus.UNAVAILABLE:
        return ActionResult(ResultStatus.UNAVAILABLE, until=ctx.now + timedelta(minutes=30), data=data)
    return ActionResult(ResultStatus.REJECTED, data=data)
