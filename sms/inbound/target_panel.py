"""The "Messages" section of the target page (``campaigns.platform.registry.register_target_panel``): what was sent
to the target and what it answered, in one thread, oldest first, a page of ``THREAD_PAGE`` at a time."""

from __future__ import annotations

from datetime import datetime

from django.template.loader import render_to_string
from django.utils.http import urlencode

from campaigns.models import Campaign
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import scoped
from sms.choices import AttemptStatus
from sms.inbound.selectors import conversation

THREAD_PAGE = 30
PARAM = "thread_before"
STATUS_LABELS = dict(AttemptStatus.choices)


def _before(request) -> datetime | None:
    try:
        moment = datetime.fromisoformat(request.GET.get(PARAM, ""))
    except ValueError:
        return None
    return moment if moment.tzinfo else None


def render_conversation_panel(*, request, actor, target) -> str | None:
    if actor is None or not actor.has(Perm.VIEW_SMS_LOGS):
        return None
    before = _before(request)
    rows = conversation(actor=actor, target_id=target.id, limit=THREAD_PAGE + 1, before=before)
    older = len(rows) > THREAD_PAGE
    rows = rows[-THREAD_PAGE:]
    names = dict(
        scoped(Campaign, actor.workspace)
        .filter(id__in={r["campaign_id"] for r in rows if r["campaign_id"]})
        .values_list("id", "name")
    )
    for row in rows:
        row["campaign_name"] = names.get(row["campaign_id"], "")
        row["status_label"] = STATUS_LABELS.get(row["status"], "") if row["direction"] == "out" else ""
    context = {
        "target": target,
        "messages": rows,
        "older_query": urlencode({PARAM: rows[0]["at"].isoformat()}) if older and rows else "",
        "newer": before is not None,
    }
    return render_to_string("sms/_conversation_panel.html", context, request=request)
