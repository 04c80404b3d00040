"""SendSmsAction: the SMS channel's action, registered into the engine (journeys.md "Job").

The class holds the step's configuration and publish-time hooks; its run time is split by concern:
``planning`` (what to send, before any write), ``attempts`` (the attempt rows and their writes),
``sending`` (the provider calls and their results), ``unknowns`` (after a crash or an unknown outcome)
and ``guards`` (circuit breaker, blacklist).

Guards run in order circuit breaker → blacklist → send window → daily limit.
Then, in one short transaction, the daily limit is reserved and the attempt
row is inserted with its unique idempotency key and the step's numeric local
id (the same on every attempt of one execution + cycle + node: an earlier
attempt's, else a new number of the send-slot sequence; sent as Kavenegar's
``localid``). Where the provider can be asked
"was local id N sent?" the row is inserted ``sending``; elsewhere it is
inserted ``queued`` and stamped ``sending`` (committed) just before the HTTP
call that carries it. A job's attempts of one workspace and provider go in
batched calls (up to the provider's ``batch_size`` receptors per call, a local
id and a result per receptor); calls run with no transaction open; each result
is written once (``UPDATE … WHERE status='sending'``).

After a crash: a ``queued`` row was never called — its reservation is given
back and the row dropped, the step runs as if nothing happened; a ``sending``
row may have reached the provider — it becomes ``unknown``. An ``unknown``
attempt is never resent blindly: the provider is asked by local id (where it
can be asked) and the answer settles it (sent → submitted; no such message →
failed, then sent again with the SAME local id); where it cannot be asked, or
no answer comes after a few tries, the step's ``on_unknown_outcome`` decides.
"""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from automation.engine.registry import GUARDS, Action, ActionResult
from automation.engine.variables import render, unknown_variables
from campaigns.platform.bulk import ids_match
from campaigns.platform.permissions import Perm
from sms import channel, frequency_cap
from sms.action import capping, sending
from sms.action.attempts import CHANNEL, AttemptRef, Plan, assign_local_ids, insert_attempts
from sms.action.guards import blacklist_guard, circuit_breaker_guard
from sms.action.planning import attempt_fields, plan_step
from sms.action.unknowns import ask_batch, earlier_attempts
from sms.choices import AWAITING_DELIVERY, AttemptStatus
from sms.launch import OPT_OUT_SOURCES, launch_facts, text_lint
from sms.launch import excluded as launch_excluded
from sms.models import SmsAttempt, SmsSettings
from sms.providers import provider_kinds
from sms.segments import count_segments

MAX_BODY = 1000


class PreviewScope:
    """A sample subject outside any campaign or execution (previews)."""

    def __init__(self, subject) -> None:
        self.subject, self.campaign, self.execution = subject, None, None


class SendSmsAction(Action):
    key = "send_sms"
    label = "ارسال پیامک"
    consumes_budget = True
    channel = CHANNEL
    details_permission = Perm.VIEW_SMS_LOGS  # the timeline shows the text, number and errors as the SMS log does
    guards = ("circuit_breaker", "blacklist", "send_window", "daily_limit")
    base_config_schema = {
        "type": "object",
        "required": ["body"],
        "properties": {
            "title": {"type": "string"},
            "body": {"type": "string", "maxLength": MAX_BODY},
            "provider": {"type": ["string", "null"]},  # enum: the provider registry (config_schema)
            "sender": {"type": ["string", "null"]},
            "send_only_in_window": {"type": "boolean", "default": True},
            "on_missing_variable": {"type": "string", "enum": ["skip", "blank"], "default": "skip"},
            "append_opt_out": {"type": "boolean", "default": False},
            # no default: a step without its own follows the workflow's (settings), else "continue"
            "on_unknown_outcome": {"type": "string", "enum": ["continue", "hold"]},
            # A promotional send over the workspace's frequency cap waits for the next day or is skipped.
            "on_frequency_cap": {"type": "string", "enum": ["wait", "skip"], "default": "wait"},
            "retry": {
                "type": "object",
                "properties": {
                    "enabled": {"type": "boolean"},
                    "strategy": {"type": "string", "enum": ["fixed", "exponential"]},
                    "max_attempts": {"type": "integer", "minimum": 0, "maximum": 10},
                    "interval_seconds": {"type": "integer", "minimum": 60, "maximum": 86400},
                    "on_exhausted": {"type": "string", "enum": ["stop", "skip_step", "continue", "fail"]},
                },
            },
        },
    }

    editor_template = "sms/_send_sms_step.html"

    def preview(self, config: dict[str, Any], subject: Any) -> dict[str, Any]:
        """The message for a sample subject with its segment count (the builder and ``POST /sms/preview``)."""
        body = config.get("body") or ""
        rendered = render(body, PreviewScope(subject), on_missing=config.get("on_missing_variable") or "skip")
        info = count_segments(rendered.text)
        return {
            "text": rendered.text,
            "missing": rendered.missing,
            "unknown": unknown_variables(body),
            "segments": info.as_dict(),
            "long_text_warning": info.segments > 3,
            "lint": text_lint(config, rendered.text, workspace_id=getattr(subject, "workspace_id", None)),
        }

    @property
    def config_schema(self) -> dict[str, Any]:
        """The step's schema; the provider enum follows the provider registry (no code change per provider)."""
        schema = copy.deepcopy(self.base_config_schema)
        schema["properties"]["provider"]["enum"] = [None, *provider_kinds()]
        return schema

    # --- publish time --------------------------------------------------------------------------
    def validate_config(self, config: dict[str, Any]) -> list[str]:
        errors = self.required_text_errors(config.get("body"), label="متن پیامک", limit=MAX_BODY)
        if config.get("on_missing_variable", "skip") not in ("skip", "blank"):
            errors.append("on_missing_variable باید skip یا blank باشد.")
        if config.get("provider") not in (None, "", *provider_kinds()):
            errors.append("سرویس‌دهنده پیامک ناشناخته است.")
        return errors

    def template_texts(self, config: dict[str, Any]) -> list[str]:
        return [config.get("body") or ""]

    def pending_outcome(self, ctx) -> bool:
        ex = ctx.execution
        open_statuses = (AttemptStatus.QUEUED, AttemptStatus.SENDING, AttemptStatus.UNKNOWN)
        return any(e.status in open_statuses for e in earlier_attempts(ctx, ex.id, ex.cycle, ctx.node.id))

    def channel_problem(self, workspace) -> str | None:
        return channel.channel_problem(workspace.id)

    def channel_paused(self, workspace, now) -> dict[str, Any] | None:
        until = channel.paused_until(workspace.id, now)
        if until is None:
            return None
        reason = SmsSettings.objects.filter(workspace_id=workspace.id).values_list("pause_reason", flat=True).first()
        return {"until": until, "reason": reason or ""}

    def frequency_cap_on(self, workspace) -> bool:
        """Some rule of the workspace's frequency cap is on (``SmsSettings.frequency_cap_rules``)."""
        return bool(frequency_cap.rules_of(SmsSettings.objects.filter(workspace_id=workspace.id).first()))

    def subject_problems(self, workspace, subjects) -> dict[int, str]:
        """The refused ones among ``subjects`` (a queryset of targets), in one query: no mobile
        (``no_valid_mobile``), or a mobile on the workspace's active SMS blacklist — ``opt_out`` when the
        recipient asked (a reply word or an opt-out), ``blacklisted`` otherwise (staff, imports, …)."""
        listed = channel.blacklisted_values(workspace.id)
        refused = subjects.filter(Q(mobile__isnull=True) | Q(mobile="") | Q(mobile__in=listed))
        opted_out = listed.filter(source__in=OPT_OUT_SOURCES)
        rows = refused.annotate(opted_out=Exists(opted_out.filter(value=OuterRef("mobile")))).values_list(
            "pk", "mobile", "opted_out"
        )
        return {pk: ("opt_out" if out else "blacklisted") if mobile else "no_valid_mobile" for pk, mobile, out in rows}

    def launch_facts(
        self,
        workspace,
        *,
        configs,
        people,
        audience: int,
        sample,
        now=None,
        tz: str = "Asia/Tehran",
        priority: str = "normal",
    ) -> dict[str, Any]:
        """The launch check's SMS part (``sms.launch``): refusals by reason among the audience's sample
        (``people``), cost, credit, rate, blockers, the frequency cap and quiet days of promotional sends."""
        return launch_facts(
            workspace,
            configs=configs,
            people=people,
            audience=audience,
            sample_text=lambda config: self.preview(config, sample)["text"] if sample is not None else config["body"],
            now=now,
            tz=tz,
            priority=priority,
        ).as_dict()

    def launch_excluded(
        self, workspace, *, reason: str, configs, subjects, people, now, tz: str, priority: str = "normal"
    ):
        """The targets behind one of the launch check's counts and whether they are all of them
        (``sms.launch.excluded``); None: not this channel's."""
        return launch_excluded(
            workspace,
            reason=reason,
            configs=configs,
            subjects=subjects,
            people=people,
            now=now,
            tz=tz,
            priority=priority,
        )

    # The statuses ``attempt_details`` reads (a send's status on the timeline, an enum in the API schema).
    attempt_statuses = AttemptStatus.choices

    def attempt_details(self, workspace, attempt_ids: list[int]) -> dict[int, dict[str, Any]]:
        """Timeline hook: what each send was (text, number, status, provider id, error, retry time)."""
        rows = SmsAttempt.objects.filter(workspace_id=workspace.id, pk__in=attempt_ids).values(
            "id",
            "message",
            "phone",
            "status",
            "provider",
            "sender",
            "provider_message_id",
            "error_code",
            "error_message",
            "retry_scheduled_at",
            "attempt_number",
            "request_at",
        )
        return {r["id"]: r for r in rows}

    def reported_failures(self, execution_ids: list[int]) -> set[tuple[int, int | None]]:
        """The sends whose last attempt ends failed or rejected — a delivery report ("undelivered") arrives
        after the step recorded the provider's acceptance."""
        last: dict[tuple[int, int | None], str] = {}
        for chunk in (execution_ids[i : i + 500] for i in range(0, len(execution_ids), 500)):
            attempts = SmsAttempt.objects.filter(ids_match("execution_id", chunk)).order_by("id")
            for execution_id, node_id, status in attempts.values_list("execution_id", "node_id", "status"):
                last[(execution_id, node_id)] = status
        return {key for key, status in last.items() if status in (AttemptStatus.FAILED, AttemptStatus.REJECTED)}

    def pending_reports(self, execution_ids: list[int]) -> int:
        """Sends whose last attempt the provider accepted and whose delivery report has not arrived yet — and can
        still come: past its provider's status window (``sms.delivery.poll_max_age``) a send counts as sent."""
        from sms.delivery import poll_max_age

        now = timezone.now()
        last: dict[tuple[int, int | None], tuple[str, str, datetime]] = {}
        for chunk in (execution_ids[i : i + 500] for i in range(0, len(execution_ids), 500)):
            attempts = SmsAttempt.objects.filter(ids_match("execution_id", chunk)).order_by("id")
            for execution_id, node_id, *row in attempts.values_list(
                "execution_id", "node_id", "status", "provider", "request_at"
            ):
                last[(execution_id, node_id)] = tuple(row)
        return sum(
            1
            for status, kind, request_at in last.values()
            if status in AWAITING_DELIVERY and request_at >= now - poll_max_age(kind)
        )

        # --- run time ---------------------------------------------------------------------------------

    def execute(self, ctx) -> ActionResult:
        plan = plan_step(ctx)
        if isinstance(plan, ActionResult):
            return plan
        capped = capping.take_units([plan])[0]  # the frequency cap across campaigns (promotional sends)
        if capped is not None:
            return capped
        assign_local_ids([plan])
        # Tx2: reserve the daily limit and insert the attempt ``queued`` before any HTTP.
        try:
            with transaction.atomic():
                if not plan.budget.reserve():
                    capping.give_back([plan])
                    return sending.deferred_by_limit(ctx)
                plan.attempt = AttemptRef.of(SmsAttempt.objects.create(**attempt_fields(plan)))
        except IntegrityError:
            capping.give_back([plan])
            return sending.existing_attempt(plan.key, ctx)
        sending.send([plan])  # no transaction of ours is open here: the provider call may take seconds
        return sending.settle([plan])[0]

    def execute_many(self, ctxs: list) -> list[ActionResult]:
        """The batched job's path: one reservation per budget, one INSERT of the attempts, the calls (each
        stamped ``sending`` just before it, unless its row was written ``sending``), then one UPDATE of the
        results."""
        results: list[ActionResult | None] = [None] * len(ctxs)
        ask_batch(ctxs)  # the batch's undecided attempts: one status request per provider batch
        planned: list[tuple[int, Plan]] = []
        for index, ctx in enumerate(ctxs):
            plan = plan_step(ctx)
            if isinstance(plan, ActionResult):
                results[index] = plan
            else:
                planned.append((index, plan))
        groups: dict[tuple, list[tuple[int, Plan]]] = {}
        # The frequency cap across campaigns first (promotional sends): a capped step takes no unit of the limits.
        for (index, plan), capped in zip(planned, capping.take_units([p for _, p in planned]), strict=True):
            if capped is not None:
                results[index] = capped
                continue
            b = plan.budget
            groups.setdefault((b.workspace_id, b.channel, b.day, b.scopes), []).append((index, plan))
        going: list[tuple[int, Plan]] = []
        for members in groups.values():
            granted = members[0][1].budget.reserve_many(len(members))  # claim order = fairness order
            going += members[:granted]
            capping.give_back([plan for _, plan in members[granted:]])
            for index, plan in members[granted:]:
                results[index] = sending.deferred_by_limit(plan.ctx)
        if going:
            try:
                assign_local_ids([p for _, p in going])  # no row on PostgreSQL: numbers of a sequence
                with transaction.atomic():
                    rows = insert_attempts([attempt_fields(p) for _, p in going])
            except IntegrityError:  # a key already exists: give the units back and decide one by one
                for _, plan in going:
                    plan.budget.release()
                capping.give_back([plan for _, plan in going])
                for index, plan in going:
                    results[index] = self.execute(plan.ctx)
                return results
            for (_, plan), row in zip(going, rows, strict=True):
                plan.attempt = row
            sending.send([p for _, p in going])
            for (index, _), result in zip(going, sending.settle([p for _, p in going]), strict=True):
                results[index] = result
        return results


def register() -> None:
    from automation.engine.registry import ACTIONS

    ACTIONS.register(SendSmsAction.key, SendSmsAction())
    GUARDS.register("circuit_breaker", circuit_breaker_guard)
    GUARDS.register("blacklist", blacklist_guard)
