"""The "Automation" section of the target page (registered with ``campaigns.platform.registry.register_target_panel``):
the journeys the target is in and its timeline, why-not-sent entries included — read through ``journey_stats``,
the same functions as the timeline endpoint."""

from __future__ import annotations

from django.template.loader import render_to_string

from automation import journey_stats
from automation.campaign_selectors import WHY_NOT_SENT_LABELS, journeys_labelled, labelled
from automation.choices import EventType
from automation.engine.context import automation_settings
from campaigns.platform.jalali import fa_digits
from campaigns.platform.keyset import keyset_page_or_first
from campaigns.platform.permissions import Perm

TIMELINE_PAGE = 30
HIDDEN = (EventType.CLAIMED, EventType.PROCESSING)


def render_target_panel(*, request, actor, target) -> str | None:
    if actor is None or not actor.has(Perm.VIEW) or not automation_settings(actor.workspace).enabled:
        return None  # the journey timeline is shown only while automation is on
    # The engine's own bookkeeping rows (claimed, processing — written before the outcome row took them over)
    # stay in the API and the campaign log, not here.
    events = journey_stats.target_timeline_events(actor=actor, target_id=target.id).exclude(type__in=HIDDEN)
    cursor = request.GET.get("timeline_cursor")
    page = keyset_page_or_first(events, time_field="occurred_at", descending=True, size=TIMELINE_PAGE, cursor=cursor)
    context = {
        "target": target,
        "journeys": journeys_labelled(journey_stats.target_campaigns(actor=actor, target_id=target.id)),
        "entries": labelled(journey_stats.timeline_entries(actor=actor, events=list(page))),
        "timeline_page": page,
        "conflict_skips": journey_stats.target_conflict_skips(actor=actor, target_id=target.id),
        "left_out": journey_stats.target_left_out(actor=actor, target_id=target.id),
        "why_labels": WHY_NOT_SENT_LABELS,
    }
    return render_to_string("automation/_target_panel.html", context, request=request)


def live_journeys_warning(*, actor, target) -> str:
    """Said on the target page before a delete: the live journeys it would cancel (registered as a target
    delete warning)."""
    live = [j for j in journey_stats.target_campaigns(actor=actor, target_id=target.id) if j["live"]]
    if not live:
        return ""
    names = "، ".join(f"«{j['campaign_name']}»" for j in live[:5]) + (" …" if len(live) > 5 else "")
    return f"این مخاطب در {fa_digits(len(live))} سفر در جریان است ({names})؛ حذف، همه را لغو می‌کند."
