"""What a workspace subscribes to is cached (an unsubscribed event is no query and no row), the cache follows
every change of an endpoint, a batch of events is one INSERT delivered by one task per chunk, and every
registered event's body is a typed component of the API schema."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from drf_spectacular.generators import SchemaGenerator

from campaigns.platform import webhooks
from campaigns.platform.models import WebhookDelivery, WebhookEndpoint
from campaigns.platform.webhook_payloads import component_name
from campaigns.platform.webhooks import (
    DELIVER_CHUNK,
    WEBHOOK_EVENTS,
    webhook_deliveries_attempt,
    webhook_endpoint_create,
    webhook_endpoint_delete,
    webhook_endpoint_update,
    webhook_events_emit,
    webhook_subscribed,
)

from ..conftest import make_workspace
from ..platform.test_schema_typed import untyped_places
from .test_webhooks import Receiver, verify

pytestmark = pytest.mark.django_db


@pytest.fixture
def outbox_inserts(monkeypatch):
    return spy_outbox_inserts(monkeypatch)


def spy_outbox_inserts(monkeypatch) -> list[int]:
    """The outbox's INSERT statements, by their row counts (one ``bulk_insert`` is one statement, sent past
    Django's query capture)."""
    if connection.vendor != "postgresql":
        pytest.skip("the outbox's set-based INSERT is PostgreSQL's")
    calls: list[int] = []
    real = webhooks.bulk_insert

    def spy(model, rows, **kwargs):
        calls.append(len(rows))
        return real(model, rows, **kwargs)

    monkeypatch.setattr(webhooks, "bulk_insert", spy)
    return calls


@pytest.fixture
def receiver(settings):
    r = Receiver()
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = [f"127.0.0.1:{r.port}"]
    yield r
    r.close()


def _emit(workspace, type="sms.sent", n=1):
    return webhook_events_emit(workspace_id=workspace.id, type=type, items=[{"n": i} for i in range(n)])


def test_an_unsubscribed_event_costs_no_query_once_cached(workspace, receiver):
    webhook_endpoint_create(workspace=workspace, url=receiver.url, events=["sms.delivered"])
    assert _emit(workspace) == []  # the first read fills the cache
    with CaptureQueriesContext(connection) as queries:
        for _ in range(50):
            assert _emit(workspace, n=100) == []
    assert len(queries.captured_queries) == 0 and WebhookDelivery.objects.count() == 0


def test_the_cache_follows_every_change_of_an_endpoint(workspace, receiver):
    assert webhook_subscribed(workspace.id) == frozenset()
    endpoint, _ = webhook_endpoint_create(workspace=workspace, url=receiver.url, events=["sms.sent"])
    assert webhook_subscribed(workspace.id) == {"sms.sent"} and len(_emit(workspace)) == 1
    webhook_endpoint_update(workspace=workspace, endpoint_id=endpoint.id, data={"events": ["sms.failed"]})
    assert webhook_subscribed(workspace.id) == {"sms.failed"} and _emit(workspace) == []
    webhook_endpoint_update(workspace=workspace, endpoint_id=endpoint.id, data={"is_active": False})
    assert webhook_subscribed(workspace.id) == frozenset() and _emit(workspace, "sms.failed") == []
    webhook_endpoint_update(workspace=workspace, endpoint_id=endpoint.id, data={"is_active": True})
    assert len(_emit(workspace, "sms.failed")) == 1
    WebhookEndpoint.objects.create(workspace=workspace, url=receiver.url, events=["sms.sent"], secret="whsec_x")
    assert webhook_subscribed(workspace.id) == {"sms.failed", "sms.sent"}  # the ORM (admin, fixtures) too
    webhook_endpoint_delete(workspace=workspace, endpoint_id=endpoint.id)
    assert webhook_subscribed(workspace.id) == {"sms.sent"}


def test_a_batch_is_one_insert_and_one_task_per_chunk_delivered_signed(
    workspace, receiver, django_capture_on_commit_callbacks, monkeypatch, outbox_inserts
):
    a, secret = webhook_endpoint_create(workspace=workspace, url=receiver.url, events=["sms.sent"])
    b, _ = webhook_endpoint_create(workspace=workspace, url=receiver.url, events=["sms.sent", "sms.failed"])
    webhook_endpoint_create(workspace=make_workspace("other"), url=receiver.url, events=["sms.sent"])
    sent: list[tuple[str, tuple]] = []
    monkeypatch.setattr(
        "campaigns.platform.webhooks.current_app.signature",
        lambda name: type("S", (), {"delay": lambda self, *args: sent.append((name, args))})(),
    )
    with django_capture_on_commit_callbacks(execute=True):
        ids = _emit(workspace, n=15)
    assert len(ids) == 15 and outbox_inserts == [30]  # 15 events × 2 endpoints, one statement
    rows = WebhookDelivery.objects.filter(workspace=workspace)
    assert rows.count() == 30 and set(rows.values_list("endpoint_id", flat=True)) == {a.id, b.id}
    assert [name for name, _ in sent] == ["campaigns.webhook_deliver_many"] * 2  # 30 rows, 20 a task
    assert [len(args[0]) for _, args in sent] == [DELIVER_CHUNK, 30 - DELIVER_CHUNK]
    chunk = sent[0][1][0]
    assert webhook_deliveries_attempt(delivery_ids=chunk) == ["delivered"] * DELIVER_CHUNK
    assert len(receiver.received) == DELIVER_CHUNK  # one event per request
    first = WebhookDelivery.objects.get(pk=chunk[0])
    got = next(r for r in receiver.received if r["headers"]["Webhook-Id"] == str(first.event_id))
    assert verify(a.secret if first.endpoint_id == a.id else b.secret, got["headers"], got["body"])
    assert first.endpoint_id != a.id or verify(secret, got["headers"], got["body"])


def test_every_registered_event_body_is_a_typed_schema_component():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    for event, _ in WEBHOOK_EVENTS:
        component = components[component_name(event)]
        assert component["properties"]["type"]["enum"] == [event]
        assert untyped_places(component, component_name(event)) == []
    sent = components["SmsSentWebhookEvent"]["properties"]["data"]
    assert sent["properties"]["retry_at"] == {"type": "string", "format": "date-time", "nullable": True}
    assert "phone" in sent["required"] and "text" not in sent["properties"]
