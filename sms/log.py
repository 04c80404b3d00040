"""The SMS log page's rows: every attempt, and every SMS step that ended without one.

The seed's log statuses include ``skipped``, ``blacklisted`` and ``cancelled``: an SMS step skipped (a missing
variable, a disabled step, retries exhausted with "skip"), a journey stopped at its SMS step because the number
is blacklisted, or cancelled while its send was still due (campaign cancelled or ended, target removed or its
status changed). Those make no attempt row — nothing reached a provider — but they are the execution's events
at an SMS node, so the log reads them from there and pages both together by time and keyset (``MergedLog``:
each source in its own index order from the cursor on, merged here). A failed attempt whose retry is still to
come is «در انتظار تلاش مجدد».
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Unpack

from django.db.models import Exists, OuterRef, Q, QuerySet

from automation.choices import EndReason, EventType, ExecutionStatus
from automation.models import STEP_OUTCOME_EVENTS, ExecutionEvent
from automation.reasons import reason_label
from campaigns.models import Target
from campaigns.platform.keyset import BadCursor, KeysetPage, decode_source_cursor, encode_cursor
from campaigns.platform.keyset import _after as keyset_after
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, scoped
from sms.choices import RETRY_PENDING, STEP_OUTCOMES, AttemptStatus
from sms.models import SmsAttempt
from sms.selectors import LogFilters, attempt_queryset, log_filter, number_filter

SMS_ACTION = "send_sms"
END_REASON_LABELS = dict(EndReason.choices)


def _later_attempt():
    return SmsAttempt.objects.filter(
        execution_id=OuterRef("execution_id"),
        cycle=OuterRef("cycle"),
        node_id=OuterRef("node_id"),
        attempt_number__gt=OuterRef("attempt_number"),
    )


def _retry_pending() -> Q:
    """A failed attempt with a retry scheduled and no later attempt of the same step yet."""
    return Q(status=AttemptStatus.FAILED, retry_scheduled_at__isnull=False, has_later=False)


def step_outcome_events(*, actor: Actor, outcome: str | None = None, **filters: Unpack[LogFilters]) -> QuerySet:
    """SMS steps that ended without an attempt (skipped / blacklisted / cancelled), newest first."""
    actor.require(Perm.VIEW_SMS_LOGS)
    qs = scoped(ExecutionEvent, actor.workspace).filter(STEP_OUTCOME_EVENTS, node__subtype=SMS_ACTION)
    if outcome == "skipped":
        qs = qs.filter(type=EventType.SKIPPED)
    elif outcome == "blacklisted":
        qs = qs.filter(to_status=ExecutionStatus.BLACKLISTED)
    elif outcome == "cancelled":
        qs = qs.filter(to_status=ExecutionStatus.CANCELLED)

    def by_number(qs: QuerySet, number: str) -> QuerySet:
        targets = number_filter(scoped(Target, actor.workspace), "mobile", number)
        return qs.filter(subject_id__in=targets.values("id"))

    return log_filter(qs, at="occurred_at", by_number=by_number, **filters)


KINDS = ("attempt", "step")  # at one moment, newest first: a step's row, then an attempt's


def _beyond(kind: str, at: str, moment: datetime, pk: int, source: str, descending: bool) -> Q:
    """Rows of source ``kind`` that come after the cursor's row ``(moment, source, pk)`` in the order
    ``(time, source, id)``, descending or ascending; the time bound comes first so the scan starts there."""
    if kind == source:
        return keyset_after(at, descending, moment, pk)
    before = kind < source
    if descending:
        return Q(**{f"{at}__lte" if before else f"{at}__lt": moment})
    return Q(**{f"{at}__gt" if before else f"{at}__gte": moment})


class MergedLog:
    """The log's rows, newest first: attempts and step outcomes merged by time, paged by keyset.

    Each source is read in its own index order (``smslog_ws_time`` and the other attempt indexes; the partial
    ``exevent_step_outcomes``) from the cursor on with a LIMIT of the page's size + 1, and the two are merged
    here — never one sort over both tables, nothing counted. The order is ``(time, source, id)`` and the cursor
    names the source of its row (``encode_cursor(..., source)``; a cursor without one is an attempt's, as the
    attempts-only log made), so rows at one moment in both tables are never shown twice or skipped.
    """

    def __init__(self, parts: list[tuple[str, QuerySet, str]]) -> None:
        self.parts = parts

    def page(self, *, size: int, cursor: str | None) -> KeysetPage:
        """Raises ``BadCursor`` for a cursor that is not one of ours."""
        direction = "n"
        if cursor:
            moment, pk, direction, source = decode_source_cursor(cursor)
            source = source or "attempt"
            if source not in KINDS:
                raise BadCursor(cursor)
        descending = direction == "n"
        sign = "-" if descending else ""
        streams = []
        for kind, qs, at in self.parts:
            if cursor:
                qs = qs.filter(_beyond(kind, at, moment, pk, source, descending))
            keys = qs.order_by(f"{sign}{at}", f"{sign}id").values_list("id", at)[: size + 1]
            streams.append([(when, kind, row_id) for row_id, when in keys])
        merged = list(itertools.islice(heapq.merge(*streams, reverse=descending), size + 1))
        more = len(merged) > size
        merged = merged[:size]
        if not descending:
            merged.reverse()
        rows = [(kind, row_id, when) for when, kind, row_id in merged]

        def key(row: tuple[str, int, datetime], towards: str) -> str:
            return encode_cursor(row[2], row[1], towards, row[0])

        page = KeysetPage(rows=rows, size=size)
        if rows:
            if descending:
                page.next_cursor = key(rows[-1], "n") if more else None
                page.previous_cursor = key(rows[0], "p") if cursor else None
            else:
                page.previous_cursor = key(rows[0], "p") if more else None
                page.next_cursor = key(rows[-1], "n")
        elif cursor and descending:  # past the end (rows deleted since): offer the way back
            page.previous_cursor = encode_cursor(moment, pk, "p", source)
        return page


def sms_log_queryset(*, actor: Actor, status: str | None = None, **filters: Unpack[LogFilters]) -> MergedLog:
    """``(kind, id, at)`` of the log's rows, newest first: attempts and SMS steps that ended without one."""
    parts = []
    if status is None or status in AttemptStatus.values or status == RETRY_PENDING:
        attempts = attempt_queryset(actor=actor, status=status if status in AttemptStatus.values else None, **filters)
        if status == RETRY_PENDING:
            attempts = attempts.annotate(has_later=Exists(_later_attempt())).filter(_retry_pending())
        parts.append(("attempt", attempts.select_related(None), "request_at"))
    if status is None or status in STEP_OUTCOMES:
        parts.append(("step", step_outcome_events(actor=actor, outcome=status, **filters), "occurred_at"))
    return MergedLog(parts)


@dataclass
class LogRow:
    """One row of the SMS log: an attempt (``attempt`` set) or a step that ended without one."""

    kind: str
    at: datetime
    phone: str
    campaign_name: str
    status: str
    status_label: str
    attempt: Any = None
    reason: str = ""
    retry_pending: bool = False


def _step_reason(event: ExecutionEvent, status: str) -> str:
    if status == "blacklisted":
        return "شماره در لیست سیاه است؛ پیامکی فرستاده نشد و سفر این مخاطب متوقف شد."
    if status == "cancelled":
        why = END_REASON_LABELS.get(event.message) or END_REASON_LABELS.get(str(event.data.get("reason", "")))
        return f"سفر پیش از این ارسال لغو شد{f' ({why})' if why else ''}؛ پیامکی فرستاده نشد."
    label = reason_label(event.message)
    return "" if label.isascii() else label  # an English reason with no label is not shown


def sms_log_page(*, actor: Actor, size: int, cursor: str | None, **filters: Any) -> KeysetPage:
    """One page of the log (``(kind, id, at)`` keys); a cursor that does not parse shows the first page."""
    log = sms_log_queryset(actor=actor, **filters)
    try:
        return log.page(size=size, cursor=cursor)
    except BadCursor:
        return log.page(size=size, cursor=None)


def sms_log_rows(*, actor: Actor, page) -> list[LogRow]:
    """The rows of one page of ``sms_log_queryset``, in its order."""
    keys = list(page)
    attempt_ids = [i for kind, i, _ in keys if kind == "attempt"]
    event_ids = [i for kind, i, _ in keys if kind == "step"]
    attempts = {
        a.id: a
        for a in scoped(SmsAttempt, actor.workspace)
        .filter(pk__in=attempt_ids)
        .select_related("campaign")
        .annotate(has_later=Exists(_later_attempt()))
    }
    events = {
        e.id: e for e in scoped(ExecutionEvent, actor.workspace).filter(pk__in=event_ids).select_related("campaign")
    }
    subjects = Target.objects.filter(workspace=actor.workspace, pk__in={e.subject_id for e in events.values()})
    phones = dict(subjects.order_by().values_list("id", "mobile"))
    rows = []
    for kind, pk, _ in keys:
        if kind == "attempt" and pk in attempts:
            a = attempts[pk]
            pending = a.status == AttemptStatus.FAILED and a.retry_scheduled_at is not None and not a.has_later
            rows.append(
                LogRow(
                    kind="attempt",
                    at=a.request_at,
                    phone=a.phone,
                    campaign_name=a.campaign.name,
                    status=RETRY_PENDING if pending else a.status,
                    status_label="در انتظار تلاش مجدد" if pending else a.get_status_display(),
                    attempt=a,
                    retry_pending=pending,
                )
            )
        elif kind == "step" and pk in events:
            e = events[pk]
            status = (
                "skipped"
                if e.type == EventType.SKIPPED
                else ("blacklisted" if e.to_status == ExecutionStatus.BLACKLISTED else "cancelled")
            )
            rows.append(
                LogRow(
                    kind="step",
                    at=e.occurred_at,
                    phone=phones.get(e.subject_id) or "",
                    campaign_name=e.campaign.name,
                    status=status,
                    status_label=STEP_OUTCOMES[status],
                    reason=_step_reason(e, status),
                )
            )
    return rows
