"""Lines have a kind; numbers blocked for advertising (Melipayamak 35, Kavenegar 14) are remembered per workspace,
skipped by advertising sends with their own why-not-sent reason, and still reached by service lines
(docs/sms.md "Line kinds and numbers blocked for advertising"). Real HTTP against the local fake provider."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from automation.choices import ExecutionStatus
from automation.journey_stats import target_timeline_events, timeline_entries
from automation.models import Execution
from automation.services.enrollment import enroll_subjects
from campaigns.platform.errors import ValidationFailed
from sms import rate_limits, services
from sms.choices import LineKind
from sms.delivery import attempt_status_apply
from sms.models import SmsAttempt, SmsProviderAccount, TelecomBlockedNumber
from sms.providers.base import POOL
from sms.providers.kavenegar import Fixtures as Kavenegar
from tests.automation.helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node
from tests.conftest import make_target, make_workspace

from .fake_provider import FakeProvider

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)


@pytest.fixture
def fake(settings):
    POOL.clear()
    server = FakeProvider(hold_seconds=2.5)
    settings.SMS_PROVIDER_BASE_URLS = {"kavenegar": server.url, "melipayamak": server.url}
    settings.SMS_HTTP_TIMEOUT = 2.0
    settings.SMS_RATE_LIMIT_MAX_WAIT_SECONDS = 0
    rate_limits.reset()
    yield server
    rate_limits.reset()
    server.close()
    POOL.clear()


def _campaign(actor, targets, at):
    with time_machine.travel(at, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a", body="تخفیف ویژه"), end_node()))
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets])
    return campaign


def _why_not_sent(actor, target) -> list[str]:
    events = list(target_timeline_events(actor=actor, target_id=target.id))
    return [e["why_not_sent"] for e in timeline_entries(actor=actor, events=events) if e["why_not_sent"]]


def test_a_kavenegar_14_blocks_the_number_for_the_next_advertising_send_but_not_for_a_service_line(
    actor, workspace, fake
):
    settings = setup_sms(workspace, "kavenegar", {"api_key": "K"})
    account = SmsProviderAccount.objects.get(pk=settings.primary_account_id)
    account.line_kind = LineKind.ADVERTISING
    account.save()
    blocked, other = make_target(workspace), make_target(workspace)

    # 1. the provider answers status 14 (filtered for advertising) for this number
    first = _campaign(actor, [blocked], T0)
    fake.responses.append(Kavenegar.ok([Kavenegar.entry(9001, 14, receptor="0" + blocked.mobile[3:])]))
    Driver().tick(T0 + timedelta(minutes=1))
    assert SmsAttempt.objects.get(campaign=first).status == "rejected"
    remembered = TelecomBlockedNumber.objects.get(workspace=workspace)
    assert (remembered.phone, remembered.provider, remembered.code) == (blocked.mobile, "kavenegar", "entry_14")

    # 2. the next advertising campaign skips it (no provider call for it) and goes on with the journey
    second = _campaign(actor, [blocked, other], T0 + timedelta(hours=1))
    calls = len(fake.sends())
    Driver().tick(T0 + timedelta(hours=1, minutes=1))
    assert list(SmsAttempt.objects.filter(campaign=second).values_list("phone", flat=True)) == [other.mobile]
    assert len(fake.sends()) == calls + 1 and other.mobile[3:] in fake.sends()[-1]["form"]["receptor"]
    execution = Execution.objects.get(campaign=second, subject_id=blocked.id)
    assert execution.status == ExecutionStatus.COMPLETED  # skipped the send, not stopped
    assert _why_not_sent(actor, blocked) == ["telecom_blocked"]

    # 3. a service line still reaches it
    services.sms_account_update(actor=actor, account_id=account.id, data={"line_kind": LineKind.SERVICE})
    third = _campaign(actor, [blocked], T0 + timedelta(hours=2))
    Driver().tick(T0 + timedelta(hours=2, minutes=1))
    assert SmsAttempt.objects.get(campaign=third).status == "submitted"


def test_a_melipayamak_35_delivery_report_remembers_the_number_in_its_workspace_only(actor, workspace):
    setup_sms(workspace, "melipayamak", {"username": "u", "password": "p"})
    target = make_target(workspace)
    campaign = _campaign(actor, [target], T0)
    execution = Execution.objects.get(campaign=campaign)
    attempt = SmsAttempt.objects.create(
        workspace=workspace,
        execution=execution,
        workflow_id=execution.workflow_id,
        campaign=campaign,
        subject_type_id=execution.subject_type_id,
        subject_id=target.id,
        node_id=execution.current_node_id,
        phone=target.mobile,
        message="تخفیف",
        provider="melipayamak",
        idempotency_key="k1",
        status="submitted",
        request_at=T0,
    )
    for status, code in (("delivered", "1"), ("rejected", "35")):
        attempt_status_apply(
            attempt_id=attempt.id,
            workspace_id=workspace.id,
            status=status,
            event="delivery_status",
            provider_status=code,
            dedupe_key=f"poll:{code}",
        )
    assert list(TelecomBlockedNumber.objects.values_list("workspace_id", "phone", "code")) == [
        (workspace.id, target.mobile, "35")
    ]
    assert not TelecomBlockedNumber.objects.filter(workspace=make_workspace("other-ws")).exists()


def test_line_kind_and_prices_are_checked_by_the_account_services(actor, workspace):
    account = services.sms_account_create(
        actor=actor,
        name="خط تبلیغاتی",
        provider="console",
        line_kind=LineKind.ADVERTISING,
        prices={"price_mci": 1200, "price_irancell": 1100},
    )
    assert (account.line_kind, account.price_mci, account.price_irancell, account.price_rightel) == (
        "advertising",
        1200,
        1100,
        0,
    )
    with pytest.raises(ValidationFailed):
        services.sms_account_update(actor=actor, account_id=account.id, data={"line_kind": "premium"})
    with pytest.raises(ValidationFailed):
        services.sms_account_update(actor=actor, account_id=account.id, data={"price_rightel": -1})
    services.sms_account_update(actor=actor, account_id=account.id, data={"price_rightel": 900})
    account.refresh_from_db()
    assert account.price_rightel == 900 and account.line_kind == "advertising"
