"""Retention: texts and numbers of old SMS attempts are erased, the rows and counts are kept, audited."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from automation.services.enrollment import enroll_subjects
from sms.models import SmsAttempt, SmsChannelEvent
from sms.retention import sms_retention_purge_all
from tests.automation.helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node
from tests.conftest import make_target

pytestmark = pytest.mark.django_db
T0 = datetime(2030, 1, 1, 8, 0, tzinfo=UTC)


def test_purge_keeps_counts(actor, workspace):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a", body="سلام {target.name}"), end_node()))
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id for _ in range(3)])
    Driver().tick(T0 + timedelta(minutes=1))
    statuses = sorted(SmsAttempt.objects.values_list("status", flat=True))
    assert len(statuses) == 3 and all(SmsAttempt.objects.values_list("message", flat=True))
    workspace.settings = {"sms_retention_days": 30}
    workspace.save()

    assert sms_retention_purge_all(now=T0 + timedelta(days=29)) == {workspace.id: 0}  # not old enough yet
    assert SmsChannelEvent.objects.filter(type="retention_purge").count() == 0

    assert sms_retention_purge_all(now=T0 + timedelta(days=31)) == {workspace.id: 3}
    rows = list(SmsAttempt.objects.values("message", "phone", "template", "provider_response"))
    assert rows == [{"message": "", "phone": "", "template": "", "provider_response": None}] * 3
    assert sorted(SmsAttempt.objects.values_list("status", flat=True)) == statuses  # counts kept
    audit = SmsChannelEvent.objects.get(type="retention_purge")
    assert (audit.workspace_id, audit.data["attempts"], audit.data["days"]) == (workspace.id, 3, 30)

    assert sms_retention_purge_all(now=T0 + timedelta(days=40)) == {workspace.id: 0}  # nothing left to erase
    assert SmsChannelEvent.objects.filter(type="retention_purge").count() == 1


def test_replies_older_than_the_retention_lose_their_text_and_number(workspace):
    from sms.inbound.models import InboundSms
    from sms.inbound.services import inbound_store
    from tests.sms.inbound_helpers import make_account, received

    account = make_account(workspace)
    known = make_target(workspace)
    with time_machine.travel(T0, tick=False):
        inbound_store(account=account, messages=[received("لغو۱۱", known.mobile), received("سلام", "09350000009")])
    with time_machine.travel(T0 + timedelta(days=20), tick=False):
        inbound_store(account=account, messages=[received("بله، حتماً", known.mobile)])
    workspace.settings = {"sms_retention_days": 30}
    workspace.save()
    before = {r.id: (r.target_id, r.outcome, r.received_at) for r in InboundSms.objects.all()}
    assert sorted(outcome for _, outcome, _ in before.values()) == ["", "", "opt_out"]

    assert sms_retention_purge_all(now=T0 + timedelta(days=29)) == {workspace.id: 0}
    assert sms_retention_purge_all(now=T0 + timedelta(days=31)) == {workspace.id: 2}
    assert sorted(InboundSms.objects.values_list("text", flat=True)) == ["", "", "بله، حتماً"]
    assert InboundSms.objects.filter(text="", number="").count() == 2  # the two old ones, both fields erased
    # What the inbox counts and the conversation links stay: target, outcome (the opt-out), time.
    assert {r.id: (r.target_id, r.outcome, r.received_at) for r in InboundSms.objects.all()} == before
    audit = SmsChannelEvent.objects.get(type="retention_purge")
    assert (audit.data["attempts"], audit.data["replies"]) == (0, 2)

    assert sms_retention_purge_all(now=T0 + timedelta(days=40)) == {workspace.id: 0}  # the newer reply: 20 days old
    assert sms_retention_purge_all(now=T0 + timedelta(days=51)) == {workspace.id: 1}
    assert set(InboundSms.objects.values_list("text", "number")) == {("", "")}
