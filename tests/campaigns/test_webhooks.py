"""Outbound webhooks: the outbox row commits with the event (and rolls back with it), a delivery is signed and
the signature checks with an HMAC written here (not the product's), retries back off, a rotated secret keeps
signing for a while, replay keeps the event id, the address guard refuses private addresses, and the API is
for owners and admins of the workspace only."""

import hashlib
import hmac
import json
import re
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from django.db import transaction
from django.utils import timezone

from campaigns.choices import CampaignStatus, Role
from campaigns.models import Campaign
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.models import WebhookDelivery, WebhookEndpoint
from campaigns.platform.webhooks import (
    webhook_deliveries_sweep,
    webhook_delivery_attempt,
    webhook_endpoint_create,
    webhook_event_emit,
)
from campaigns.services.lifecycle import campaign_status_change

from ..conftest import api_client_for, make_campaign, make_member, make_workspace

pytestmark = pytest.mark.django_db


class Receiver:
    """A local HTTP server that records what it got and answers the next status in ``answers``."""

    def __init__(self, answers=(200,)):
        self.received: list[dict] = []
        self.answers = list(answers)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.received.append({"headers": dict(self.headers), "body": body})
                self.send_response(receiver.answers.pop(0) if len(receiver.answers) > 1 else receiver.answers[0])
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hooks/campaigns"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


@pytest.fixture
def receiver(settings):
    r = Receiver()
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = [f"127.0.0.1:{r.port}"]
    yield r
    r.close()


def verify(secret: str, headers: dict, body: bytes, *, tolerance: int = 300) -> bool:
    """What a receiver writes: HMAC-SHA256 over "<t>." + body, compared in constant time, timestamp fresh."""
    parts = [p.split("=", 1) for p in headers["Webhook-Signature"].split(",")]
    timestamp = next(v for k, v in parts if k == "t")
    if abs(int(timestamp) - int(timezone.now().timestamp())) > tolerance:
        return False
    expected = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return any(k == "v1" and hmac.compare_digest(v, expected) for k, v in parts)


def test_a_status_change_is_delivered_signed_and_verifies_with_an_independent_hmac(workspace, receiver):
    endpoint, secret = webhook_endpoint_create(
        workspace=workspace, url=receiver.url, events=["campaign.status_changed"]
    )
    campaign = make_campaign(workspace, status=CampaignStatus.DRAFT)
    campaign_status_change(campaign=campaign, transition="cancel", guarded=False)
    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    assert webhook_delivery_attempt(delivery_id=delivery.pk) == "delivered"
    (got,) = receiver.received
    assert verify(secret, got["headers"], got["body"])
    assert not verify("whsec_wrong", got["headers"], got["body"])
    assert not verify(secret, got["headers"], got["body"] + b" ")
    body = json.loads(got["body"])
    assert body["type"] == "campaign.status_changed" and body["id"] == got["headers"]["Webhook-Id"]
    assert body["data"] == {
        "campaign_id": campaign.id,
        "name": campaign.name,
        "kind": campaign.kind,
        "from_status": "draft",
        "to_status": "cancelled",
    }
    delivery.refresh_from_db()
    assert delivery.status == "delivered" and delivery.attempts == 1 and delivery.last_status_code == 200
    assert webhook_delivery_attempt(delivery_id=delivery.pk) is None  # delivered once: nothing more


def test_the_outbox_row_rolls_back_with_the_event(workspace, receiver):
    webhook_endpoint_create(workspace=workspace, url=receiver.url, events=["campaign.status_changed"])
    campaign = make_campaign(workspace, status=CampaignStatus.DRAFT)
    with pytest.raises(RuntimeError), transaction.atomic():
        campaign_status_change(campaign=campaign, transition="cancel", guarded=False)
        raise RuntimeError("the caller fails after the event")
    assert WebhookDelivery.objects.count() == 0
    assert Campaign.objects.get(pk=campaign.pk).status == CampaignStatus.DRAFT


def test_only_subscribed_active_endpoints_of_the_workspace_get_the_event(workspace, receiver):
    other = make_workspace("other")
    mine, _ = webhook_endpoint_create(workspace=workspace, url=receiver.url, events=["campaign.status_changed"])
    webhook_endpoint_create(workspace=workspace, url=receiver.url, events=["browser.task_failed"])
    off, _ = webhook_endpoint_create(workspace=workspace, url=receiver.url, events=["campaign.status_changed"])
    WebhookEndpoint.objects.filter(pk=off.pk).update(is_active=False)
    webhook_endpoint_create(workspace=other, url=receiver.url, events=["campaign.status_changed"])
    with transaction.atomic():
        webhook_event_emit(workspace_id=workspace.pk, type="campaign.status_changed", data={"x": 1})
    assert list(WebhookDelivery.objects.values_list("endpoint_id", flat=True)) == [mine.pk]


def test_a_failed_attempt_backs_off_then_gives_up(workspace, receiver, settings):
    settings.WEBHOOK_MAX_ATTEMPTS = 3
    receiver.answers = [500]
    webhook_endpoint_create(workspace=workspace, url=receiver.url, events=["campaign.status_changed"])
    with transaction.atomic():
        webhook_event_emit(workspace_id=workspace.pk, type="campaign.status_changed", data={})
    delivery = WebhookDelivery.objects.get()
    assert webhook_delivery_attempt(delivery_id=delivery.pk) == "pending"
    delivery.refresh_from_db()
    assert delivery.attempts == 1 and delivery.last_error == "HTTP 500"
    assert timedelta(seconds=50) < delivery.next_attempt_at - timezone.now() <= timedelta(seconds=60)
    assert webhook_delivery_attempt(delivery_id=delivery.pk) is None  # not due yet
    for _ in range(2):
        WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
        webhook_delivery_attempt(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    assert delivery.status == "failed" and delivery.attempts == 3
    ids = {r["headers"]["Webhook-Id"] for r in receiver.received}
    assert len(receiver.received) == 3 and ids == {str(delivery.event_id)}  # one event id for every attempt


def test_a_lost_task_is_swept_and_a_leased_row_is_not_sent_twice(workspace, receiver):
    webhook_endpoint_create(workspace=workspace, url=receiver.url, events=["campaign.status_changed"])
    with transaction.atomic():
        webhook_event_emit(workspace_id=workspace.pk, type="campaign.status_changed", data={})
    delivery = WebhookDelivery.objects.get()
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now() - timedelta(minutes=5))
    assert webhook_deliveries_sweep() == [delivery.pk]
    WebhookDelivery.objects.filter(pk=delivery.pk).update(locked_until=timezone.now() + timedelta(minutes=1))
    assert webhook_deliveries_sweep() == [] and webhook_delivery_attempt(delivery_id=delivery.pk) is None


def test_rotation_keeps_the_old_secret_valid_for_a_while_and_replay_keeps_the_event_id(workspace, receiver):
    owner = make_member(workspace, Role.OWNER)
    api = api_client_for(owner, workspace)
    created = api.post("/api/v1/webhooks", {"url": receiver.url, "events": ["webhook.test"]}, format="json").json()
    old = created["secret"]
    rotated = api.post(f"/api/v1/webhooks/{created['id']}/rotate-secret").json()
    new = rotated["secret"]
    assert new != old and rotated["previous_secret_until"] is not None
    assert "secret" not in api.get(f"/api/v1/webhooks/{created['id']}").json()
    sent = api.post(f"/api/v1/webhooks/{created['id']}/test")
    assert sent.status_code == 202
    webhook_delivery_attempt(delivery_id=sent.json()["id"])
    got = receiver.received[-1]
    assert verify(new, got["headers"], got["body"]) and verify(old, got["headers"], got["body"])
    WebhookEndpoint.objects.filter(pk=created["id"]).update(previous_secret_until=timezone.now())
    replay = api.post(f"/api/v1/webhook-deliveries/{sent.json()['id']}/replay")
    assert replay.status_code == 202 and replay.json()["event_id"] == sent.json()["event_id"]
    webhook_delivery_attempt(delivery_id=replay.json()["id"])
    again = receiver.received[-1]
    assert verify(new, again["headers"], again["body"]) and not verify(old, again["headers"], again["body"])
    assert json.loads(again["body"])["id"] == json.loads(got["body"])["id"]
    log = api.get(f"/api/v1/webhooks/{created['id']}/deliveries").json()
    assert [d["status"] for d in log["results"]] == ["delivered", "delivered"] and log["count"] == 2
    # the page's filters: by status, by event type; a value not offered is a 400
    WebhookDelivery.objects.filter(pk=sent.json()["id"]).update(status="failed")
    failed = api.get(f"/api/v1/webhooks/{created['id']}/deliveries?status=failed").json()
    assert [d["id"] for d in failed["results"]] == [sent.json()["id"]]
    url = f"/api/v1/webhooks/{created['id']}/deliveries"
    assert api.get(f"{url}?event_type=webhook.test&status=delivered").json()["count"] == 1
    assert api.get(f"{url}?event_type=sms.sent").json()["count"] == 0
    for bad in ("status=lost", "event_type=sms.unknown"):
        refused = api.get(f"{url}?{bad}")
        assert refused.status_code == 400 and bad.split("=")[0] in refused.json()["error"]["details"]


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:9/x", "http://169.254.169.254/latest", "http://10.0.0.5/hook", "ftp://example.com/"]
)
def test_the_address_guard_refuses_private_destinations(workspace, url):
    owner = make_member(workspace, Role.OWNER)
    response = api_client_for(owner, workspace).post("/api/v1/webhooks", {"url": url, "events": ["webhook.test"]})
    assert response.status_code == 400 and "url" in response.json()["error"]["details"]
    assert WebhookEndpoint.objects.count() == 0


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("http://127.0.0.1:8399/hook", "نشانی همین سرور است"),
        ("http://169.254.169.254/latest", "نشانی محلی شبکه"),
        ("http://10.0.0.5/hook", "شبکه خصوصی"),
        ("http://100.64.0.9/hook", "شبکه مشترک اپراتور"),
    ],
)
def test_a_refused_destination_is_explained_in_persian_and_says_what_is_accepted(workspace, url, says):
    owner = make_member(workspace, Role.OWNER)
    response = api_client_for(owner, workspace).post("/api/v1/webhooks", {"url": url, "events": ["webhook.test"]})
    (message,) = response.json()["error"]["details"]["url"]
    assert says in message and "فقط نشانی‌های عمومی اینترنت پذیرفته می‌شوند" in message
    host = url.split("/")[2].split(":")[0]
    words = message.replace(host, "").replace("169.254.169.254", "").replace("100.64.0.1", "")
    assert not re.search(r"[A-Za-z]", words), message  # no loopback, link-local, CGNAT or «worker»
    assert "کارگر" not in message


def test_events_and_the_endpoint_limit_are_explained_in_persian(workspace, receiver, monkeypatch):
    def refusal(**kwargs) -> str:
        with pytest.raises(ValidationFailed) as caught:
            webhook_endpoint_create(workspace=workspace, **{"url": receiver.url, "events": ["webhook.test"]} | kwargs)
        return " ".join(str(m) for messages in caught.value.details.values() for m in messages)

    assert "دست‌کم یک رویداد برگزینید" in refusal(events=[])
    assert "رویداد ناشناخته: sms.nope" in refusal(events=["sms.nope"])
    monkeypatch.setattr("campaigns.platform.webhooks.MAX_ENDPOINTS", 0)
    assert "هر فضای کاری حداکثر ۰ وب‌هوک دارد" in refusal()


def test_a_destination_that_turns_private_is_refused_at_delivery(workspace, receiver, settings):
    webhook_endpoint_create(workspace=workspace, url=receiver.url, events=["webhook.test"])
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = []  # the allow-list no longer lets it through
    with transaction.atomic():
        webhook_event_emit(workspace_id=workspace.pk, type="webhook.test", data={})
    delivery = WebhookDelivery.objects.get()
    webhook_delivery_attempt(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    assert receiver.received == [] and delivery.last_error.startswith("address not allowed")


def test_webhooks_are_for_owners_and_admins_of_the_workspace(workspace, receiver):
    manager = make_member(workspace, Role.MANAGER)
    assert api_client_for(manager, workspace).get("/api/v1/webhooks").status_code == 403
    other = make_workspace("other")
    endpoint, _ = webhook_endpoint_create(workspace=other, url=receiver.url, events=["webhook.test"])
    owner = make_member(workspace, Role.OWNER)
    api = api_client_for(owner, workspace)
    assert api.get("/api/v1/webhooks").json()["count"] == 0
    assert api.get(f"/api/v1/webhooks/{endpoint.pk}").status_code == 404
    assert api.post(f"/api/v1/webhooks/{endpoint.pk}/test").status_code == 404
    unknown = api.post("/api/v1/webhooks", {"url": receiver.url, "events": ["nope"]}, format="json")
    assert unknown.status_code == 400 and "events" in unknown.json()["error"]["details"]


def test_tests_and_replays_past_the_limit_are_429_in_the_envelope_counted_with_the_pages(
    workspace, receiver, settings, client
):
    settings.WEBHOOK_MANUAL_SENDS_PER_MINUTE = 3
    owner = make_member(workspace, Role.OWNER)
    api = api_client_for(owner, workspace)
    endpoint, _ = webhook_endpoint_create(workspace=workspace, url=receiver.url, events=["webhook.test"])
    sent = api.post(f"/api/v1/webhooks/{endpoint.pk}/test")
    assert sent.status_code == 202
    assert api.post(f"/api/v1/webhook-deliveries/{sent.json()['id']}/replay").status_code == 202
    client.force_login(owner)
    assert client.post(f"/webhooks/{endpoint.pk}/", {"action": "test"}).status_code == 302  # the third send
    rows = WebhookDelivery.objects.count()
    for refused in (
        api.post(f"/api/v1/webhooks/{endpoint.pk}/test", HTTP_IDEMPOTENCY_KEY="k-1"),
        api.post(f"/api/v1/webhook-deliveries/{sent.json()['id']}/replay"),
    ):
        assert refused.status_code == 429 and 0 < int(refused["Retry-After"]) <= 60
        error = refused.json()["error"]
        assert error["code"] == "RATE_LIMITED" and error["details"]["retry_after_seconds"] == int(
            refused["Retry-After"]
        )
    page = client.post(f"/webhooks/{endpoint.pk}/", {"action": "test"})
    assert page.status_code == 429 and "ثانیه دیگر دوباره تلاش کنید" in page.content.decode()
    replay_page = client.post(f"/webhooks/deliveries/{sent.json()['id']}/replay/")
    assert replay_page.status_code == 429 and replay_page["Retry-After"]
    assert WebhookDelivery.objects.count() == rows  # nothing queued past the limit
    # a refused request claimed no Idempotency-Key: the same key runs once the minute is over
    from django.core.cache import cache

    cache.clear()
    again = api.post(f"/api/v1/webhooks/{endpoint.pk}/test", HTTP_IDEMPOTENCY_KEY="k-1")
    assert again.status_code == 202 and "Idempotent-Replayed" not in again
    # another member has a count of their own; rotating the secret and reading are not counted
    admin = make_member(workspace, Role.ADMIN, username="admin2")
    assert api_client_for(admin, workspace).post(f"/api/v1/webhooks/{endpoint.pk}/test").status_code == 202


def test_the_admins_of_a_workspace_share_its_limit_of_tests_and_replays_each_keeping_their_own(
    workspace, receiver, settings, client
):
    from django.core.cache import cache

    cache.clear()
    settings.WEBHOOK_MANUAL_SENDS_PER_MINUTE = 2
    settings.WEBHOOK_MANUAL_SENDS_PER_WORKSPACE_PER_MINUTE = 3
    endpoint, _ = webhook_endpoint_create(workspace=workspace, url=receiver.url, events=["webhook.test"])
    owner = make_member(workspace, Role.OWNER)
    first, second, third = (make_member(workspace, Role.ADMIN, username=f"admin{n}") for n in (1, 2, 3))
    owner_api = api_client_for(owner, workspace)
    sent = owner_api.post(f"/api/v1/webhooks/{endpoint.pk}/test")
    assert sent.status_code == 202
    assert owner_api.post(f"/api/v1/webhook-deliveries/{sent.json()['id']}/replay").status_code == 202
    assert owner_api.post(f"/api/v1/webhooks/{endpoint.pk}/test").status_code == 429  # the member's own limit
    assert api_client_for(first, workspace).post(f"/api/v1/webhooks/{endpoint.pk}/test").status_code == 202
    rows = WebhookDelivery.objects.count()
    # the workspace's three are used: another admin, by the API or the page, is refused too
    refused = api_client_for(second, workspace).post(f"/api/v1/webhooks/{endpoint.pk}/test")
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "RATE_LIMITED"
    assert 0 < int(refused["Retry-After"]) <= 60
    client.force_login(third)
    page = client.post(f"/webhooks/{endpoint.pk}/", {"action": "test"})
    assert page.status_code == 429 and "ثانیه دیگر دوباره تلاش کنید" in page.content.decode()
    assert client.post(f"/webhooks/deliveries/{sent.json()['id']}/replay/").status_code == 429
    assert WebhookDelivery.objects.count() == rows
    # another workspace's admins have a count of their own
    other = make_workspace("other")
    other_endpoint, _ = webhook_endpoint_create(workspace=other, url=receiver.url, events=["webhook.test"])
    stranger = make_member(other, Role.OWNER, username="stranger")
    assert api_client_for(stranger, other).post(f"/api/v1/webhooks/{other_endpoint.pk}/test").status_code == 202
