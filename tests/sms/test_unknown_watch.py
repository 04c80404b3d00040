"""Unknown outcomes that outlive the engine's settling (sms.unknown_watch): asked again by local id in batches
inside Kavenegar's ~12-hour window, alarmed past 6 hours (notification + metric), looked up by receptor after
the window, and never resent on silence. Real HTTP against the fake Kavenegar."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from prometheus_client import REGISTRY

from automation.services.enrollment import enroll_subjects
from campaigns.notifications.models import Notification
from sms.models import SmsAttempt
from sms.providers.kavenegar import Fixtures as Kavenegar
from sms.unknown_watch import unknown_watch
from tests.automation.helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node
from tests.conftest import make_target

from .fake_provider import FakeProvider

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)
NO_ANSWER = Kavenegar.error(500)  # the status service fails: no usable answer

pytestmark = pytest.mark.django_db


@pytest.fixture
def kavenegar(settings):
    server = FakeProvider(hold_seconds=1.0)
    settings.SMS_PROVIDER_BASE_URLS = {"kavenegar": server.url}
    settings.SMS_HTTP_TIMEOUT = 0.4
    settings.SMS_UNKNOWN_SETTLE_SECONDS = 120
    yield server
    server.close()


def _left_unknown(actor, workspace, kavenegar, count=1, lost="accept_timeout"):
    """Sends whose answer was lost; the engine's three status questions get no answer, so the step moves on
    (on_unknown_outcome "continue") with its attempts still unknown."""
    setup_sms(workspace, "kavenegar", {"api_key": "K"})
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a", body="سلام"), end_node()))
        enroll_subjects(
            actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id for _ in range(count)]
        )
    kavenegar.responses.append(lost)
    kavenegar.status_responses += [NO_ANSWER] * 3 * count
    driver = Driver()
    for minute in (1, 4, 7, 10, 13):
        driver.tick(T0 + timedelta(minutes=minute))
    attempts = SmsAttempt.objects.filter(campaign=campaign)
    assert set(attempts.values_list("status", flat=True)) == {"unknown"}
    kavenegar.status_responses.clear()
    return attempts


def _aged_metric() -> float:
    return REGISTRY.get_sample_value("sms_unknown_aged_total", {"provider": "kavenegar"}) or 0.0


def test_unknowns_are_asked_again_by_local_id_in_one_request_inside_the_window(actor, workspace, kavenegar):
    attempts = _left_unknown(actor, workspace, kavenegar, count=3)
    asked_by_the_engine = len(kavenegar.queries())  # the engine asked about the three together, three times
    report = unknown_watch(now=T0 + timedelta(hours=3))
    assert report["settled"] == 3
    assert set(attempts.values_list("status", flat=True)) == {"submitted"}
    assert len(kavenegar.queries()) == asked_by_the_engine + 1  # one request for the three
    assert len(kavenegar.sends()) == 1  # never sent again


def test_an_unknown_past_six_hours_alarms_once_and_after_the_window_is_found_by_receptor(actor, workspace, kavenegar):
    (attempt,) = _left_unknown(actor, workspace, kavenegar)
    before = _aged_metric()
    kavenegar.status_responses.append(NO_ANSWER)
    unknown_watch(now=T0 + timedelta(hours=7))
    attempt.refresh_from_db()
    assert attempt.status == "unknown"
    assert Notification.objects.filter(workspace=workspace, kind="sms_unknown_aged").count() == 1
    assert _aged_metric() == before + 1
    kavenegar.status_responses.append(NO_ANSWER)
    unknown_watch(now=T0 + timedelta(hours=7, minutes=40))  # counted once
    assert _aged_metric() == before + 1
    assert Notification.objects.filter(workspace=workspace, kind="sms_unknown_aged").count() == 1
    asked_by_local_id = len(kavenegar.queries())
    unknown_watch(now=T0 + timedelta(hours=13))  # past the local-id window: by receptor over a day
    attempt.refresh_from_db()
    assert (attempt.status, attempt.provider_message_id) == ("submitted", "8000000")
    assert len(kavenegar.queries()) == asked_by_local_id  # not asked by local id after the window
    (asked,) = kavenegar.receptor_queries()
    assert asked["form"]["receptor"] == "0" + attempt.phone[3:]
    assert int(asked["form"]["enddate"]) - int(asked["form"]["startdate"]) == 86400
    assert len(kavenegar.sends()) == 1


def test_silence_after_the_window_never_resends(actor, workspace, kavenegar):
    (attempt,) = _left_unknown(actor, workspace, kavenegar, lost="timeout")  # the provider never got it
    for hours in (13, 14, 20):
        unknown_watch(now=T0 + timedelta(hours=hours))
    attempt.refresh_from_db()
    assert attempt.status == "unknown"  # nobody can vouch for it either way: it stays unknown
    assert len(kavenegar.receptor_queries()) == 3
    assert len(kavenegar.sends()) == 1 and kavenegar.messages == {}


def test_unknowns_settled_as_sent_fire_sms_sent_once_each(actor, workspace, kavenegar, settings):
    from campaigns.platform.models import WebhookDelivery
    from campaigns.platform.webhooks import webhook_endpoint_create

    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:9"]
    webhook_endpoint_create(
        workspace=workspace, url="http://127.0.0.1:9/hook", events=["sms.sent", "sms.delivered", "sms.failed"]
    )
    attempts = _left_unknown(actor, workspace, kavenegar, count=2)
    assert not WebhookDelivery.objects.filter(event_type__startswith="sms.").exists()  # nothing known yet
    unknown_watch(now=T0 + timedelta(hours=3))
    unknown_watch(now=T0 + timedelta(hours=4))  # settled already: nothing more
    events = WebhookDelivery.objects.filter(event_type__startswith="sms.").order_by("id")
    assert [e.event_type for e in events] == ["sms.sent", "sms.sent"]
    assert sorted(e.payload["data"]["attempt_id"] for e in events) == sorted(a.id for a in attempts)
    assert {e.payload["data"]["status"] for e in events} == {"submitted"}
