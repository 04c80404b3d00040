"""The webhooks pages (owners and admins): endpoints with their events, the secret shown once, rotation, a test
event, and each endpoint's delivery log (newest first, 50 a page, newer/older links, filtered by status and event
type: ``campaigns.filters.WebhookDeliveryFilter``, as the API's) with replay. Tests and replays are limited per
member and per workspace, one count with the API's (``campaigns.platform.api.throttles.WEBHOOK_SEND_THROTTLES``).
The services are ``campaigns.platform.webhooks``."""

from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from campaigns.filters import WebhookDeliveryFilter
from campaigns.platform.api.throttles import WEBHOOK_SEND_THROTTLES, throttle_wait
from campaigns.platform.errors import PlatformError
from campaigns.platform.jalali import fa_digits
from campaigns.platform.keyset import keyset_page_or_first
from campaigns.platform.models import WebhookDelivery, WebhookDeliveryStatus, WebhookEndpoint
from campaigns.platform.once import REPEATED, once_mark, once_token, once_used
from campaigns.platform.pages import workspace_page
from campaigns.platform.permissions import Perm
from campaigns.platform.webhooks import (
    WEBHOOK_EVENTS,
    delivery_error_text,
    webhook_delivery_get,
    webhook_delivery_replay,
    webhook_endpoint_create,
    webhook_endpoint_delete,
    webhook_endpoint_get,
    webhook_endpoint_update,
    webhook_secret_rotate,
    webhook_test_send,
)

DELIVERIES_PAGE = 50  # rows of the delivery log per page (newer/older links, campaigns.platform.keyset)


class WebhookForm(forms.Form):
    url = forms.URLField(
        label="نشانی", max_length=500, assume_scheme="https", help_text="نشانی https سامانه‌ای که رویدادها را می‌گیرد"
    )
    description = forms.CharField(label="توضیح", max_length=200, required=False)
    events = forms.MultipleChoiceField(label="رویدادها", widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["events"].choices = [(name, label) for name, label in WEBHOOK_EVENTS]


def _sends_refused(request, *, back: str) -> HttpResponse | None:
    """A test or a replay past the member's or the workspace's limit (``WEBHOOK_SEND_THROTTLES``, counted with
    the API's): 429, how long to wait in Persian, and a link ``back`` to the endpoint's page."""
    wait = throttle_wait(request, *WEBHOOK_SEND_THROTTLES)
    if wait is None:
        return None
    message = f"ارسال آزمایشی و ارسال دوباره بیش از حد مجاز بود؛ {fa_digits(wait)} ثانیه دیگر دوباره تلاش کنید."
    response = render(request, "429.html", {"message": message, "back": back}, status=429)
    response["Retry-After"] = str(wait)
    return response


def _labels(endpoint: WebhookEndpoint) -> list[str]:
    labels = dict(iter(WEBHOOK_EVENTS))
    return [labels.get(e, e) for e in endpoint.events]


@workspace_page(Perm.MANAGE_WORKSPACE)
def webhooks(request, actor):
    form = WebhookForm(request.POST or None)
    created, repeated, status = None, None, 200
    once = request.POST.get("once", "")
    if request.method == "POST" and once_used(request, once):
        form, repeated = WebhookForm(), REPEATED
    elif request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            try:
                endpoint, secret = webhook_endpoint_create(
                    workspace=actor.workspace, url=data["url"], events=data["events"], description=data["description"]
                )
            except PlatformError as exc:
                for field, errors in exc.details.items():
                    form.add_error(field if field in form.fields else None, errors)
                status = 400
            else:
                once_mark(request, once)
                created, form = {"endpoint": endpoint, "secret": secret}, WebhookForm()
        else:
            status = 400
    rows = [
        {"endpoint": e, "labels": _labels(e)}
        for e in WebhookEndpoint.objects.filter(workspace=actor.workspace).order_by("-created_at", "-id")
    ]
    response = render(
        request,
        "campaigns/webhooks.html",
        {"form": form, "created": created, "repeated": repeated, "once": once_token(), "rows": rows},
        status=status,
    )
    response["Cache-Control"] = "no-store"  # a new secret is in this page, once
    return response


@workspace_page(Perm.MANAGE_WORKSPACE)
def webhook_detail(request, actor, webhook_id: int):
    endpoint = webhook_endpoint_get(workspace=actor.workspace, endpoint_id=webhook_id)
    secret = None
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "rotate":
            endpoint, secret = webhook_secret_rotate(workspace=actor.workspace, endpoint_id=endpoint.pk)
        elif action == "test":
            refused = _sends_refused(request, back=request.path)
            if refused is not None:
                return refused
            webhook_test_send(workspace=actor.workspace, endpoint_id=endpoint.pk)
            messages.success(request, "رویداد آزمایشی در صف ارسال است.")
            return redirect("webhook-detail", webhook_id=endpoint.pk)
        elif action == "toggle":
            webhook_endpoint_update(
                workspace=actor.workspace, endpoint_id=endpoint.pk, data={"is_active": not endpoint.is_active}
            )
            return redirect("webhook-detail", webhook_id=endpoint.pk)
        elif action == "delete":
            webhook_endpoint_delete(workspace=actor.workspace, endpoint_id=endpoint.pk)
            messages.success(request, "وب‌هوک حذف شد.")
            return redirect("webhooks")
    deliveries = WebhookDelivery.objects.filter(workspace=actor.workspace, endpoint=endpoint)
    given = {key: request.GET.get(key, "") for key in WebhookDeliveryFilter.base_filters}
    found = WebhookDeliveryFilter({k: v for k, v in given.items() if v}, queryset=deliveries)
    valid = found.is_valid()  # a value not offered (a hand-made address): said, and no rows
    page = keyset_page_or_first(
        found.qs if valid else deliveries.none(),
        time_field="created_at",
        descending=True,
        size=DELIVERIES_PAGE,
        cursor=request.GET.get("cursor"),
    )
    event_labels = dict(iter(WEBHOOK_EVENTS))
    for delivery in page.rows:  # said in Persian: the event's label and what went wrong
        delivery.event_label = event_labels.get(delivery.event_type, delivery.event_type)
        delivery.error_text = delivery_error_text(delivery.last_error)
    context = {
        "endpoint": endpoint,
        "labels": _labels(endpoint),
        "secret": secret,
        "page": page,
        "filters": given,
        "filtered": any(given.values()),
        "filter_errors": [] if valid else [e for errors in found.errors.values() for e in errors],
        "statuses": WebhookDeliveryStatus.choices,
        "event_types": list(iter(WEBHOOK_EVENTS)),
        "querystring": urlencode({k: v for k, v in given.items() if v}),
    }
    response = render(request, "campaigns/webhook_detail.html", context, status=200 if valid else 400)
    response["Cache-Control"] = "no-store"
    return response


@require_POST
@workspace_page(Perm.MANAGE_WORKSPACE)
def webhook_delivery_replay_page(request, actor, delivery_id: int):
    delivery = webhook_delivery_get(workspace=actor.workspace, delivery_id=delivery_id)
    refused = _sends_refused(request, back=reverse("webhook-detail", args=[delivery.endpoint_id]))
    if refused is not None:
        return refused
    replay = webhook_delivery_replay(workspace=actor.workspace, delivery_id=delivery_id)
    messages.success(request, "تحویل دوباره در صف ارسال است.")
    return redirect("webhook-detail", webhook_id=replay.endpoint_id)
