"""Replies inside journeys: the facts and the variable the SMS channel gives the engine (journeys.md "Facts").

* ``reply.received`` — the target replied since the journey's last accepted send (a condition's "replied",
  a wait that ends early on a reply);
* ``reply.text`` — that reply's text, the latest one (a condition's "reply matches words"; the variable
  ``{reply.text}`` / ``{reply}`` of a follow-up step);
* ``reply.in_journey`` — the target replied since the journey's first accepted send (the campaign's
  "stop when the target replies").

A reply counts when it is matched to the execution's target (``InboundSms.target``) and was received after
the send (the provider's receive time). Before any send none of them holds: there is nothing to reply to.
Each resolves with one indexed query (``inbound_target_time``), memoised for the job.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.contenttypes.models import ContentType

from automation.choices import FIRST_SEND_AT, LAST_SEND_AT
from automation.engine.registry import FACTS, VARIABLES, Fact, Variable
from campaigns.models import Target
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


def _latest_reply(scope: Any, key: str) -> tuple[str] | None:
    """(text,) of the target's latest reply after the moment ``key`` names, None without one (or without a send)."""
    execution = getattr(scope, "execution", None)
    since = _since(scope, key)
    if since is None or execution.subject_type_id != ContentType.objects.get_for_model(Target).id:
        return None
    memo = getattr(scope, "cache", None)
    memo_key = ("sms_reply", execution.subject_id, since)
    if isinstance(memo, dict) and memo_key in memo:
        return memo[memo_key]
    text = (
        InboundSms.objects.filter(
            workspace_id=execution.workspace_id, target_id=execution.subject_id, received_at__gt=since
        )
        .order_by("-received_at", "-id")
        .values_list("text", flat=True)
        .first()
    )
    found = None if text is None else (text,)
    if isinstance(memo, dict):
        memo[memo_key] = found
    return found


def replied(scope: Any) -> bool:
    return _latest_reply(scope, LAST_SEND_AT) is not None


def reply_text(scope: Any) -> str | None:
    found = _latest_reply(scope, LAST_SEND_AT)
    return found[0] if found else None


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
    VARIABLES.register(REPLY_TEXT, Variable(REPLY_TEXT, "متن پاسخ مخاطب (از آخرین ارسال)", reply_text, ("reply",)))
