"""Attempt rows: the batch INSERT, the committed ``sending`` stamp, the step's local id and the
write-once result UPDATEs (only from the status a row is in: results are written once)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

import psycopg
from django.conf import settings as django_settings
from django.db import connection, transaction
from django.utils import timezone

from campaigns.platform.bulk import bulk_insert, unnest_columns
from campaigns.platform.database import is_postgresql
from sms import webhook_events
from sms.choices import AttemptStatus
from sms.models import SmsAttempt, SmsSendSlot
from sms.segments import count_segments

if TYPE_CHECKING:
    from sms.channel import GatewayResult

CHANNEL = "sms"  # the engine's budget channel of these attempts


class AttemptRef(NamedTuple):
    """What the send loop needs of an attempt row it wrote."""

    id: int
    provider: str
    sender: str

    @classmethod
    def of(cls, attempt: SmsAttempt) -> AttemptRef:
        return cls(attempt.id, attempt.provider, attempt.sender)


@dataclass
class Plan:
    """One step's send as planned (``planning.plan_step``) and then written and sent."""

    ctx: Any
    phone: str
    text: str
    key: str
    attempt_number: int
    budget: Any
    local_id: int | None = None
    attempt: AttemptRef | None = None
    answerable: bool = False  # the provider can be asked about this local id after a crash
    gateway: GatewayResult | None = None
    lost: bool = False  # the queued row was no longer ours when its turn came
    limited: float = 0.0  # the account's rate limit refused the call: seconds until it may go
    cap_units: tuple = ()  # the frequency cap's counters this send took a unit of: (period, start) (sms.frequency_cap)

    @cached_property
    def segments(self) -> int:
        """The text's message parts (the attempt row and the rate limit read it)."""
        return count_segments(self.text).segments


def insert_attempts(rows: list[dict[str, Any]]) -> list[AttemptRef]:
    """The batch's attempts in one INSERT (PostgreSQL: unnest, no model instances), in the order given."""
    if not is_postgresql(connection):
        return [AttemptRef.of(a) for a in SmsAttempt.objects.bulk_create([SmsAttempt(**row) for row in rows])]
    ids = dict(bulk_insert(SmsAttempt, rows, returning=("idempotency_key", "id")))
    return [AttemptRef(ids[row["idempotency_key"]], row["provider"], row["sender"]) for row in rows]


STAMP_SQL = f"UPDATE {SmsAttempt._meta.db_table} SET status = %s WHERE id = ANY(%s) AND status = %s RETURNING id"  # noqa: S608


def stamp_sending(attempt_ids: list[int]) -> set[int]:
    """queued → sending for one provider call's attempts, committed once before that call (journeys.md
    "Leases"): the ids stamped (a row no longer ``queued`` is not ours). ``SMS_STAMP_DURABLE = False`` commits
    it without waiting for the WAL flush: still safe when a worker dies, not when PostgreSQL itself crashes
    within a fraction of a second (the stamp may be lost and the call sent again) — off by default."""
    if not attempt_ids:
        return set()
    if not is_postgresql(connection):
        stamped = set(
            SmsAttempt.objects.filter(pk__in=attempt_ids, status=AttemptStatus.QUEUED).values_list("pk", flat=True)
        )
        SmsAttempt.objects.filter(pk__in=stamped, status=AttemptStatus.QUEUED).update(status=AttemptStatus.SENDING)
        return stamped
    params = [AttemptStatus.SENDING, list(attempt_ids), AttemptStatus.QUEUED]
    with transaction.atomic(), connection.cursor() as cursor:  # one short committed statement: no query building
        if not django_settings.SMS_STAMP_DURABLE:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")
        cursor.execute(STAMP_SQL, params)
        return {row[0] for row in cursor.fetchall()}


def name_provider_many(attempt_ids: list[int], kind: str, sender: str) -> None:
    """The fallback account is about to be called: the rows name it first (committed), so an outcome lost in a
    crash is asked about at the provider that got the call."""
    SmsAttempt.objects.filter(pk__in=attempt_ids, status=AttemptStatus.SENDING).update(
        provider=kind, sender=sender or ""
    )


def record_many(updates: list[tuple], *, workspace_ids: Iterable[int] = ()) -> None:
    """Fill result fields once, for many attempts in one statement (only rows still ``sending``). When one of
    ``workspace_ids`` subscribes to an SMS attempt webhook, the rows written and their events (one INSERT) commit
    together (``sms.webhook_events``); otherwise nothing more is done."""
    if not updates:
        return
    if not webhook_events.attempts_wanted(workspace_ids):
        _record_many(updates)
        return
    with transaction.atomic():
        webhook_events.attempts_moved(attempt_ids=_record_many(updates))


def _record_many(updates: list[tuple]) -> list[int]:
    """The ids of the rows written."""
    now = timezone.now()
    moved: list[int] = []
    if len(updates) == 1 or not is_postgresql(connection):
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
            if SmsAttempt.objects.filter(pk=pk, status=AttemptStatus.SENDING).update(**values):
                moved.append(pk)
        return moved
    columns = list(zip(*updates, strict=True))
    responses = columns[2]
    values = [
        ("id", list(columns[0]), "bigint"),
        ("status", list(columns[1]), "varchar"),
        ("provider_response", [json.dumps(r.raw) if r.raw else None for r in responses], "text"),
        ("message_id", [(r.message_id or "")[:64] for r in responses], "varchar"),
        ("error_code", [(r.error_code or "")[:40] for r in responses], "varchar"),
        ("error_message", [(r.error_message or "")[:500] for r in responses], "varchar"),
        ("retry_at", list(columns[5]), "timestamptz"),
        ("provider", [p or None for p in columns[3]], "varchar"),
        (
            "sender",
            [sender if provider else None for provider, sender in zip(columns[3], columns[4], strict=True)],
            "varchar",
        ),
    ]
    selects, source, params = unnest_columns([(column, cast, "") for _, column, cast in values])
    named = ", ".join(f"{expr} AS {name}" for expr, (name, _, _) in zip(selects, values, strict=True))
    table = SmsAttempt._meta.db_table
    sql = (
        f"UPDATE {table} AS a SET status = v.status, response_at = %s,"  # noqa: S608
        " provider_response = v.provider_response::jsonb, provider_message_id = v.message_id,"
        " error_code = v.error_code, error_message = v.error_message, retry_scheduled_at = v.retry_at,"
        " provider = COALESCE(v.provider, a.provider), sender = COALESCE(v.sender, a.sender)"
        f" FROM (SELECT {named} FROM {source}) AS v WHERE a.id = v.id AND a.status = 'sending' RETURNING a.id"
    )
    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:  # server-side binding (a shared value bound once)
        cursor.execute(sql, [now, *params])
        return [row[0] for row in cursor.fetchall()]


NEXT_LOCAL_IDS_SQL = "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)"


def assign_local_ids(plans: list[Plan]) -> None:
    """The step's numeric local id, the same on every attempt of the step: an earlier attempt's (``plan_step``
    read it), else a new number. On PostgreSQL the new numbers come from the send-slot id sequence in one
    statement for the batch and no row is written (a sequence never gives a number twice, so no new local id
    repeats one already sent, the earlier slot rows' included); elsewhere a slot row per step (INSERT … ON
    CONFLICT DO NOTHING), its id."""
    fresh = [p for p in plans if p.local_id is None]
    if not fresh:
        return
    if is_postgresql(connection):
        with connection.cursor() as cursor:
            cursor.execute(NEXT_LOCAL_IDS_SQL, [SmsSendSlot._meta.db_table, len(fresh)])
            for plan, (number,) in zip(fresh, cursor.fetchall(), strict=True):
                plan.local_id = number
        return
    keys = {(p.ctx.execution.id, p.ctx.execution.cycle, p.ctx.node.id): p.ctx.execution.workspace_id for p in fresh}
    SmsSendSlot.objects.bulk_create(
        [SmsSendSlot(workspace_id=w, execution_id=e, cycle=c, node_id=n) for (e, c, n), w in keys.items()],
        ignore_conflicts=True,
    )
    found = {
        (e, c, n): pk
        for e, c, n, pk in SmsSendSlot.objects.filter(execution_id__in={key[0] for key in keys}).values_list(
            "execution_id", "cycle", "node_id", "id"
        )
    }
    for p in fresh:
        p.local_id = found[(p.ctx.execution.id, p.ctx.execution.cycle, p.ctx.node.id)]


def record_id(
    pk: int, status: str, *, error_code: str = "", error_message: str = "", from_status: str = "sending"
) -> bool:
    """Close an attempt (only from ``from_status``: results are written once, status only moves forward)."""
    values = {"status": status, "error_code": error_code[:40]}
    if from_status == AttemptStatus.SENDING:
        values.update(response_at=timezone.now(), error_message=error_message[:500])
    return SmsAttempt.objects.filter(pk=pk, status=from_status).update(**values) == 1
