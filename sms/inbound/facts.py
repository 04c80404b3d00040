"""Replies inside journeys: the facts and the variable the SMS channel gives the engine (journeys.md "Facts").

* ``reply.received`` — the target replied since the journey's last accepted send (a condition's "replied",
  a wait that ends early on a reply);
* ``reply.text`` — that reply's text, the latest one (a condition's "reply matches words"; the variable
  ``{reply.text}`` / ``{reply}`` of a follow-up step, which previews show with a sample reply);
* ``reply.in_journey`` — the target replied since the journey's first accepted send (the campaign's
  "stop when the target replies").

A reply counts when it is matched to the execution's target (``InboundSms.target``) and was received after
the send (the provider's receive time). Before any send none of them holds: there is nothing to reply to.
A job reads each target's latest reply once (``inbound_target_time``), for its whole batch in one query.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import connections

from automation.choices import FIRST_SEND_AT, LAST_SEND_AT
from automation.engine.registry import FACTS, VARIABLES, Fact, Variable
from campaigns.models import Target
from campaigns.platform.database import is_postgresql
from sms.inbound.models import InboundSms

REPLIED = "reply.received"
REPLY_TEXT = "reply.text"
REPLIED_IN_JOURNEY = "reply.in_journey"


def _since(scope: Any, key: str) -> datetime | None:
    execution = getattr(scope, "execution", None)
    raw = (getattr(execution, "metadata", None) or {}).get(key) if execution is not None else None
    try:
        return datetime.fromisoformat(raw) if isinstance(raw, str) else None
    except ValueError:
        return None


def _latest_replies(workspace_id: int, target_ids: list[int]) -> dict[int, tuple[datetime, str]]:
    """Each target's latest reply (receive time, text): one query on PostgreSQL (``DISTINCT ON``)."""
    replies = InboundSms.objects.filter(workspace_id=workspace_id, target_id__in=target_ids)
    if is_postgresql(connections[replies.db]):
        rows = replies.order_by("target_id", "-received_at", "-id").distinct("target_id")
        return {t: (at, text) for t, at, text in rows.values_list("target_id", "received_at", "text")}
    found = {}
    for target_id in target_ids:
        row = replies.filter(target_id=target_id).order_by("-received_at", "-id").values_list("received_at", "text")
        if latest := row.first():
            found[target_id] = latest
    return found


def _latest_reply(scope: Any, key: str) -> tuple[str] | None:
    """(text,) of the target's latest reply when it came after the moment ``key`` names; None without one (or
    without a send). The latest reply answers both "since the last send" and "during the journey", so a job reads
    it once per target: for every target of its batch at the first question (memoised in the job's cache)."""
    execution = getattr(scope, "execution", None)
    since = _since(scope, key)
    target_type = ContentType.objects.get_for_model(Target).id
    if since is None or execution.subject_type_id != target_type:
        return None
    memo = scope.cache if isinstance(getattr(scope, "cache", None), dict) else {}
    latest: dict[int, tuple[datetime, str] | None] = memo.setdefault(("sms_latest_reply", execution.workspace_id), {})
    if execution.subject_id not in latest:
        batch = {k[2] for k in memo if isinstance(k, tuple) and len(k) == 3 and k[:2] == ("subject", target_type)}
        wanted = sorted(({execution.subject_id} | batch) - latest.keys())
        latest.update(dict.fromkeys(wanted))
        latest.update(_latest_replies(execution.workspace_id, wanted))
    found = latest[execution.subject_id]
    return (found[1],) if found is not None and _after(found[0], since) else None


def _after(received_at: datetime, since: datetime) -> bool:
    """A reply came after the moment: a time in whole seconds (Kavenegar's, Melipayamak's inbox: no fraction
    stored) stands for its whole second, so a reply stamped 10:00:00 answers a send of 10:00:00.600 (as
    linking reads it, ``ReceivedSms.whole_seconds``)."""
    if received_at.microsecond == 0:
        return received_at + timedelta(seconds=1) > since
    return received_at > since


def replied(scope: Any) -> bool:
    return _latest_reply(scope, LAST_SEND_AT) is not None


def reply_text(scope: Any) -> str | None:
    found = _latest_reply(scope, LAST_SEND_AT)
    return found[0] if found else None


SAMPLE_REPLY = "بله"


def reply_text_or_sample(scope: Any) -> str | None:
    """The variable ``{reply.text}``: in a journey the reply (``reply_text``); in a preview (no execution: the
    builder's step preview, ``POST sms/preview``, the launch check's text) a sample — the sample target's latest
    reply, else ``SAMPLE_REPLY`` — so the preview shows the follow-up as it would read and counts its parts."""
    if getattr(scope, "execution", None) is not None:
        return reply_text(scope)
    subject = getattr(scope, "subject", None)
    latest = None
    if isinstance(subject, Target):
        replies = InboundSms.objects.filter(workspace_id=subject.workspace_id, target_id=subject.pk)
        latest = replies.exclude(text="").order_by("-received_at", "-id").values_list("text", flat=True).first()
    return latest or SAMPLE_REPLY


def replied_in_journey(scope: Any) -> bool:
    return _latest_reply(scope, FIRST_SEND_AT) is not None


def register() -> None:
    FACTS.register(
        REPLIED,
        Fact(
            REPLIED,
            "پاسخ پیامکی از آخرین ارسال",
            replied,
            kind="bool",
            ends_wait=True,
            help="مخاطب پس از آخرین پیامک این سفر پاسخ داده است.",
        ),
    )
    FACTS.register(
        REPLY_TEXT,
        Fact(
            REPLY_TEXT,
            "متن پاسخ از آخرین ارسال",
            reply_text,
            kind="text",
            help="آخرین پاسخ مخاطب پس از آخرین پیامک این سفر (خالی: پاسخی نیامده).",
        ),
    )
    FACTS.register(
        REPLIED_IN_JOURNEY,
        Fact(
            REPLIED_IN_JOURNEY,
            "پاسخ پیامکی در این سفر",
            replied_in_journey,
            kind="bool",
            stop_label="مخاطب به پیامک پاسخ داد",
        ),
    )
    VARIABLES.register(
        REPLY_TEXT, Variable(REPLY_TEXT, "متن پاسخ مخاطب (از آخرین ارسال)", reply_text_or_sample, ("reply",))
    )
