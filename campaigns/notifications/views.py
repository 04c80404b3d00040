"""Pages: the notification list (read / unread / all read), "my follow-ups" and the target page's panel."""

from django.shortcuts import redirect, render
from django.template.loader import render_to_string

from campaigns.notifications import selectors, services
from campaigns.platform.pages import refusal_shown, workspace_page
from campaigns.platform.pagination import CappedPaginator
from campaigns.platform.permissions import Perm
from campaigns.platform.redirects import local_next
from campaigns.platform.text import typed_int


@workspace_page(Perm.VIEW)
def notification_list(request, actor):
    if request.method == "POST":
        action = request.POST.get("action")
        with refusal_shown(request):
            if action == "read_all":
                services.notifications_mark_all_read(actor=actor)
            elif action in ("read", "unread") and (notification_id := typed_int(request.POST.get("id"))) is not None:
                services.notification_mark(actor=actor, notification_id=notification_id, read=action == "read")
        return redirect(request.get_full_path())
    show = request.GET.get("show", "")
    unread = True if show == "unread" else None
    page = CappedPaginator(selectors.notification_queryset(actor=actor, unread=unread), 30).get_page(
        request.GET.get("page")
    )
    return render(
        request,
        "notifications/list.html",
        {"page": page, "show": show, "querystring": f"show={show}" if show else ""},
    )


@workspace_page(Perm.VIEW)
def my_followups(request, actor):
    if request.method == "POST":
        action = request.POST.get("action")
        if action in ("done", "reopen") and (activity_id := typed_int(request.POST.get("id"))) is not None:
            with refusal_shown(request):
                services.activity_set_status(actor=actor, activity_id=activity_id, done=action == "done")
        return redirect(local_next(request, request.get_full_path()))
    status = request.GET.get("status", "open")
    qs = selectors.my_activities(actor=actor, status=status if status in ("open", "done") else None)
    page = CappedPaginator(qs, 30).get_page(request.GET.get("page"))
    return render(
        request, "notifications/followups.html", {"page": page, "status": status, "querystring": f"status={status}"}
    )


def target_activities_panel(*, request, actor, target) -> str | None:
    """The target page's follow-up list (done / reopen go through "my follow-ups"; the buttons only where
    ``services.may_close_activity`` allows)."""
    activities = list(selectors.activities_of_target(actor=actor, target_id=target.id)[:50])
    for activity in activities:
        activity.may_close = services.may_close_activity(actor=actor, activity=activity)
    return render_to_string(
        "notifications/_target_activities.html",
        {"activities": activities, "target": target, "next": request.get_full_path()},
        request=request,
    )
