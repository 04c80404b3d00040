"""The workspace's inbox page: replies (the unread ones, all of them unread first, or the read ones), filtered,
marked read."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_POST

from campaigns.platform.jalali import fa_digits
from campaigns.platform.keyset import keyset_page_or_first
from campaigns.platform.pages import workspace_page
from campaigns.platform.permissions import Perm
from campaigns.platform.text import typed_int
from sms.inbound import selectors
from sms.inbound.forms import InboxFilterForm
from sms.inbound.services import MAX_MARK, inbound_mark_read
from sms.views import render_tab

PAGE_SIZE = 50
FILTERS = ("state", "campaign", "line", "matched", "outcome")


@workspace_page(Perm.VIEW_SMS_LOGS)
def inbox(request, actor):
    form = InboxFilterForm(
        request.GET or None,
        campaigns=selectors.campaigns_with_replies(actor=actor),
        lines=selectors.inbox_lines(actor=actor),
    )
    filters = form.filters()
    replies = selectors.inbox_queryset(actor=actor, **filters)
    cursor = request.GET.get("cursor")
    if filters["state"] == "all":  # unread first, then the read ones, each newest first
        page = selectors.unread_first_page(replies, size=PAGE_SIZE, cursor=cursor)
    else:
        page = keyset_page_or_first(replies, time_field="received_at", descending=True, size=PAGE_SIZE, cursor=cursor)
    kept = {name: request.GET[name] for name in FILTERS if request.GET.get(name)}
    context = {
        "form": form,
        "page": page,
        "state": filters["state"],
        "unread": selectors.inbox_unread_count(actor=actor),
        "querystring": urlencode(kept),
    }
    return render_tab(request, "sms/inbox.html", "sms-inbox", context)


@require_POST
@workspace_page(Perm.VIEW_SMS_LOGS)
def inbox_mark_read(request, actor):
    """Mark the chosen replies (one, the ticked ones, or the whole page) read, then back to the same filters."""
    if request.POST.get("one"):
        raw = [request.POST["one"]]
    elif request.POST.get("whole_page"):
        raw = request.POST.getlist("page_ids")
    else:
        raw = request.POST.getlist("ids")
    ids = [i for i in map(typed_int, raw[:MAX_MARK]) if i is not None]
    if ids:
        marked = inbound_mark_read(actor=actor, ids=ids)
        messages.success(request, f"{fa_digits(marked)} پاسخ خوانده‌شده علامت خورد.")
    else:
        messages.warning(request, "پاسخی انتخاب نشده بود.")
    kept = {name: request.POST[name] for name in FILTERS if request.POST.get(name)}
    return redirect(reverse("sms-inbox") + (f"?{urlencode(kept)}" if kept else ""))
