"""Action: runs a registered action (``ACTIONS``) behind its guards, with retries and ports.

The step yields a ``StepContext`` so the batch driver can execute many executions' actions
together; ``success``/``default`` on success, ``failure`` when retries are exhausted.
"""

from __future__ import annotations

from datetime import timedelta

from automation.choices import EndReason, EventType, ExecutionStatus, NodeType, OnExhausted, OnUnknownOutcome, Port
from automation.engine.context import StepContext
from automation.engine.nodes.action.step import Send
from automation.engine.nodes.base import NodeHandler
from automation.engine.outcome import (
    ERROR_BACKOFF,
    FIRST_SEND_AT,
    HELD_UNKNOWN,
    LAST_SEND_AT,
    RESEND_UNKNOWN,
    SKIP_UNKNOWN,
    Outcome,
)
from automation.engine.registry import ACTIONS, GUARDS, RETRY_STRATEGIES, ActionResult, ResultStatus
from automation.engine.retry import retry_config_errors
from automation.engine.variables import unknown_variables


def _iso(value) -> str | None:
    return value.isoformat() if value else None


class ActionNode(NodeHandler):
    key = NodeType.ACTION
    label = "اقدام"
    ports = frozenset({Port.DEFAULT, Port.SUCCESS, Port.FAILURE})
    step = Send

    def kind_label(self, subtype: str) -> str:
        action = ACTIONS.get(subtype)
        return action.label if action is not None and action.label else self.label

    def validate(self, node, config, check) -> None:
        action = ACTIONS.get(node.subtype)
        if action is None:
            check.add(node, "UNKNOWN_ACTION", f"اقدام «{node.subtype}» ناشناخته است.")
            return
        for message in action.validate_config(config):
            check.add(node, "INVALID_ACTION_CONFIG", message)
        for message in retry_config_errors(config.get("retry")):
            check.add(node, "INVALID_RETRY", message)
        for text in action.template_texts(config):
            for name in unknown_variables(text):
                check.add(node, "UNKNOWN_VARIABLE", f"متغیر «{name}» ناشناخته است.")
        if config.get("on_unknown_outcome", OnUnknownOutcome.CONTINUE) not in OnUnknownOutcome.values:
            check.add(node, "INVALID_ACTION_CONFIG", "on_unknown_outcome باید continue یا hold باشد.")
        check.require(node, Port.SUCCESS, Port.DEFAULT)

    def run(self, run, node, step):
        if step > 0 and node.consumes_budget:
            return Outcome("ready")  # budget-consuming steps go back to the scheduler
        return (yield from self._step(run, node, step))

    def _step(self, run, node, step):
        if run.metadata.get(SKIP_UNKNOWN) == node.id:  # a person resumed a held step with "skip"
            run.metadata.pop(SKIP_UNKNOWN)
            run.event(EventType.SKIPPED, node, "unknown outcome skipped by a person")
            return run.after_move(run.move(node, Port.SUCCESS, Port.DEFAULT), step)
        action = ACTIONS.get(node.subtype)
        ctx = StepContext(
            execution=run.ex,
            graph=run.graph,
            node=node,
            campaign=run.campaign,
            workspace=run.workspace,
            subject=run.subject,
            now=run.now,
            settings=run.settings,
            tz=run.tz,
            job_token=run.job_token,
            window=run.window,
            cache=run.cache,
        )
        ctx.execution.retry_count = run.retry_count()
        ctx.scratch["channel"] = action.channel
        settling = node.consumes_budget and not run.fields.get("needs_budget", run.ex.needs_budget)
        if settling and not action.pending_outcome(ctx):
            # Came back without budget (a settle wait, a reaped job) with nothing left to settle: the
            # scheduler budgets and orders the send like any other.
            return Outcome("ready", {"needs_budget": True, "next_run_at": run.now})
        ctx.scratch["settle_only"] = settling  # the action asks, never sends; no guard applies to asking
        for key in () if settling else action.guards:
            decision = GUARDS.get(key)(ctx)
            if decision.kind == "block":
                run.event(EventType.BLACKLISTED, node, decision.reason)
                return run.finish("blacklist", EndReason.BLACKLISTED, EventType.BLACKLISTED)
            if decision.kind == "defer":
                run.event(
                    decision.event or EventType.DEFERRED_WINDOW, node, decision.reason, until=_iso(decision.until)
                )
                return Outcome("wait", {"next_run_at": decision.until or run.now + ERROR_BACKOFF})
            if decision.kind == "skip":
                run.event(EventType.SKIPPED, node, decision.reason)
                return run.after_move(run.move(node, Port.SUCCESS, Port.DEFAULT), step)
        result = yield ctx
        run.metadata.pop(RESEND_UNKNOWN, None)  # a person's "resend" is used by this one run of the step
        run.metadata["last_action_status"] = result.status
        if node.consumes_budget and result.status in (ResultStatus.SUCCESS, ResultStatus.UNKNOWN):
            run.metadata[LAST_SEND_AT] = run.now.isoformat()  # facts read "since the last send" from it
            run.metadata.setdefault(FIRST_SEND_AT, run.now.isoformat())  # ... and "during this journey"
        return self._result(run, node, result, step)

    def _result(self, run, node, result: ActionResult, step: int):
        data = dict(result.data)
        event_type = data.pop("event", EventType.ACTION_RESULT)
        run.event(event_type, node, result.message, **{**data, "result": result.status})
        status = result.status
        if status in (ResultStatus.SUCCESS, ResultStatus.SKIPPED):
            return run.after_move(run.move(node, Port.SUCCESS, Port.DEFAULT), step)
        if status in (ResultStatus.DEFERRED, ResultStatus.UNAVAILABLE):
            # The channel or the budget said "not now": no retry consumed. A settle wait needs no budget.
            fields = {"next_run_at": result.until or run.now + ERROR_BACKOFF}
            if node.consumes_budget:
                fields["needs_budget"] = not result.settling
            return Outcome("wait", fields)
        if status == ResultStatus.BLOCKED:
            return run.finish("blacklist", EndReason.BLACKLISTED, EventType.BLACKLISTED)
        if status == ResultStatus.UNKNOWN:
            run.event(EventType.UNKNOWN_OUTCOME, node, result.message)
            if node.config.get("on_unknown_outcome", OnUnknownOutcome.CONTINUE) == OnUnknownOutcome.HOLD:
                # Resuming offers "skip" (follow the success port) or "resend" (run the step again).
                run.metadata[HELD_UNKNOWN] = node.id
                return Outcome("hold", {"paused_at": run.now, "paused_from_status": ExecutionStatus.ACTIVE})
            return run.after_move(run.move(node, Port.SUCCESS, Port.DEFAULT), step)
        retry = node.config.get("retry") or {}
        used = run.retry_count()
        if status == ResultStatus.FAILED and result.retryable and retry.get("enabled", True):
            if used < int(retry.get("max_attempts", 0)):
                strategy = RETRY_STRATEGIES.get(retry.get("strategy", "fixed"))
                due = run.now + timedelta(seconds=strategy.delay_seconds(used + 1, retry))
                run.event(EventType.RETRY_SCHEDULED, node, "", retry=used + 1, at=due.isoformat())
                return Outcome("wait", {"next_run_at": due, "retry_count": used + 1})
        return self._exhausted(run, node, retry, step)

    def _exhausted(self, run, node, retry: dict, step: int):
        if run.graph.next_key(node.node_key, Port.FAILURE):
            return run.after_move(run.move(node, Port.FAILURE), step)
        policy = retry.get("on_exhausted", OnExhausted.FAIL)
        if policy == OnExhausted.FAIL:
            return run.finish("fail", EndReason.RETRIES_EXHAUSTED, EventType.FAILED)
        if policy == OnExhausted.STOP:
            return run.finish("complete", EndReason.RETRIES_EXHAUSTED, EventType.COMPLETED)
        if policy == OnExhausted.SKIP_STEP:
            run.event(EventType.SKIPPED, node, "retries exhausted")
        return run.after_move(run.move(node, Port.SUCCESS, Port.DEFAULT), step)
