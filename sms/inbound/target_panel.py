"""The "Messages" section of the target page (``campaigns.platform.registry.register_target_panel``): what was sent
to the target and what it answered, in one thread, oldest first, a page of ``THREAD_PAGE`` at a time: «قدیمی‌تر»
and «جدیدتر» step by keyset position, «تازه‌ترین» goes back to the newest page."""

from __future__ import annotations

from datetime import datetime

from django.template.loader import render_to_string
from django.utils.http import urlencode

from campaigns.models import Campaign
from campaigns.platform.keyset import BadCursor
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import scoped
from sms.choices import AttemptStatus, InboundOutcome
from sms.inbound.selectors import conversation, thread_position, thread_position_parse

THREAD_PAGE = 30
PARAM = "thread_before"
NEWER_PARAM = "thread_after"
STATUS_LABELS = dict(AttemptStatus.choices)
OUTCOME_LABELS = dict(InboundOutcome.choices)


def _position(request, param: str) -> tuple[datetime, str, int] | None:
    """The keyset position in ``param``: the oldest message the newer page showed (``thread_before``) or the newest
    one the older page showed (``thread_after``); None when absent or not one of ours."""
    try:
        return thread_position_parse(request.GET.get(param, ""))
    except BadCursor:
        return None


def render_conversation_panel(*, request, actor, target) -> str | None:
    if actor is None or not actor.has(Perm.VIEW_SMS_LOGS):
        return None
    before = _position(request, PARAM)
    after = None if before is not None else _position(request, NEWER_PARAM)
    rows = conversation(actor=actor, target_id=target.id, limit=THREAD_PAGE + 1, before=before, after=after)
    if after is not None and not rows:  # nothing after it any more (a retention purge): the newest page
        after = None
        rows = conversation(actor=actor, target_id=target.id, limit=THREAD_PAGE + 1)
    if after is not None:  # the page after a position: older ones exist (that message at least)
        newer, older = len(rows) > THREAD_PAGE, True
        rows = rows[:THREAD_PAGE]
    else:  # the newest page, or the page before a position (which a newer message holds)
        newer, older = before is not None, len(rows) > THREAD_PAGE
        rows = rows[-THREAD_PAGE:]
    names = dict(
        scoped(Campaign, actor.workspace)
        .filter(id__in={r["campaign_id"] for r in rows if r["campaign_id"]})
        .values_list("id", "name")
    )
    for row in rows:
        row["campaign_name"] = names.get(row["campaign_id"], "")
        row["status_label"] = STATUS_LABELS.get(row["status"], "") if row["direction"] == "out" else ""
        row["outcome_label"] = OUTCOME_LABELS.get(row["outcome"], "") if row["outcome"] else ""
    context = {
        "target": target,
        "messages": rows,
        "older_query": urlencode({PARAM: thread_position(rows[0])}) if older and rows else "",
        "newer_query": urlencode({NEWER_PARAM: thread_position(rows[-1])}) if newer and rows else "",
        "newest": before is not None or after is not None,
    }
    return render_to_string("sms/_conversation_panel.html", context, request=request)
