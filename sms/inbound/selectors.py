"""Reads of two-way SMS: the inbox and a target's conversation (sent and received in one thread)."""

from __future__ import annotations

from datetime import datetime
from itertools import chain

from django.db.models import Exists, OuterRef, Q, QuerySet

from campaigns.models import Campaign
from campaigns.platform.keyset import BadCursor, KeysetPage, decode_source_cursor, encode_cursor
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, scoped
from campaigns.selectors import target_get
from sms.choices import AttemptStatus
from sms.inbound.models import InboundSms
from sms.models import SmsAttempt, SmsProviderAccount

CONVERSATION_LIMIT = 200
_NOT_SENT = (AttemptStatus.QUEUED,)


def inbound_queryset(*, actor: Actor) -> QuerySet:
    """The workspace's replies, newest first."""
    return scoped(InboundSms, actor.workspace).select_related("target", "campaign").order_by("-received_at", "-id")


# A thread's order: time, then a sent message before a reply at the same moment, then id (per direction).
DIRECTIONS = ("out", "in")


def thread_key(row: dict) -> tuple:
    return (row["at"], DIRECTIONS.index(row["direction"]), row["id"])


def thread_position(row: dict) -> str:
    """A message's keyset position in its thread, opaque: the page's ``thread_before`` / ``thread_after``, the
    API's ``before``."""
    return encode_cursor(row["at"], row["id"], "n", source=row["direction"])


def thread_position_parse(raw: str) -> tuple[datetime, str, int]:
    """(time, direction, id) of a position made by ``thread_position``; ``BadCursor`` for anything else."""
    moment, pk, _direction, source = decode_source_cursor(raw)
    if source not in DIRECTIONS:
        raise BadCursor(raw)
    return moment, source, pk


def _beyond(time_field: str, rank: int, position: tuple[datetime, str, int], *, newer: bool = False) -> Q:
    """Rows of the direction ranked ``rank`` that come before (``newer``: after) the keyset position ``position``
    (time, direction, id) in the thread's order; the time bound repeated alone so the index scan starts at it."""
    moment, direction, pk = position
    wide, strict = ("gte", "gt") if newer else ("lte", "lt")
    here = DIRECTIONS.index(direction)
    if rank == here:
        return Q(**{f"{time_field}__{wide}": moment}) & (
            Q(**{f"{time_field}__{strict}": moment}) | Q(**{f"id__{strict}": pk})
        )
    same_moment_counts = rank > here if newer else rank < here  # a sent message precedes a reply at one moment
    return Q(**{f"{time_field}__{wide if same_moment_counts else strict}": moment})


def conversation(
    *,
    actor: Actor,
    target_id: int,
    limit: int | None = None,
    before: tuple[datetime, str, int] | None = None,
    after: tuple[datetime, str, int] | None = None,
) -> list[dict]:
    """The last ``limit`` (default ``CONVERSATION_LIMIT``) messages between the workspace and the target (its
    mobile) before the keyset position ``before`` — (time, "out"|"in", id) of a message, None: now — or, given
    ``after``, the first ``limit`` after that position; oldest first either way: each ``{"direction": "out"|"in",
    "id", "at", "text", "line", "status", "campaign_id", "outcome"}``, in the order of ``thread_key``.

    Two index range reads of ``limit`` rows each (the attempts by workspace + phone + time, the replies by target
    and by number), merged here — a target with years of messages costs the same. A position, not an offset:
    messages arriving meanwhile never shift an older page, and messages sharing a time are neither lost nor
    repeated across pages."""
    limit = limit or CONVERSATION_LIMIT
    target = target_get(actor=actor, target_id=target_id)
    received = scoped(InboundSms, actor.workspace).filter(
        Q(target=target) | Q(number=target.mobile) if target.mobile else Q(target=target)
    )
    sent = (
        scoped(SmsAttempt, actor.workspace).filter(phone=target.mobile).exclude(status__in=_NOT_SENT)
        if target.mobile
        else SmsAttempt.objects.none()
    )
    if before is not None:
        sent, received = (
            sent.filter(_beyond("request_at", 0, before)),
            received.filter(_beyond("received_at", 1, before)),
        )
    newer = after is not None and before is None
    if newer:
        sent = sent.filter(_beyond("request_at", 0, after, newer=True))
        received = received.filter(_beyond("received_at", 1, after, newer=True))
    sign = "" if newer else "-"
    rows = chain(
        (
            {
                "direction": "out",
                "id": a.id,
                "at": a.request_at,
                "text": a.message,
                "line": a.sender,
                "status": a.status,
                "campaign_id": a.campaign_id,
                "outcome": "",
            }
            for a in sent.order_by(f"{sign}request_at", f"{sign}id")[:limit]
        ),
        (
            {
                "direction": "in",
                "id": m.id,
                "at": m.received_at,
                "text": m.text,
                "line": m.line,
                "status": "read" if m.is_read else "unread",
                "campaign_id": m.campaign_id,
                "outcome": m.outcome,
            }
            for m in received.order_by(f"{sign}received_at", f"{sign}id")[:limit]
        ),
    )
    if newer:
        return sorted(rows, key=thread_key)[:limit]
    newest = sorted(rows, key=thread_key, reverse=True)[:limit]
    return newest[::-1]


INBOX_STATES = ("unread", "all", "read")


def inbox_queryset(
    *,
    actor: Actor,
    state: str = "unread",
    campaign_id: int | None = None,
    line: str = "",
    matched: bool | None = None,
    outcome: str = "",
) -> QuerySet:
    """The inbox page's replies, newest first: unread ones unless ``state`` says "all" (paged unread first by
    ``unread_first_page``) or "read"; ``matched`` None = both, ``outcome`` one of ``InboundOutcome`` ("" = any)."""
    actor.require(Perm.VIEW_SMS_LOGS)
    qs = inbound_queryset(actor=actor)
    if state != "all":
        qs = qs.filter(is_read=state == "read")
    if campaign_id:
        qs = qs.filter(campaign_id=campaign_id)
    if line:
        qs = qs.filter(line=line)
    if matched is not None:
        qs = qs.filter(target__isnull=not matched)
    if outcome:
        qs = qs.filter(outcome=outcome)
    return qs


def inbox_unread_count(*, actor: Actor, cap: int = 1000) -> int:
    """Unread replies of the workspace, counted up to ``cap`` (the partial unread index; "999+" beyond)."""
    return scoped(InboundSms, actor.workspace).filter(is_read=False)[:cap].count()


def campaigns_with_replies(*, actor: Actor) -> QuerySet:
    """The inbox's campaign choices: the workspace's campaigns that have a reply (one index probe each)."""
    replied = InboundSms.objects.filter(campaign_id=OuterRef("pk"))
    return scoped(Campaign, actor.workspace).filter(Exists(replied)).order_by("name", "id")


def inbox_lines(*, actor: Actor) -> list[str]:
    """The inbox's line choices: every sender line of the workspace's accounts."""
    lines = set()
    for senders in scoped(SmsProviderAccount, actor.workspace).values_list("senders", flat=True):
        lines.update(str(s) for s in senders or ())
    return sorted(lines)


SECTIONS = ("u", "r")  # the «همه» view: the unread replies, then the read ones (each newest first)


def _section_after(qs: QuerySet, descending: bool, moment: datetime, pk: int) -> QuerySet:
    op = "lt" if descending else "gt"
    bound = Q(**{f"received_at__{op}e": moment}) & (Q(**{f"received_at__{op}": moment}) | Q(**{f"pk__{op}": pk}))
    return qs.filter(bound)


def unread_first_page(replies: QuerySet, *, size: int, cursor: str | None) -> KeysetPage:
    """A keyset page of ``replies`` ordered unread first, then newest first: the unread section (the partial
    unread index) read before the read one, a page crossing from one to the other where the first runs out. The
    cursor is the (time, id) of a row with its section; a cursor that is not one of ours shows the first page."""
    try:
        moment, pk, direction, source = decode_source_cursor(cursor) if cursor else (None, 0, "n", SECTIONS[0])
    except BadCursor:
        moment, pk, direction, source = None, 0, "n", SECTIONS[0]
    if source not in SECTIONS:
        moment, pk, direction, source = None, 0, "n", SECTIONS[0]
    forward = direction == "n"
    start = SECTIONS.index(source)
    order = SECTIONS[start:] if forward else SECTIONS[start::-1]
    found: list[tuple[str, InboundSms]] = []
    for section in order:
        qs = replies.filter(is_read=section == "r")
        qs = qs.order_by("-received_at", "-id") if forward else qs.order_by("received_at", "id")
        if section == source and moment is not None:
            qs = _section_after(qs, forward, moment, pk)
        found += [(section, row) for row in qs[: size + 1 - len(found)]]
        if len(found) > size:
            break
    more = len(found) > size
    found = found[:size] if forward else found[:size][::-1]
    page = KeysetPage(rows=[row for _section, row in found], size=size)

    def key(entry, towards: str) -> str:
        return encode_cursor(entry[1].received_at, entry[1].pk, towards, source=entry[0])

    if found:
        if forward:
            page.next_cursor = key(found[-1], "n") if more else None
            page.previous_cursor = key(found[0], "p") if moment is not None else None
        else:
            page.previous_cursor = key(found[0], "p") if more else None
            page.next_cursor = key(found[-1], "n")
    return page
