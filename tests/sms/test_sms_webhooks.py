"""Outbound webhooks of the SMS channel (docs/api.md "Outbound webhooks"): a batch of sends writes one
``sms.sent`` event per accepted attempt in one INSERT, a refused call ``sms.failed``, a delivery report
``sms.delivered`` / ``sms.failed`` once however often it repeats, a reply ``sms.reply_received`` and an opt-out
``sms.opted_out`` once; nothing for another workspace, and no webhook query at all when nobody subscribed.
Real HTTP against the local fake provider; the body is checked signed by an HMAC written here."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from automation.services.enrollment import enroll_subjects
from campaigns.platform.models import WebhookDelivery
from campaigns.platform.webhooks import webhook_delivery_attempt, webhook_endpoint_create, webhook_subscribed
from sms import rate_limits
from sms.choices import BlacklistSource
from sms.delivery import delivery_poll
from sms.inbound.services import inbound_store
from sms.models import SmsAttempt
from sms.providers.kavenegar import Fixtures as Kavenegar
from sms.services import blacklist_opt_out, delivery_reports_apply
from tests.automation.helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node
from tests.campaigns.test_webhook_subscriptions import spy_outbox_inserts
from tests.campaigns.test_webhooks import Receiver, verify
from tests.conftest import make_target, make_workspace

from .fake_provider import FakeProvider
from .inbound_helpers import make_account, received

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)
ATTEMPT_EVENTS = ["sms.sent", "sms.delivered", "sms.failed"]

pytestmark = pytest.mark.django_db


@pytest.fixture
def fake(settings):
    server = FakeProvider(hold_seconds=1.0)
    settings.SMS_PROVIDER_BASE_URLS = {"kavenegar": server.url, "melipayamak": server.url}
    settings.SMS_HTTP_TIMEOUT = 0.4
    settings.SMS_RATE_LIMIT_MAX_WAIT_SECONDS = 0
    rate_limits.reset()
    yield server
    rate_limits.reset()
    server.close()


@pytest.fixture
def outbox_inserts(monkeypatch):
    return spy_outbox_inserts(monkeypatch)


@pytest.fixture
def receiver(settings):
    r = Receiver()
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = [f"127.0.0.1:{r.port}"]
    yield r
    r.close()


def _journey(actor, workspace, count: int):
    setup_sms(workspace, "kavenegar", {"api_key": "K"})
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        targets = [make_target(workspace) for _ in range(count)]
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets])
    return campaign


def _deliveries(workspace, type: str) -> list[WebhookDelivery]:
    return list(WebhookDelivery.objects.filter(workspace=workspace, event_type=type).order_by("id"))


def test_a_batch_of_accepted_sends_is_one_insert_of_one_sent_event_each(
    actor, workspace, fake, receiver, outbox_inserts
):
    if connection.vendor != "postgresql":
        pytest.skip("the batched send runs on PostgreSQL")
    _, secret = webhook_endpoint_create(workspace=workspace, url=receiver.url, events=ATTEMPT_EVENTS)
    campaign = _journey(actor, workspace, count=3)
    Driver().tick(T0 + timedelta(minutes=1))
    attempts = list(SmsAttempt.objects.filter(campaign=campaign).order_by("id"))
    assert [a.status for a in attempts] == ["submitted"] * 3 and len(fake.sends()) == 1
    sent = _deliveries(workspace, "sms.sent")
    assert [d.payload["data"]["attempt_id"] for d in sent] == [a.id for a in attempts]  # once each
    assert len({d.event_id for d in sent}) == 3 and outbox_inserts == [3]
    first, data = attempts[0], sent[0].payload["data"]
    assert data == {
        "attempt_id": first.id,
        "campaign_id": campaign.id,
        "execution_id": first.execution_id,
        "target_id": first.subject_id,
        "node_id": first.node_id,
        "attempt_number": first.attempt_number,
        "phone": first.phone,
        "status": "submitted",
        "provider": "kavenegar",
        "provider_message_id": first.provider_message_id,
        "error_code": "",
        "requested_at": first.request_at.isoformat(),
        "retry_at": None,
    }
    assert sent[0].payload["workspace_id"] == workspace.id and sent[0].payload["type"] == "sms.sent"
    assert webhook_delivery_attempt(delivery_id=sent[0].pk) == "delivered"
    (got,) = receiver.received
    assert verify(secret, got["headers"], got["body"]) and got["headers"]["Webhook-Id"] == str(sent[0].event_id)


def test_a_refused_call_is_one_failed_event_per_attempt(actor, workspace, fake, receiver):
    webhook_endpoint_create(workspace=workspace, url=receiver.url, events=["sms.failed"])
    campaign = _journey(actor, workspace, count=2)
    fake.responses.append(Kavenegar.error(418))  # the provider refuses the whole call
    Driver().tick(T0 + timedelta(minutes=1))
    attempts = SmsAttempt.objects.filter(campaign=campaign)
    failed = _deliveries(workspace, "sms.failed")
    assert sorted(d.payload["data"]["attempt_id"] for d in failed) == sorted(a.id for a in attempts)
    assert {d.payload["data"]["status"] for d in failed} == {"unavailable"}
    assert _deliveries(workspace, "sms.sent") == []  # not subscribed: no row


def test_a_delivery_report_fires_once_however_often_it_comes(actor, workspace, fake, receiver):
    webhook_endpoint_create(workspace=workspace, url=receiver.url, events=["sms.delivered", "sms.failed"])
    campaign = _journey(actor, workspace, count=2)
    Driver().tick(T0 + timedelta(minutes=1))
    first, second = SmsAttempt.objects.filter(campaign=campaign).order_by("id")
    settings = workspace.sms_settings
    delivered = {"message_id": first.provider_message_id, "status": "delivered", "at": "1"}
    failed = {"message_id": second.provider_message_id, "status": "failed", "at": "1"}
    delivery_reports_apply(settings=settings, reports=[delivered, delivered, failed], opt_outs=[])
    delivery_reports_apply(settings=settings, reports=[delivered, failed], opt_outs=[])  # the provider retries
    late = {"message_id": first.provider_message_id, "status": "failed", "at": "2"}  # a final status never moves
    delivery_reports_apply(settings=settings, reports=[late], opt_outs=[])
    (event,) = _deliveries(workspace, "sms.delivered")
    assert (event.payload["data"]["attempt_id"], event.payload["data"]["status"]) == (first.id, "delivered")
    (event,) = _deliveries(workspace, "sms.failed")
    assert (event.payload["data"]["attempt_id"], event.payload["data"]["status"]) == (second.id, "failed")


def test_another_workspace_never_gets_the_events_and_nobody_subscribed_costs_no_query(actor, workspace, fake, receiver):
    other = make_workspace("other")
    webhook_endpoint_create(workspace=other, url=receiver.url, events=ATTEMPT_EVENTS)
    webhook_endpoint_create(workspace=workspace, url=receiver.url, events=["campaign.status_changed"])
    campaign = _journey(actor, workspace, count=3)
    assert webhook_subscribed(workspace.id) == {"campaign.status_changed"}  # read once, then cached
    with CaptureQueriesContext(connection) as queries:
        Driver().tick(T0 + timedelta(minutes=1))
        first = SmsAttempt.objects.filter(campaign=campaign).order_by("id").first()
        report = {"message_id": first.provider_message_id, "status": "delivered", "at": "1"}
        delivery_reports_apply(settings=workspace.sms_settings, reports=[report], opt_outs=[])
    assert SmsAttempt.objects.filter(campaign=campaign, status="submitted").count() == 2
    assert [q["sql"] for q in queries.captured_queries if "platform_webhook" in q["sql"]] == []
    assert WebhookDelivery.objects.filter(event_type__startswith="sms.").count() == 0


def test_an_endpoint_made_after_a_cached_no_gets_the_next_report(actor, workspace, fake, receiver):
    campaign = _journey(actor, workspace, count=2)
    Driver().tick(T0 + timedelta(minutes=1))
    assert WebhookDelivery.objects.count() == 0 and webhook_subscribed(workspace.id) == frozenset()  # cached
    endpoint, _ = webhook_endpoint_create(workspace=workspace, url=receiver.url, events=["sms.delivered"])
    first = SmsAttempt.objects.filter(campaign=campaign).order_by("id").first()
    report = {"message_id": first.provider_message_id, "status": "delivered", "at": "1"}
    delivery_reports_apply(settings=workspace.sms_settings, reports=[report], opt_outs=[])
    (event,) = _deliveries(workspace, "sms.delivered")
    assert event.endpoint_id == endpoint.id and event.payload["data"]["attempt_id"] == first.id


def test_a_reply_and_its_opt_out_word_fire_once_each(workspace, other_workspace, receiver):
    _, secret = webhook_endpoint_create(
        workspace=workspace, url=receiver.url, events=["sms.reply_received", "sms.opted_out"]
    )
    webhook_endpoint_create(workspace=other_workspace, url=receiver.url, events=["sms.reply_received"])
    account = make_account(workspace)
    target = make_target(workspace, mobile="+989121234567")
    batch = [received("لغو11", "09121234567", message_id="m1")]
    (stored,) = inbound_store(account=account, messages=batch)
    assert inbound_store(account=account, messages=batch) == []  # polled again: nothing new, no event
    (reply,) = _deliveries(workspace, "sms.reply_received")
    assert reply.payload["data"] == {
        "reply_id": stored.id,
        "number": "+989121234567",
        "line": "10004346",
        "text": "لغو11",
        "received_at": stored.received_at.isoformat(),
        "target_id": target.id,
        "attempt_id": None,
        "campaign_id": None,
        "outcome": "opt_out",
    }
    (opt_out,) = _deliveries(workspace, "sms.opted_out")
    assert opt_out.payload["data"]["number"] == "+989121234567" and opt_out.payload["data"]["source"] == "reply"
    # already blacklisted: a second opt-out changes nothing and fires nothing
    blacklist_opt_out(workspace_id=workspace.id, number="+989121234567", source=BlacklistSource.OPT_OUT)
    assert len(_deliveries(workspace, "sms.opted_out")) == 1
    assert WebhookDelivery.objects.filter(workspace=other_workspace).count() == 0
    assert webhook_delivery_attempt(delivery_id=reply.pk) == "delivered"
    (got,) = receiver.received
    assert verify(secret, got["headers"], got["body"])


def test_an_unknown_outcome_settled_as_sent_fires_sent_once(actor, workspace, fake, receiver, settings):
    settings.SMS_HTTP_TIMEOUT = 0.4
    webhook_endpoint_create(workspace=workspace, url=receiver.url, events=ATTEMPT_EVENTS)
    campaign = _journey(actor, workspace, count=1)
    fake.responses.append("accept_timeout")  # accepted, the answer lost
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    attempt = SmsAttempt.objects.get(campaign=campaign)
    assert attempt.status == "unknown" and WebhookDelivery.objects.filter(event_type__startswith="sms.").count() == 0
    for minute in (2, 4, 6, 20, 40):  # the status query answers "sent": settled once
        driver.tick(T0 + timedelta(minutes=minute))
    attempt.refresh_from_db()
    assert attempt.status == "submitted"
    (event,) = _deliveries(workspace, "sms.sent")
    assert event.payload["data"]["attempt_id"] == attempt.id and event.payload["data"]["status"] == "submitted"
    assert _deliveries(workspace, "sms.failed") == []


def test_a_poll_batch_of_delivered_attempts_is_one_insert_and_polled_again_nothing(
    actor, workspace, fake, receiver, outbox_inserts
):
    webhook_endpoint_create(workspace=workspace, url=receiver.url, events=["sms.delivered"])
    campaign = _journey(actor, workspace, count=3)
    Driver().tick(T0 + timedelta(minutes=1))
    attempts = list(SmsAttempt.objects.filter(campaign=campaign).order_by("id"))
    for attempt in attempts:
        fake.set_status(attempt.provider_message_id, 10)  # delivered
    assert delivery_poll(now=T0 + timedelta(minutes=10))["moved"] == 3
    assert outbox_inserts == [3]
    delivery_poll(now=T0 + timedelta(minutes=20))  # final: nothing asked, nothing fired
    events = _deliveries(workspace, "sms.delivered")
    assert [e.payload["data"]["attempt_id"] for e in events] == [a.id for a in attempts]
    assert {e.payload["data"]["status"] for e in events} == {"delivered"}


class _RolledBack(Exception):
    pass


def test_each_event_is_queued_in_its_writers_transaction_and_goes_with_it(actor, workspace, fake, receiver):
    """Inside the writer's transaction the event's outbox row is already there (written with the fact, not after
    the commit); a rollback of that transaction takes the fact and its event away together."""
    from django.db import transaction

    from sms.models import BlacklistEntry, InboundSms

    events = ["sms.delivered", "sms.failed", "sms.reply_received", "sms.opted_out"]
    webhook_endpoint_create(workspace=workspace, url=receiver.url, events=events)
    campaign = _journey(actor, workspace, count=2)
    Driver().tick(T0 + timedelta(minutes=1))
    first, second = SmsAttempt.objects.filter(campaign=campaign).order_by("id")
    reports = [
        {"message_id": first.provider_message_id, "status": "delivered", "at": "1"},
        {"message_id": second.provider_message_id, "status": "failed", "at": "1"},
    ]
    account = make_account(workspace)
    writers = {
        ("sms.delivered", "sms.failed"): lambda: delivery_reports_apply(
            settings=workspace.sms_settings, reports=reports, opt_outs=[]
        ),
        ("sms.reply_received", "sms.opted_out"): lambda: inbound_store(
            account=account, messages=[received("لغو11", "09121234567", message_id="m9")]
        ),
    }
    for types, write in writers.items():
        with pytest.raises(_RolledBack), transaction.atomic():
            write()
            assert [len(_deliveries(workspace, t)) for t in types] == [1, 1]  # queued with the fact, once each
            raise _RolledBack
        assert [len(_deliveries(workspace, t)) for t in types] == [0, 0]
    assert set(SmsAttempt.objects.filter(campaign=campaign).values_list("status", flat=True)) == {"submitted"}
    assert not InboundSms.objects.filter(workspace=workspace).exists()
    assert not BlacklistEntry.objects.filter(workspace=workspace, value="+989121234567").exists()
    # written for real: once each
    for write in writers.values():
        write()
    assert [len(_deliveries(workspace, t)) for t in events] == [1, 1, 1, 1]


def _unknown(actor, workspace, fake, count: int) -> list[SmsAttempt]:
    campaign = _journey(actor, workspace, count=count)
    fake.responses.append("accept_timeout")  # accepted, the answer lost: every attempt of the call unknown
    Driver().tick(T0 + timedelta(minutes=1))
    attempts = list(SmsAttempt.objects.filter(campaign=campaign).order_by("id"))
    assert {a.status for a in attempts} == {"unknown"} and _deliveries(workspace, "sms.sent") == []
    return attempts


def test_an_unknown_outcome_settled_by_a_delivery_report_fires_sent_once_then_delivered(
    actor, workspace, fake, receiver
):
    """A report that moves an unknown attempt straight to sent or delivered settles it as accepted: its
    ``sms.sent`` is queued with the move (in the report's transaction, gone with its rollback), once; a later
    ``delivered`` fires ``sms.delivered`` as usual; a failure report fires only ``sms.failed``."""
    from django.db import transaction

    webhook_endpoint_create(workspace=workspace, url=receiver.url, events=ATTEMPT_EVENTS)
    attempts = _unknown(actor, workspace, fake, count=3)
    for n, attempt in enumerate(attempts):  # a provider whose report names the message
        SmsAttempt.objects.filter(pk=attempt.pk).update(provider_message_id=f"m{n}")
    settings = workspace.sms_settings

    def report(n: int, status: str) -> None:
        item = {"message_id": f"m{n}", "status": status, "at": status}
        delivery_reports_apply(settings=settings, reports=[item], opt_outs=[])

    def fired(type: str) -> list[tuple[int, str]]:
        return [(e.payload["data"]["attempt_id"], e.payload["data"]["status"]) for e in _deliveries(workspace, type)]

    with pytest.raises(_RolledBack), transaction.atomic():
        report(0, "delivered")
        assert (len(fired("sms.sent")), len(fired("sms.delivered"))) == (1, 1)  # queued with the move
        raise _RolledBack
    assert fired("sms.sent") == fired("sms.delivered") == [] and SmsAttempt.objects.get(pk=attempts[0].pk).status == (
        "unknown"
    )

    first, second, third = (a.id for a in attempts)
    report(0, "delivered")  # straight to delivered: sent, then delivered
    report(1, "sent")  # accepted by the operator: sent
    report(1, "delivered")  # then delivered: delivered only
    report(2, "failed")  # a failure says nothing of an acceptance: failed only
    for n, status in ((0, "delivered"), (1, "sent"), (1, "delivered"), (2, "failed")):
        report(n, status)  # the provider retries: nothing more
    report(0, "sent")  # late, behind the delivery: history only
    assert fired("sms.sent") == [(first, "delivered"), (second, "sent")]
    assert fired("sms.delivered") == [(first, "delivered"), (second, "delivered")]
    assert fired("sms.failed") == [(third, "failed")]


def test_an_unknown_outcome_the_status_call_finds_delivered_fires_sent_and_delivered_once(
    actor, workspace, fake, receiver
):
    """Settled by the step's status call by local id: ``sms.sent`` with the settling move to submitted, then
    ``sms.delivered`` for the provider's delivered — never a second ``sms.sent``."""
    webhook_endpoint_create(workspace=workspace, url=receiver.url, events=ATTEMPT_EVENTS)
    first, second = _unknown(actor, workspace, fake, count=2)
    fake.set_status(fake.messages[str(first.local_id)]["messageid"], 10)  # the first one already delivered
    driver = Driver()
    for minute in (4, 8, 12, 30):
        driver.tick(T0 + timedelta(minutes=minute))
    assert dict(SmsAttempt.objects.filter(pk__in=[first.id, second.id]).values_list("id", "status")) == {
        first.id: "delivered",
        second.id: "submitted",
    }
    sent = [e.payload["data"]["attempt_id"] for e in _deliveries(workspace, "sms.sent")]
    assert sorted(sent) == [first.id, second.id]
    assert [e.payload["data"]["attempt_id"] for e in _deliveries(workspace, "sms.delivered")] == [first.id]
