"""Planning one SMS step: everything decided before any write (recipient, text, earlier attempts, key)."""

from __future__ import annotations

from typing import Any

from automation.choices import EventType
from automation.engine.registry import ActionResult, ResultStatus
from automation.engine.variables import render
from sms.action.attempts import CHANNEL, Plan, record_id
from sms.action.capping import quiet_day_result
from sms.action.guards import ad_blocked, answerable, cached_settings, mobile, primary_kind
from sms.action.unknowns import drop_queued, earlier_attempts, settle_unknown
from sms.choices import ACCEPTED, AttemptStatus


def plan_step(ctx):
    """Everything decided before any write: recipient, text, earlier attempts, key (or a final result)."""
    ex, node = ctx.execution, ctx.node
    phone = mobile(ctx.subject)  # always the live number
    if not phone:
        return ActionResult(ResultStatus.REJECTED, message="no valid mobile", data={"error": "no_valid_mobile"})
    if ad_blocked(ctx, phone):  # the operators refuse advertising to it: skipped, a service line still reaches it
        data = {"error": "telecom_blocked", "event": EventType.SKIPPED}
        return ActionResult(ResultStatus.SKIPPED, message="blocked for advertising", data=data)
    config = node.config
    body = config.get("body") or ""
    settings = cached_settings(ctx)
    if config.get("append_opt_out") and settings.opt_out_text:
        body = f"{body}\n{settings.opt_out_text}"
    rendered = render(body, ctx, on_missing=config.get("on_missing_variable", "skip"))
    if rendered.missing and config.get("on_missing_variable", "skip") == "skip":
        data = {"missing": rendered.missing, "event": EventType.SKIPPED}  # the SMS log lists it as «ردشده»
        return ActionResult(ResultStatus.SKIPPED, message="missing variable", data=data)
    earlier = earlier_attempts(ctx, ex.id, ex.cycle, node.id)
    done = next((e.id for e in earlier if e.status in ACCEPTED), None)
    if done is not None:
        return ActionResult(ResultStatus.SUCCESS, message="already sent", data={"attempt_id": done, "duplicate": True})
    # Reserved by a job that died before its turn: never called, so as if nothing happened.
    queued = [e for e in earlier if e.status == AttemptStatus.QUEUED]
    if queued:
        drop_queued(ctx, queued)
        earlier = [e for e in earlier if e.status != AttemptStatus.QUEUED]
    # Stamped ``sending`` by a job that died: the call may have reached the provider.
    for index, e in enumerate(earlier):
        if e.status == AttemptStatus.SENDING:
            record_id(
                e.id,
                AttemptStatus.UNKNOWN,
                error_code="job_died",
                error_message="worker stopped during the send",
            )
            earlier[index] = e._replace(status=AttemptStatus.UNKNOWN, error_code="job_died")
    unknown = [e for e in earlier if e.status == AttemptStatus.UNKNOWN]
    if unknown:
        decided = settle_unknown(ctx, unknown)
        if decided is not None:
            return decided
    if ctx.scratch.get("settle_only"):  # surely not sent: the scheduler budgets the send again
        return ActionResult(ResultStatus.DEFERRED, until=ctx.now, message="settled: not sent")
    quiet = quiet_day_result(ctx)  # a promotional send on a quiet day waits for the next allowed day
    if quiet is not None:
        return quiet
    number = len(earlier) + 1
    key = f"{ex.id}:{ex.cycle}:{node.id}:{number}"
    local_id = next((e.local_id for e in earlier if e.local_id is not None), None)  # the step's, on every attempt
    budget = ctx.budget(CHANNEL)
    return Plan(ctx, phone, rendered.text, key, number, budget, local_id=local_id, answerable=answerable(ctx))


def attempt_fields(plan: Plan) -> dict[str, Any]:
    ex, config = plan.ctx.execution, plan.ctx.node.config
    return {
        "workspace_id": ex.workspace_id,
        "execution_id": ex.id,
        "workflow_id": ex.workflow_id,
        "campaign_id": ex.campaign_id,
        "subject_type_id": ex.subject_type_id,
        "subject_id": ex.subject_id,
        "node_id": plan.ctx.node.id,
        "phone": plan.phone,
        "template": config.get("body") or "",
        "message": plan.text,
        # The provider the call goes to (the fallback, if used, is written with the result): a crash
        # mid-call must still know whom to ask about this local id.
        "provider": config.get("provider") or primary_kind(plan.ctx),
        "sender": config.get("sender") or "",
        "attempt_number": plan.attempt_number,
        "cycle": ex.cycle,
        "idempotency_key": plan.key,
        "local_id": plan.local_id,
        "status": AttemptStatus.SENDING if plan.answerable else AttemptStatus.QUEUED,
        "job_token": plan.ctx.job_token,
        "request_at": plan.ctx.now,
        "segments": plan.segments,
    }
