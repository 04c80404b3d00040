"""Signed outbound webhooks: endpoints per workspace, an outbox row per event and endpoint, delivery with retries.

- **Events** are registered by the app that has them (``register_webhook_event`` from ``AppConfig.ready()``,
  with the dataclass of its ``data``: ``campaigns.platform.webhook_payloads``); its one event writer calls
  ``webhook_event_emit`` (``webhook_events_emit`` for a batch of facts: one INSERT) inside the transaction that
  writes the fact, so the outbox rows (``WebhookDelivery``) commit or roll back with it. After the commit one
  Celery task per row (per ``DELIVER_CHUNK`` rows of a batch) delivers them, one event per request.
- **Subscriptions** are cached per workspace (``webhook_subscribed``): an event nobody subscribed to costs one
  cache read, no query and no row. A change of an endpoint (any save or delete) drops the workspace's entry
  after its commit; ``SUBSCRIPTIONS_TTL`` bounds a stale entry left by a race.
- **Body**: ``{"id", "type", "created_at", "workspace_id", "data"}``, JSON. ``id`` (also the ``Webhook-Id``
  header) is the same for every attempt and replay of one event: a receiver drops a repeat by it.
- **Signature**: ``Webhook-Signature: t=<unix time>,v1=<hex>`` where ``<hex>`` is HMAC-SHA256 with the
  endpoint's secret over ``"<unix time>." + body`` (the exact bytes sent). After a rotation the previous
  secret signs too (a second ``v1=``) until ``previous_secret_until``.
- **Delivery**: at least once. A 2xx answer delivers; anything else (or no answer in
  ``WEBHOOK_TIMEOUT_SECONDS``) is retried after ``BACKOFF`` (1 min … 12 h), ``WEBHOOK_MAX_ATTEMPTS`` in all,
  then the row is ``failed`` (a replay from the delivery log sends it again). The row is leased with a
  conditional UPDATE before the call and no transaction is open during it; the minute sweep re-queues rows
  whose task was lost. Redirects are not followed.
- **Where it may go**: the URL goes through the platform's address guard (``campaigns.platform.netguard``)
  when it is saved and again before every attempt, and the connection is made to the address that was checked;
  ``WEBHOOK_ALLOWED_PRIVATE_HOSTS`` ("host:port") lets a private address through.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import secrets
import socket
import ssl
import uuid
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

from celery import current_app
from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from campaigns.platform.bulk import bulk_insert
from campaigns.platform.database import is_postgresql
from campaigns.platform.errors import NotFound, ValidationFailed
from campaigns.platform.jalali import fa_digits
from campaigns.platform.models import (
    WebhookDelivery,
    WebhookDeliveryStatus,
    WebhookEndpoint,
    Workspace,
)
from campaigns.platform.netguard import (
    KIND_LABELS,
    NEUTRAL_REASON,
    AddressNotAllowed,
    NetGuard,
    parse_allow_list,
    url_host_port,
)
from campaigns.platform.registry import Registry

DELIVER_TASK = "campaigns.webhook_deliver"
DELIVER_MANY_TASK = "campaigns.webhook_deliver_many"
DELIVER_CHUNK = 20  # rows of one batch delivered by one task, one after the other
SUBSCRIPTIONS_TTL = 300  # seconds
BACKOFF = (60, 300, 1800, 7200, 21600, 43200)  # seconds before attempts 2, 3, …; the last one repeats
LEASE = timedelta(seconds=120)
MAX_ENDPOINTS = 20

# event name → Persian label (for the pages); each app registers its own from ``AppConfig.ready()``
WEBHOOK_EVENTS: Registry[str] = Registry("webhook events")
# event name → the dataclass of its ``data`` (the schema's ``<Name>WebhookEvent`` components)
WEBHOOK_PAYLOADS: Registry[type] = Registry("webhook payloads")


def register_webhook_event(name: str, label: str, payload: type | None = None) -> None:
    WEBHOOK_EVENTS.register(name, label)
    if payload is not None:
        WEBHOOK_PAYLOADS.register(name, payload)


def webhook_event_names() -> list[str]:
    return [name for name, _ in WEBHOOK_EVENTS]


# --- endpoints ------------------------------------------------------------------------------
def _new_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


def webhook_url_check(url: str) -> None:
    """The address guard, as a field error on ``url``."""
    try:
        NetGuard(allowed=parse_allow_list(settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS)).check_url(url)
    except AddressNotAllowed as exc:
        raise ValidationFailed.field("url", exc.message) from None


def _events_check(events: list[str]) -> list[str]:
    known = webhook_event_names()
    unknown = sorted(set(events) - set(known))
    if unknown or not events:
        raise ValidationFailed.field(
            "events", f"رویداد ناشناخته: {'، '.join(unknown)}" if unknown else "دست‌کم یک رویداد برگزینید."
        )
    return [e for e in known if e in events]


def webhook_endpoint_create(
    *, workspace: Workspace, url: str, events: list[str], description: str = ""
) -> tuple[WebhookEndpoint, str]:
    """A new endpoint and its secret (shown once)."""
    webhook_url_check(url)
    if WebhookEndpoint.objects.filter(workspace=workspace).count() >= MAX_ENDPOINTS:
        raise ValidationFailed.field("url", f"هر فضای کاری حداکثر {fa_digits(MAX_ENDPOINTS)} وب‌هوک دارد.")
    secret = _new_secret()
    endpoint = WebhookEndpoint.objects.create(
        workspace=workspace, url=url, events=_events_check(events), description=description[:200], secret=secret
    )
    return endpoint, secret


def webhook_endpoint_get(*, workspace: Workspace, endpoint_id: int) -> WebhookEndpoint:
    endpoint = WebhookEndpoint.objects.filter(workspace=workspace, pk=endpoint_id).first()
    if endpoint is None:
        raise NotFound()
    return endpoint


def webhook_endpoint_update(*, workspace: Workspace, endpoint_id: int, data: dict) -> WebhookEndpoint:
    endpoint = webhook_endpoint_get(workspace=workspace, endpoint_id=endpoint_id)
    if "url" in data:
        webhook_url_check(data["url"])
        endpoint.url = data["url"]
    if "events" in data:
        endpoint.events = _events_check(data["events"])
    if "description" in data:
        endpoint.description = data["description"][:200]
    if "is_active" in data:
        endpoint.is_active = data["is_active"]
    endpoint.save()
    return endpoint


def webhook_endpoint_delete(*, workspace: Workspace, endpoint_id: int) -> None:
    webhook_endpoint_get(workspace=workspace, endpoint_id=endpoint_id).delete()


def webhook_secret_rotate(*, workspace: Workspace, endpoint_id: int) -> tuple[WebhookEndpoint, str]:
    """A new secret (shown once); the current one keeps signing for ``WEBHOOK_SECRET_OVERLAP_HOURS``."""
    with transaction.atomic():
        endpoint = WebhookEndpoint.objects.select_for_update().filter(workspace=workspace, pk=endpoint_id).first()
        if endpoint is None:
            raise NotFound()
        secret = _new_secret()
        endpoint.previous_secret = endpoint.secret
        endpoint.previous_secret_until = timezone.now() + timedelta(hours=settings.WEBHOOK_SECRET_OVERLAP_HOURS)
        endpoint.secret = secret
        endpoint.save()
    return endpoint, secret


# --- subscriptions (cached) -------------------------------------------------------------------
def _subscriptions_key(workspace_id: int) -> str:
    return f"webhooks:subscribed:{workspace_id}"


def webhook_subscribed(workspace_id: int) -> frozenset[str]:
    """The events some active endpoint of the workspace subscribes to (one cache read; a query on a miss)."""
    key = _subscriptions_key(workspace_id)
    found = cache.get(key)
    if found is None:
        found = sorted(
            {
                event
                for events in WebhookEndpoint.objects.filter(workspace_id=workspace_id, is_active=True).values_list(
                    "events", flat=True
                )
                for event in events
            }
        )
        cache.set(key, found, SUBSCRIPTIONS_TTL)
    return frozenset(found)


def webhook_wanted(workspace_id: int, *types: str) -> bool:
    """Does an active endpoint of the workspace subscribe to any of ``types``? (Writers check before building
    a batch's payloads.)"""
    return not webhook_subscribed(workspace_id).isdisjoint(types)


def webhook_subscriptions_changed(workspace_id: int) -> None:
    """An endpoint of the workspace changed: its cached subscriptions go now and again after the commit."""
    cache.delete(_subscriptions_key(workspace_id))
    transaction.on_commit(lambda: cache.delete(_subscriptions_key(workspace_id)))


# --- events into the outbox ---------------------------------------------------------------------
def webhook_event_emit(*, workspace_id: int, type: str, data: dict) -> uuid.UUID | None:
    """Outbox rows for every active endpoint of the workspace subscribed to ``type``, in the caller's
    transaction; each is queued for delivery after the commit. Returns the event id (None: no subscriber)."""
    ids = webhook_events_emit(workspace_id=workspace_id, type=type, items=[data])
    return ids[0] if ids else None


def webhook_events_emit(*, workspace_id: int, type: str, items: list[dict]) -> list[uuid.UUID]:
    """One event per item of ``items`` (the ``data`` of each), for a batch of facts of one workspace: the rows
    of every subscribed endpoint in one INSERT, in the caller's transaction. Nothing (no query, no row) when
    no active endpoint of the workspace subscribes to ``type``. Returns the event ids ([]: no subscriber)."""
    if type not in WEBHOOK_EVENTS:
        raise ValueError(f"unregistered webhook event {type!r}")
    if not items or type not in webhook_subscribed(workspace_id):
        return []
    endpoints = [
        e for e in WebhookEndpoint.objects.filter(workspace_id=workspace_id, is_active=True) if type in e.events
    ]
    return _outbox(workspace_id=workspace_id, endpoints=endpoints, type=type, items=items)


def webhook_test_send(*, workspace: Workspace, endpoint_id: int) -> WebhookDelivery:
    """A ``webhook.test`` event to one endpoint (subscribed to it or not), through the outbox like any other."""
    endpoint = webhook_endpoint_get(workspace=workspace, endpoint_id=endpoint_id)
    with transaction.atomic():
        (event_id,) = _outbox(
            workspace_id=workspace.pk, endpoints=[endpoint], type="webhook.test", items=[{"webhook_id": endpoint.pk}]
        )
    return WebhookDelivery.objects.get(event_id=event_id)


def _outbox(*, workspace_id: int, endpoints: list[WebhookEndpoint], type: str, items: list[dict]) -> list[uuid.UUID]:
    if not endpoints:
        return []
    now = timezone.now()
    events = []
    for data in items:
        event_id = uuid.uuid4()
        payload = {
            "id": str(event_id),
            "type": type,
            "created_at": now.isoformat(),
            "workspace_id": workspace_id,
            "data": data,
        }
        events.append((event_id, payload))
    rows = [
        {
            "workspace_id": workspace_id,
            "endpoint_id": e.pk,
            "event_id": event_id,
            "event_type": type,
            "payload": payload,
            "next_attempt_at": now,
        }
        for event_id, payload in events
        for e in endpoints
    ]
    if is_postgresql(connection):  # one INSERT from arrays, no model instances (a batch of sends)
        ids = sorted(pk for (pk,) in bulk_insert(WebhookDelivery, rows))
    else:
        ids = [r.pk for r in WebhookDelivery.objects.bulk_create([WebhookDelivery(**row) for row in rows])]
    _queue(ids)
    return [event_id for event_id, _ in events]


def _queue(ids: list[int]) -> None:
    """After the commit: one task for a single row, one task per ``DELIVER_CHUNK`` rows of a batch."""
    if len(ids) == 1:
        transaction.on_commit(lambda: current_app.signature(DELIVER_TASK).delay(ids[0]))
        return
    chunks = [ids[i : i + DELIVER_CHUNK] for i in range(0, len(ids), DELIVER_CHUNK)]
    transaction.on_commit(lambda: [current_app.signature(DELIVER_MANY_TASK).delay(c) for c in chunks])


def webhook_delivery_get(*, workspace: Workspace, delivery_id: int) -> WebhookDelivery:
    delivery = WebhookDelivery.objects.filter(workspace=workspace, pk=delivery_id).first()
    if delivery is None:
        raise NotFound()
    return delivery


def webhook_delivery_replay(*, workspace: Workspace, delivery_id: int) -> WebhookDelivery:
    """Send a delivery again (same event id and body) as a new row of the log."""
    original = webhook_delivery_get(workspace=workspace, delivery_id=delivery_id)
    with transaction.atomic():
        replay = WebhookDelivery.objects.create(
            workspace=workspace,
            endpoint_id=original.endpoint_id,
            event_id=original.event_id,
            event_type=original.event_type,
            payload=original.payload,
            next_attempt_at=timezone.now(),
            replay_of=original,
        )
        _queue([replay.pk])
    return replay


# --- signing and sending --------------------------------------------------------------------
def webhook_signature(*, secret: str, timestamp: int, body: bytes) -> str:
    return hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()


def signature_header(endpoint: WebhookEndpoint, *, timestamp: int, body: bytes, now) -> str:
    parts = [f"t={timestamp}", f"v1={webhook_signature(secret=endpoint.secret, timestamp=timestamp, body=body)}"]
    if endpoint.previous_secret and endpoint.previous_secret_until and endpoint.previous_secret_until > now:
        old = webhook_signature(secret=endpoint.previous_secret, timestamp=timestamp, body=body)
        parts.append(f"v1={old}")
    return ",".join(parts)


@dataclass(frozen=True)
class Answer:
    status: int | None
    error: str = ""


# A delivery's ``last_error`` (kept as the worker reports it, and so in the API) said in Persian on the page.
_ERROR_TEXTS = {
    "TimeoutError": "پاسخی در زمان مقرر نرسید",
    "timeout": "پاسخی در زمان مقرر نرسید",
    "ConnectionRefusedError": "سامانهٔ گیرنده اتصال را نپذیرفت",
    "ConnectionResetError": "سامانهٔ گیرنده اتصال را قطع کرد",
    "SSLCertVerificationError": "گواهی امنیتی سامانهٔ گیرنده پذیرفته نشد",
    "SSLError": "برقراری اتصال امن ناموفق بود",
    "RemoteDisconnected": "سامانهٔ گیرنده بی‌پاسخ اتصال را بست",
}


def delivery_error_text(error: str) -> str:
    """A delivery's error for the staff page: «address not allowed (kind)» with the kind's label, an exception's
    name by what it means, anything else as a network error ("" for none)."""
    if not error:
        return ""
    if error.startswith(NEUTRAL_REASON):
        kind = error[len(NEUTRAL_REASON) :].strip(" ()")
        return f"نشانی مجاز نیست: {KIND_LABELS.get(kind, 'مقصد پذیرفته نیست')}"
    return _ERROR_TEXTS.get(error, "خطای شبکه در رساندن رویداد")


def tls_context() -> ssl.SSLContext:
    """The system's trust store, certificate and host name checked (a test passes its own CA here)."""
    return ssl.create_default_context()


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to the address the guard checked, with the host name for SNI and the certificate."""

    def __init__(self, host: str, port: int, address: str, **kwargs):
        super().__init__(host, port, context=tls_context(), **kwargs)
        self.address = address

    def connect(self) -> None:
        sock = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def _post(url: str, *, body: bytes, headers: dict[str, str]) -> Answer:
    try:
        host, port = url_host_port(url)
        addresses = NetGuard(allowed=parse_allow_list(settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS)).check_host(host, port)
    except AddressNotAllowed as exc:
        return Answer(None, f"{NEUTRAL_REASON} ({exc.kind})")
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    timeout = settings.WEBHOOK_TIMEOUT_SECONDS
    if parts.scheme == "https":
        conn = _PinnedHTTPSConnection(host, port, addresses[0], timeout=timeout)
    else:
        conn = http.client.HTTPConnection(addresses[0], port, timeout=timeout)
    try:
        conn.request("POST", path, body=body, headers={**headers, "Host": parts.netloc.rsplit("@", 1)[-1]})
        response = conn.getresponse()
        response.read(65536)  # the receiver's answer is not kept
        return Answer(response.status)
    except (OSError, http.client.HTTPException) as exc:
        return Answer(None, type(exc).__name__)
    finally:
        conn.close()


def webhook_delivery_attempt(*, delivery_id: int) -> str | None:
    """One attempt: lease the row, POST it (no transaction open), record the answer. Returns the new status,
    None when the row is not due, already leased or finished."""
    now = timezone.now()
    leased = WebhookDelivery.objects.filter(
        Q(locked_until__isnull=True) | Q(locked_until__lt=now),
        pk=delivery_id,
        status=WebhookDeliveryStatus.PENDING,
        next_attempt_at__lte=now,
    ).update(locked_until=now + LEASE)
    if not leased:
        return None
    delivery = WebhookDelivery.objects.select_related("endpoint").get(pk=delivery_id)
    endpoint = delivery.endpoint
    body = json.dumps(delivery.payload, ensure_ascii=False, separators=(",", ":")).encode()
    timestamp = int(now.timestamp())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "campaign-platform-webhooks/1",
        "Webhook-Id": str(delivery.event_id),
        "Webhook-Timestamp": str(timestamp),
        "Webhook-Signature": signature_header(endpoint, timestamp=timestamp, body=body, now=now),
    }
    answer = _post(endpoint.url, body=body, headers=headers) if endpoint.is_active else Answer(None, "disabled")
    attempts = delivery.attempts + 1
    done = answer.status is not None and 200 <= answer.status < 300
    fields = {"attempts": attempts, "locked_until": None, "last_status_code": answer.status}
    fields["last_error"] = answer.error or ("" if done else f"HTTP {answer.status}")
    if done:
        fields.update(status=WebhookDeliveryStatus.DELIVERED, delivered_at=timezone.now())
    elif attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
        fields.update(status=WebhookDeliveryStatus.FAILED)
    else:
        wait = BACKOFF[min(attempts - 1, len(BACKOFF) - 1)]
        fields.update(next_attempt_at=timezone.now() + timedelta(seconds=wait))
    WebhookDelivery.objects.filter(pk=delivery_id).update(**fields)
    if not done and fields.get("status") is None:
        current_app.signature(DELIVER_TASK).apply_async((delivery_id,), countdown=wait)
    return fields.get("status", WebhookDeliveryStatus.PENDING)


def webhook_deliveries_attempt(*, delivery_ids: list[int]) -> list[str | None]:
    """A batch's rows, one after the other (each leased, posted and recorded on its own)."""
    return [webhook_delivery_attempt(delivery_id=i) for i in delivery_ids]


def webhook_deliveries_sweep(*, limit: int = 500) -> list[int]:
    """Due pending rows no task holds (a lost message, a worker restart): queued again."""
    now = timezone.now()
    ids = list(
        WebhookDelivery.objects.filter(
            Q(locked_until__isnull=True) | Q(locked_until__lt=now),
            status=WebhookDeliveryStatus.PENDING,
            next_attempt_at__lte=now - timedelta(seconds=30),
        ).values_list("id", flat=True)[:limit]
    )
    for delivery_id in ids:
        current_app.signature(DELIVER_TASK).delay(delivery_id)
    return ids
