"""SendSmsAction: the SMS channel's action, registered into the engine (journeys.md "Job").

Guards run in order circuit breaker → blacklist → send window → daily limit.
Then, in one short transaction, the daily limit is reserved and the attempt
row is inserted with its unique idempotency key and the step's numeric local
id (one ``SmsSendSlot`` per execution + cycle + node, the same on every
attempt, sent as Kavenegar's ``localid``). Where the provider can be asked
"was local id N sent?" the row is inserted ``sending``; elsewhere it is
inserted ``queued`` and stamped ``sending`` (committed) just before its own
HTTP call. Calls run with no transaction open; the result is written once
(``UPDATE … WHERE status='sending'``).

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
import json
import logging
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, NamedTuple

import psycopg
from django.conf import settings as django_settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from automation.choices import EventType
from automation.engine.guards import next_opening_tomorrow
from automation.engine.lease import STOP_EXCEPTIONS
from automation.engine.outcome import RESEND_UNKNOWN
from automation.engine.registry import (
    GUARDS,
    RETRY_STRATEGIES,
    Action,
    ActionResult,
    GuardDecision,
    ResultStatus,
)
from automation.engine.variables import render, unknown_variables
from automation.engine.window import local_day
from campaigns.platform.bulk import bulk_insert, ids_match
from campaigns.platform.permissions import Perm
from sms import channel, rate_limits
from sms.choices import ACCEPTED, AttemptStatus
from sms.delivery import attempt_status_apply
from sms.models import SmsAttempt, SmsLogEvent, SmsSendSlot, SmsSettings
from sms.providers import SendResponse, provider_for, provider_kinds
from sms.segments import count_segments

logger = logging.getLogger(__name__)
CHANNEL = "sms"
MAX_BODY = 1000


def _mobile(subject) -> str | None:
    return getattr(subject, "mobile", None) or None


def settle_delay() -> timedelta:
    """How long after an unknown outcome the provider is asked (and between unanswered questions)."""
    return timedelta(seconds=django_settings.SMS_UNKNOWN_SETTLE_SECONDS)


def settle_tries() -> int:
    """Unanswered status questions before ``on_unknown_outcome`` decides."""
    return int(django_settings.SMS_UNKNOWN_SETTLE_TRIES)


_RESULT_STATUS = {
    "submitted": AttemptStatus.SUBMITTED,
    "rejected": AttemptStatus.REJECTED,
    "failed": AttemptStatus.FAILED,
    "unavailable": AttemptStatus.UNAVAILABLE,
    "unknown": AttemptStatus.UNKNOWN,
}


class _Earlier(NamedTuple):
    """An earlier attempt of the same step (execution + cycle + node)."""

    id: int
    status: str
    provider: str
    local_id: int | None
    request_at: datetime
    error_code: str


_EARLIER_FIELDS = ("id", "status", "provider", "local_id", "request_at", "error_code")


class _AttemptRef(NamedTuple):
    """What the send loop needs of an attempt row it wrote."""

    id: int
    provider: str
    sender: str

    @classmethod
    def of(cls, attempt: SmsAttempt) -> _AttemptRef:
        return cls(attempt.id, attempt.provider, attempt.sender)


def _insert_attempts(rows: list[dict[str, Any]]) -> list[_AttemptRef]:
    """The batch's attempts in one INSERT (PostgreSQL: unnest, no model instances), in the order given."""
    if connection.vendor != "postgresql":
        return [_AttemptRef.of(a) for a in SmsAttempt.objects.bulk_create([SmsAttempt(**row) for row in rows])]
    ids = dict(bulk_insert(SmsAttempt, rows, returning=("idempotency_key", "id")))
    return [_AttemptRef(ids[row["idempotency_key"]], row["provider"], row["sender"]) for row in rows]


@dataclass
class _Plan:
    ctx: Any
    phone: str
    text: str
    key: str
    attempt_number: int
    budget: Any
    local_id: int | None = None
    attempt: _AttemptRef | None = None
    answerable: bool = False  # the provider can be asked about this local id after a crash
    gateway: channel.GatewayResult | None = None
    lost: bool = False  # the queued row was no longer ours when its turn came
    limited: float = 0.0  # the account's rate limit refused the call: seconds until it may go


_STAMP_SQL = f"UPDATE {SmsAttempt._meta.db_table} SET status = %s WHERE id = %s AND status = %s"  # noqa: S608


def _stamp_sending(attempt_id: int) -> int:
    """queued → sending, committed before the call (journeys.md "Leases"). ``SMS_STAMP_DURABLE = False`` commits
    it without waiting for the WAL flush: still safe when a worker dies, not when PostgreSQL itself crashes
    within a fraction of a second (the stamp may be lost and the step sent again) — off by default."""
    params = [AttemptStatus.SENDING, attempt_id, AttemptStatus.QUEUED]
    if getattr(django_settings, "SMS_STAMP_DURABLE", True) or connection.vendor != "postgresql":
        with connection.cursor() as cursor:  # one short committed statement: no query building
            cursor.execute(_STAMP_SQL, params)
            return cursor.rowcount
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL synchronous_commit TO OFF")
        cursor.execute(_STAMP_SQL, params)
        return cursor.rowcount


def _name_provider(attempt_id: int, kind: str, sender: str) -> None:
    """The fallback account is about to be called: the row names it first (committed), so an outcome lost in a
    crash is asked about at the provider that got the call."""
    SmsAttempt.objects.filter(pk=attempt_id, status=AttemptStatus.SENDING).update(provider=kind, sender=sender or "")


def _record_many(updates: list[tuple]) -> None:
    """Fill result fields once, for many attempts in one statement (only rows still ``sending``)."""
    if not updates:
        return
    now = timezone.now()
    if len(updates) == 1 or connection.vendor != "postgresql":
        for pk, status, response, provider, sender, retry_at in updates:
            values = {
                "status": status,
                "response_at": now,
                "retry_scheduled_at": retry_at,
                "provider_response": response.raw or None,
                "provider_message_id": (response.message_id or "")[:64],
                "error_code": (response.error_code or "")[:40],
                "error_message": (response.error_message or "")[:500],
            }
            if provider:
                values.update(provider=provider, sender=sender or "")
            SmsAttempt.objects.filter(pk=pk, status=AttemptStatus.SENDING).update(**values)
        return
    columns = list(zip(*updates, strict=True))
    responses = columns[2]
    params = [
        list(columns[0]),
        list(columns[1]),
        [json.dumps(r.raw) if r.raw else None for r in responses],
        [(r.message_id or "")[:64] for r in responses],
        [(r.error_code or "")[:40] for r in responses],
        [(r.error_message or "")[:500] for r in responses],
        list(columns[5]),
        [p or None for p in columns[3]],
        [sender if provider else None for provider, sender in zip(columns[3], columns[4], strict=True)],
    ]
    table = SmsAttempt._meta.db_table
    sql = (
        f"UPDATE {table} AS a SET status = v.status, response_at = %s,"  # noqa: S608
        " provider_response = v.provider_response::jsonb, provider_message_id = v.message_id,"
        " error_code = v.error_code, error_message = v.error_message, retry_scheduled_at = v.retry_at,"
        " provider = COALESCE(v.provider, a.provider), sender = COALESCE(v.sender, a.sender)"
        " FROM unnest(%b::bigint[], %b::varchar[], %b::text[], %b::varchar[], %b::varchar[], %b::varchar[],"
        " %b::timestamptz[], %b::varchar[], %b::varchar[]) AS v(id, status, provider_response, message_id,"
        " error_code, error_message, retry_at, provider, sender)"
        " WHERE a.id = v.id AND a.status = 'sending'"
    )
    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:  # server-side binding for the arrays
        cursor.execute(sql, [now, *params])


def assign_local_ids(plans: list[_Plan]) -> None:
    """The step's send slot (created once, INSERT … ON CONFLICT DO NOTHING): its id is the local id."""
    if not plans:
        return
    keys = {(p.ctx.execution.id, p.ctx.execution.cycle, p.ctx.node.id): p.ctx.execution.workspace_id for p in plans}
    found: dict[tuple, int] = {}
    if connection.vendor == "postgresql":
        rows = [{"workspace_id": w, "execution_id": e, "cycle": c, "node_id": n} for (e, c, n), w in keys.items()]
        written = bulk_insert(
            SmsSendSlot, rows, returning=("execution_id", "cycle", "node_id", "id"), conflict_do_nothing=True
        )
        found = {(e, c, n): pk for e, c, n, pk in written}
    else:
        SmsSendSlot.objects.bulk_create(
            [SmsSendSlot(workspace_id=w, execution_id=e, cycle=c, node_id=n) for (e, c, n), w in keys.items()],
            ignore_conflicts=True,
        )
    if len(found) < len(keys):  # slots that already existed (a step sent again)
        for e, c, n, pk in SmsSendSlot.objects.filter(
            execution_id__in={key[0] for key in keys if key not in found}
        ).values_list("execution_id", "cycle", "node_id", "id"):
            found.setdefault((e, c, n), pk)
    for p in plans:
        p.local_id = found[(p.ctx.execution.id, p.ctx.execution.cycle, p.ctx.node.id)]


class _PreviewScope:
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
            "on_unknown_outcome": {"type": "string", "enum": ["continue", "hold"], "default": "continue"},
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
        rendered = render(body, _PreviewScope(subject), on_missing=config.get("on_missing_variable") or "skip")
        info = count_segments(rendered.text)
        return {
            "text": rendered.text,
            "missing": rendered.missing,
            "unknown": unknown_variables(body),
            "segments": info.as_dict(),
            "long_text_warning": info.segments > 3,
        }

    @property
    def config_schema(self) -> dict[str, Any]:
        """The step's schema; the provider enum follows the provider registry (no code change per provider)."""
        schema = copy.deepcopy(self.base_config_schema)
        schema["properties"]["provider"]["enum"] = [None, *provider_kinds()]
        return schema

    # --- publish time --------------------------------------------------------------------------
    def validate_config(self, config: dict[str, Any]) -> list[str]:
        errors = []
        body = config.get("body")
        if not isinstance(body, str) or not body.strip():
            errors.append("متن پیامک لازم است.")
        elif len(body) > MAX_BODY:
            errors.append(f"متن پیامک حداکثر {MAX_BODY} نویسه است.")
        if config.get("on_missing_variable", "skip") not in ("skip", "blank"):
            errors.append("on_missing_variable باید skip یا blank باشد.")
        if config.get("provider") not in (None, "", *provider_kinds()):
            errors.append("سرویس‌دهنده پیامک ناشناخته است.")
        return errors

    def template_texts(self, config: dict[str, Any]) -> list[str]:
        return [config.get("body") or ""]

    def channel_problem(self, workspace) -> str | None:
        return channel.channel_problem(workspace.id)

    def channel_paused(self, workspace, now) -> dict[str, Any] | None:
        until = channel.paused_until(workspace.id, now)
        if until is None:
            return None
        reason = SmsSettings.objects.filter(workspace_id=workspace.id).values_list("pause_reason", flat=True).first()
        return {"until": until, "reason": reason or ""}

    def subject_problems(self, workspace, subjects) -> dict[int, str]:
        """The refused ones among ``subjects`` (a queryset of targets), in one query: no mobile, or a mobile
        on the workspace's active SMS blacklist."""
        refused = subjects.filter(
            Q(mobile__isnull=True) | Q(mobile="") | Q(mobile__in=channel.blacklisted_values(workspace.id))
        )
        rows = refused.values_list("pk", "mobile")
        return {pk: "blacklisted" if mobile else "no_valid_mobile" for pk, mobile in rows}

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

    # --- run time --------------------------------------------------------------------------------
    def execute(self, ctx) -> ActionResult:
        plan = self._plan(ctx)
        if isinstance(plan, ActionResult):
            return plan
        assign_local_ids([plan])
        # Tx2: reserve the daily limit and insert the attempt ``queued`` before any HTTP.
        try:
            with transaction.atomic():
                if not plan.budget.reserve():
                    return self._deferred_by_limit(ctx)
                plan.attempt = _AttemptRef.of(SmsAttempt.objects.create(**self._attempt_fields(plan)))
        except IntegrityError:
            return self._existing_attempt(plan.key, ctx)
        self._send([plan])  # no transaction of ours is open here: the provider call may take seconds
        return self._settle([plan])[0]

    def execute_many(self, ctxs: list) -> list[ActionResult]:
        """The batched job's path: one reservation per budget, one INSERT of the attempts, the calls (each
        stamped ``sending`` just before it, unless its row was written ``sending``), then one UPDATE of the
        results."""
        results: list[ActionResult | None] = [None] * len(ctxs)
        groups: dict[tuple, list[tuple[int, _Plan]]] = {}
        for index, ctx in enumerate(ctxs):
            plan = self._plan(ctx)
            if isinstance(plan, ActionResult):
                results[index] = plan
            else:
                b = plan.budget
                groups.setdefault((b.workspace_id, b.channel, b.day, b.scopes), []).append((index, plan))
        going: list[tuple[int, _Plan]] = []
        for members in groups.values():
            granted = members[0][1].budget.reserve_many(len(members))  # claim order = fairness order
            going += members[:granted]
            for index, plan in members[granted:]:
                results[index] = self._deferred_by_limit(plan.ctx)
        if going:
            try:
                with transaction.atomic():  # slots and attempts in one commit
                    assign_local_ids([p for _, p in going])
                    rows = _insert_attempts([self._attempt_fields(p) for _, p in going])
            except IntegrityError:  # a key already exists: give the units back and decide one by one
                for _, plan in going:
                    plan.budget.release()
                for index, plan in going:
                    results[index] = self.execute(plan.ctx)
                return results
            for (_, plan), row in zip(going, rows, strict=True):
                plan.attempt = row
            self._send([p for _, p in going])
            for (index, _), result in zip(going, self._settle([p for _, p in going]), strict=True):
                results[index] = result
        return results

    def _plan(self, ctx):
        """Everything decided before any write: recipient, text, earlier attempts, key (or a final result)."""
        ex, node = ctx.execution, ctx.node
        phone = _mobile(ctx.subject)  # always the live number
        if not phone:
            return ActionResult(ResultStatus.REJECTED, message="no valid mobile", data={"error": "no_valid_mobile"})
        config = node.config
        body = config.get("body") or ""
        settings = _cached_settings(ctx)
        if config.get("append_opt_out") and settings.opt_out_text:
            body = f"{body}\n{settings.opt_out_text}"
        rendered = render(body, ctx, on_missing=config.get("on_missing_variable", "skip"))
        if rendered.missing and config.get("on_missing_variable", "skip") == "skip":
            return ActionResult(ResultStatus.SKIPPED, message="missing variable", data={"missing": rendered.missing})
        earlier = _earlier_attempts(ctx, ex.id, ex.cycle, node.id)
        done = next((e.id for e in earlier if e.status in ACCEPTED), None)
        if done is not None:
            return ActionResult(
                ResultStatus.SUCCESS, message="already sent", data={"attempt_id": done, "duplicate": True}
            )
        # Reserved by a job that died before its turn: never called, so as if nothing happened.
        queued = [e for e in earlier if e.status == AttemptStatus.QUEUED]
        if queued:
            self._drop_queued(ctx, queued)
            earlier = [e for e in earlier if e.status != AttemptStatus.QUEUED]
        # Stamped ``sending`` by a job that died: the call may have reached the provider.
        for index, e in enumerate(earlier):
            if e.status == AttemptStatus.SENDING:
                self._record_id(
                    e.id,
                    AttemptStatus.UNKNOWN,
                    error_code="job_died",
                    error_message="worker stopped during the send",
                )
                earlier[index] = e._replace(status=AttemptStatus.UNKNOWN, error_code="job_died")
        unknown = [e for e in earlier if e.status == AttemptStatus.UNKNOWN]
        if unknown:
            decided = self._settle_unknown(ctx, unknown)
            if decided is not None:
                return decided
        number = len(earlier) + 1
        key = f"{ex.id}:{ex.cycle}:{node.id}:{number}"
        return _Plan(ctx, phone, rendered.text, key, number, ctx.budget(CHANNEL), answerable=_answerable(ctx))

    def _attempt_fields(self, plan: _Plan) -> dict[str, Any]:
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
            "provider": config.get("provider") or _primary_kind(plan.ctx),
            "sender": config.get("sender") or "",
            "attempt_number": plan.attempt_number,
            "cycle": ex.cycle,
            "idempotency_key": plan.key,
            "local_id": plan.local_id,
            "status": AttemptStatus.SENDING if plan.answerable else AttemptStatus.QUEUED,
            "job_token": plan.ctx.job_token,
            "request_at": plan.ctx.now,
            "segments": count_segments(plan.text).segments,
        }

    def _deferred_by_limit(self, ctx) -> ActionResult:
        return ActionResult(
            ResultStatus.DEFERRED,
            until=next_opening_tomorrow(ctx),
            message="daily limit",
            data={"event": EventType.DEFERRED_LIMIT},
        )

    def _send(self, plans: list[_Plan]) -> None:
        """Call the provider for each attempt, in order, with no transaction of ours open.

        An attempt whose every possible account answers "was local id N sent?" was written ``sending`` by its
        INSERT: after a crash it is asked about, and if it was never called it is sent again with the same
        local id. Any other attempt is written ``queued`` and stamped ``sending`` (committed) just before its
        own call, so a crash leaves at most that one send undecided (journeys.md "Decisions")."""
        for plan in plans:
            plan.ctx.heartbeat()
            # The account's rate limit first: a limited step is deferred without any call (row dropped, unit back).
            plan.gateway = channel.rate_take_first(_cached_settings(plan.ctx), plan.ctx.node.config.get("provider"))
            if plan.gateway is not None:
                continue
            if not plan.answerable and not _stamp_sending(plan.attempt.id):
                plan.lost = True  # pragma: no cover - one job holds an execution at a time
                continue
            self._call(plan)

    def _call(self, plan: _Plan) -> None:
        """The provider call of a stamped attempt (no transaction of ours is open)."""
        config = plan.ctx.node.config
        try:
            plan.gateway = channel.send_through_gateway(
                _cached_settings(plan.ctx),
                phone=plan.phone,
                text=plan.text,
                sender=config.get("sender"),
                local_id=str(plan.local_id),
                provider_kind=config.get("provider"),
                primary_rate_taken=True,
                before_fallback=lambda kind, sender: _name_provider(plan.attempt.id, kind, sender),
            )
        except STOP_EXCEPTIONS:
            raise  # the task's time is up; the rows stay ``sending`` and are settled by the next run
        except Exception as exc:  # the outcome is unknown: never resend blindly
            logger.exception("provider call raised for attempt %s", plan.attempt.id)
            plan.gateway = channel.GatewayResult(
                SendResponse("unknown", error_code="exception", error_message=type(exc).__name__),
                plan.attempt.provider,
                plan.attempt.sender,
            )

    def _settle(self, plans: list[_Plan]) -> list[ActionResult]:
        """Write every result once (status only while ``sending``), give back the budget of what surely was not
        sent (an unknown keeps its unit until settled), drive the circuit."""
        results, updates = [], []
        release: dict[int, int] = {}
        for plan in plans:
            ctx, gateway = plan.ctx, plan.gateway
            if plan.lost:
                results.append(ActionResult(ResultStatus.DEFERRED, until=ctx.now + settle_delay(), message="busy"))
                continue
            if gateway.retry_after:  # the account's rate limit: nothing was called
                results.append(self._rate_limited(plan, gateway))
                release[id(plan.budget)] = release.get(id(plan.budget), 0) + 1
                continue
            response = gateway.response
            data = {"attempt_id": plan.attempt.id, "provider": gateway.provider, "event": EventType.ACTION_ATTEMPT}
            status = _RESULT_STATUS.get(response.status, AttemptStatus.FAILED)
            retry_at = self._retry_at(ctx) if status == AttemptStatus.FAILED else None
            updates.append((plan.attempt.id, status, response, gateway.provider, gateway.sender, retry_at))
            if status not in (AttemptStatus.SUBMITTED, AttemptStatus.UNKNOWN):
                release[id(plan.budget)] = release.get(id(plan.budget), 0) + 1
            if status == AttemptStatus.SUBMITTED:
                if _cached_settings(ctx).paused_until is not None:  # this send was the probe after an outage
                    channel.close_circuit(ctx.workspace.id)
                    ctx.cache.pop(("sms_settings", ctx.workspace.id), None)
                results.append(ActionResult(ResultStatus.SUCCESS, data=data))
            elif status == AttemptStatus.UNAVAILABLE:
                until = channel.trip_circuit(ctx.workspace.id, response.error_message or response.error_code, ctx.now)
                ctx.cache.pop(("sms_settings", ctx.workspace.id), None)  # later executions of this job see the pause
                results.append(
                    ActionResult(ResultStatus.UNAVAILABLE, until=until, message=response.error_code, data=data)
                )
            elif status == AttemptStatus.UNKNOWN:
                results.append(self._unknown_result(ctx, gateway.provider, response.error_code, data))
            elif status == AttemptStatus.REJECTED:
                results.append(ActionResult(ResultStatus.REJECTED, message=response.error_code, data=data))
            else:
                results.append(
                    ActionResult(ResultStatus.FAILED, retryable=True, message=response.error_code, data=data)
                )
        budgets = {id(p.budget): p.budget for p in plans}
        for key, count in release.items():  # only accepted (or possibly accepted) attempts consume the budget
            if count == 1:
                budgets[key].release()
            else:
                budgets[key].release_many(count)
        _record_many(updates)
        return results

    def _rate_limited(self, plan: _Plan, gateway: channel.GatewayResult) -> ActionResult:
        """A limited step is deferred shortly: its never-called row goes and its unit comes back (the caller
        releases it), no retry is consumed."""
        SmsAttempt.objects.filter(pk=plan.attempt.id, status__in=(AttemptStatus.QUEUED, AttemptStatus.SENDING)).delete()
        return ActionResult(
            ResultStatus.DEFERRED,
            until=plan.ctx.now + timedelta(seconds=rate_limits.defer_seconds(gateway.retry_after)),
            message="rate limited",
            data={"event": EventType.DEFERRED_CHANNEL, "reason": "rate_limited", "provider": gateway.provider},
        )

    def _unknown_result(self, ctx, provider_kind: str, reason: str, data: dict) -> ActionResult:
        """Right after an unknown outcome: ask the provider later (if it can be asked), else on_unknown_outcome."""
        provider = provider_for(provider_kind or "")
        if provider is not None and provider.has_status_query:
            return ActionResult(
                ResultStatus.DEFERRED,
                until=ctx.now + settle_delay(),
                message=f"settling: {reason}",
                data={**data, "event": EventType.UNKNOWN_OUTCOME, "reason": reason},
            )
        return ActionResult(ResultStatus.UNKNOWN, message=reason or "unknown", data={**data, "reason": reason})

    # --- after a crash or an unknown outcome ------------------------------------------------------
    def _budget_of(self, ctx, request_at: datetime):
        """The budget a unit was reserved from: the workspace calendar day of its request."""
        return replace(ctx.budget(CHANNEL), day=local_day(request_at, ctx.tz))

    def _drop_queued(self, ctx, rows: list[_Earlier]) -> None:
        for e in rows:
            deleted, _ = SmsAttempt.objects.filter(pk=e.id, status=AttemptStatus.QUEUED).delete()
            if deleted:
                self._budget_of(ctx, e.request_at).release()

    def _settle_unknown(self, ctx, unknown: list[_Earlier]) -> ActionResult | None:
        """Decide an unknown attempt of this step; None means "surely not sent: send again (same local id)"."""
        latest = unknown[-1]
        data = {"attempt_id": latest.id, "event": EventType.ACTION_ATTEMPT}
        if (ctx.execution.metadata or {}).get(RESEND_UNKNOWN) == ctx.node.id:  # a person chose "resend"
            for e in unknown:
                if self._record_id(e.id, AttemptStatus.FAILED, error_code="resend_chosen", from_status="unknown"):
                    self._budget_of(ctx, e.request_at).release()
            return None
        answer = None
        provider_kind = latest.provider or ctx.node.config.get("provider") or _primary_kind(ctx)
        if latest.local_id and provider_kind:
            ctx.heartbeat()
            answer = channel.query_sent(
                _cached_settings(ctx), provider_kind=provider_kind, local_id=str(latest.local_id)
            )
        if answer is None:  # this provider cannot be asked: the step's on_unknown_outcome decides
            reason = latest.error_code or "no_status_query"
            return ActionResult(ResultStatus.UNKNOWN, message=reason, data={**data, "reason": reason})
        if answer.error_code == channel.RATE_LIMITED:  # not asked: shortly again, not counted as a question
            return ActionResult(
                ResultStatus.DEFERRED,
                until=ctx.now + timedelta(seconds=rate_limits.defer_seconds(1)),
                message="settling: rate limited",
                data={**data, "event": EventType.DEFERRED_CHANNEL, "reason": "rate_limited"},
            )
        asked = SmsLogEvent.objects.filter(attempt_id=latest.id, event="status_query").count() + 1
        SmsLogEvent.objects.create(
            workspace_id=ctx.workspace.id,
            attempt_id=latest.id,
            event="status_query",
            provider_status=answer.state,
            payload=answer.raw or {"error": answer.error_code},
            dedupe_key=f"status_query:{asked}",
            occurred_at=timezone.now(),
        )
        if answer.state == "sent":
            SmsAttempt.objects.filter(pk=latest.id, status=AttemptStatus.UNKNOWN).update(
                status=AttemptStatus.SUBMITTED, provider_message_id=answer.message_id[:64]
            )
            if answer.status and answer.status != AttemptStatus.SUBMITTED:  # already further: sent, delivered, …
                attempt_status_apply(
                    attempt_id=latest.id,
                    workspace_id=ctx.workspace.id,
                    status=answer.status,
                    event="delivery_status",
                    provider_status=answer.provider_status,
                    dedupe_key=f"poll:{answer.provider_status}",
                    payload=answer.raw,
                )
            for e in unknown[:-1]:  # the provider holds one message per local id
                if self._record_id(e.id, AttemptStatus.FAILED, error_code="same_local_id", from_status="unknown"):
                    self._budget_of(ctx, e.request_at).release()
            return ActionResult(ResultStatus.SUCCESS, message="settled: sent", data={**data, "settled": "sent"})
        if answer.state in ("not_sent", "rejected"):
            status = AttemptStatus.FAILED if answer.state == "not_sent" else AttemptStatus.REJECTED
            for e in unknown:
                if self._record_id(e.id, status, error_code=answer.error_code or answer.state, from_status="unknown"):
                    self._budget_of(ctx, e.request_at).release()
            if answer.state == "rejected":
                return ActionResult(ResultStatus.REJECTED, message="settled: rejected", data=data)
            return None
        if asked < settle_tries():
            return ActionResult(
                ResultStatus.DEFERRED,
                until=ctx.now + settle_delay(),
                message="settling: no answer",
                data={**data, "event": EventType.UNKNOWN_OUTCOME, "reason": answer.error_code or "no_answer"},
            )
        reason = f"unsettled after {asked} status queries"
        return ActionResult(ResultStatus.UNKNOWN, message=reason, data={**data, "reason": reason})

    def _retry_at(self, ctx):
        retry = ctx.node.config.get("retry") or {}
        if not retry.get("enabled", True) or ctx.execution.retry_count >= int(retry.get("max_attempts", 0)):
            return None
        strategy = RETRY_STRATEGIES.get(retry.get("strategy", "fixed"))
        return ctx.now + timedelta(seconds=strategy.delay_seconds(ctx.execution.retry_count + 1, retry))

    def _record_id(
        self, pk: int, status: str, *, error_code: str = "", error_message: str = "", from_status: str = "sending"
    ) -> bool:
        """Close an attempt (only from ``from_status``: results are written once, status only moves forward)."""
        values = {"status": status, "error_code": error_code[:40]}
        if from_status == AttemptStatus.SENDING:
            values.update(response_at=timezone.now(), error_message=error_message[:500])
        return SmsAttempt.objects.filter(pk=pk, status=from_status).update(**values) == 1

    def _existing_attempt(self, key: str, ctx) -> ActionResult:
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


# --- guards -----------------------------------------------------------------------------------------
def _primary_kind(ctx) -> str:
    account = _cached_settings(ctx).primary_account
    return account.provider if account is not None else ""


def _answerable(ctx) -> bool:
    """Whether every account this step's send may call can later be asked about its local id (the step's
    provider, or the primary and the fallback used when the primary is unusable)."""
    chosen = ctx.node.config.get("provider")
    provider = provider_for(chosen or _primary_kind(ctx))
    if provider is None or not provider.has_status_query:
        return False
    settings = _cached_settings(ctx)
    if chosen or not settings.fallback_account_id:
        return True
    fallback = provider_for(settings.fallback_account.provider)
    return fallback is not None and fallback.has_status_query


def _cached_settings(ctx):
    """The workspace's SMS settings, read once per job (reloaded after the circuit changes)."""
    key = ("sms_settings", ctx.workspace.id)
    if key not in ctx.cache:
        ctx.cache[key] = channel.sms_settings(ctx.workspace.id)
    return ctx.cache[key]


def circuit_breaker_guard(ctx) -> GuardDecision:
    until = _cached_settings(ctx).paused_until
    if until is None or until <= ctx.now:
        return GuardDecision.allow()
    return GuardDecision("defer", until=until, reason="channel_paused", event=EventType.DEFERRED_CHANNEL)


def _earlier_attempts(ctx, execution_id: int, cycle: int, node_id: int) -> list[_Earlier]:
    """Earlier attempts of this step, oldest first; one query for a whole batch when the runner batches."""
    batch_ids = ctx.cache.get("batch_execution_ids")
    if not batch_ids or execution_id not in batch_ids:
        qs = SmsAttempt.objects.filter(execution_id=execution_id, cycle=cycle, node_id=node_id).order_by("id")
        return [_Earlier(*row) for row in qs.values_list(*_EARLIER_FIELDS)]
    key = ("sms_earlier", node_id)  # one query per step node of the batch (usually one)
    if key not in ctx.cache:
        found: dict = {}
        for row in (
            SmsAttempt.objects.filter(ids_match("execution_id", batch_ids), node_id=node_id)
            .order_by("id")
            .values_list("execution_id", "cycle", *_EARLIER_FIELDS)
        ):
            found.setdefault(row[:2], []).append(_Earlier(*row[2:]))
        ctx.cache[key] = found
    return ctx.cache[key].get((execution_id, cycle), [])


def _blacklisted(ctx, number: str | None) -> bool:
    """Blacklist lookup; one query for the whole batch's numbers when the runner batches."""
    if not number:
        return False
    subjects = ctx.cache.get("batch_subjects")
    if not subjects:
        return channel.is_blacklisted(ctx.workspace.id, number)
    key = ("sms_blacklisted", ctx.workspace.id)
    if key not in ctx.cache:
        numbers = [_mobile(s) for s in subjects if getattr(s, "workspace_id", None) == ctx.workspace.id]
        ctx.cache[key] = channel.blacklisted_numbers(ctx.workspace.id, [n for n in numbers if n])
        ctx.cache[(*key, "numbers")] = set(numbers)
    if number not in ctx.cache[(*key, "numbers")]:  # the number changed since the batch started
        return channel.is_blacklisted(ctx.workspace.id, number)
    return number in ctx.cache[key]


def blacklist_guard(ctx) -> GuardDecision:
    if _blacklisted(ctx, _mobile(ctx.subject)):
        return GuardDecision("block", reason="blacklisted")
    return GuardDecision.allow()


def register() -> None:
    from automation.engine.registry import ACTIONS

    ACTIONS.register(SendSmsAction.key, SendSmsAction())
    GUARDS.register("circuit_breaker", circuit_breaker_guard)
    GUARDS.register("blacklist", blacklist_guard)
