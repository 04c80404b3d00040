"""The providers' credit read on a timer (docs/sms.md "Credit"): Kavenegar ``account/info`` and Melipayamak
``GetCredit`` against the fake provider, kept on the account, shown on the SMS settings page, a low credit
telling the owners once a day."""

from datetime import UTC, datetime

import pytest

from campaigns.notifications.models import Notification
from sms import rate_limits
from sms.credit import credit_read
from sms.models import SmsProviderAccount
from sms.providers.base import POOL
from sms.providers.kavenegar import Fixtures as Kavenegar
from sms.providers.melipayamak import Fixtures as Melipayamak
from tests.automation.helpers import setup_sms

from .fake_provider import FakeProvider

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)


@pytest.fixture
def fake(settings):
    POOL.clear()
    server = FakeProvider(hold_seconds=2.5)
    settings.SMS_PROVIDER_BASE_URLS = {"kavenegar": server.url, "melipayamak": server.url}
    settings.SMS_HTTP_TIMEOUT = 2.0
    settings.SMS_LOW_CREDIT_RIALS = 100_000
    rate_limits.reset()
    yield server
    server.close()
    POOL.clear()


def test_each_providers_credit_is_read_and_kept_and_a_low_one_told_once_a_day(workspace, owner, fake, client):
    kave = SmsProviderAccount.objects.get(pk=setup_sms(workspace, "kavenegar", {"api_key": "K"}).primary_account_id)
    meli = SmsProviderAccount.objects.create(
        workspace=workspace, name="ملی", provider="melipayamak", credentials='{"username": "u", "password": "p"}'
    )
    fake.status_responses += [Kavenegar.account_info(2_500_000), Melipayamak.credit(40_000.5)]
    assert credit_read(now=T0) == {"asked": 2, "read": 2, "low": 1}
    assert [r["path"] for r in fake.requests] == ["/v1/K/account/info.json", "/api/SendSMS/GetCredit"]
    kave.refresh_from_db()
    meli.refresh_from_db()
    assert (kave.credit, kave.credit_checked_at, meli.credit) == (2_500_000, T0, 40_000)
    notes = Notification.objects.filter(kind="sms_credit_low")
    assert notes.count() == 1 and "ملی" in notes.get().body

    # the same day again: still low, told once; a provider without an answer leaves the last credit
    fake.status_responses += [(500, {"error": "down"}), Melipayamak.credit(30_000)]
    assert credit_read(now=T0)["read"] == 1
    kave.refresh_from_db()
    assert kave.credit == 2_500_000 and notes.count() == 1

    client.force_login(owner)
    page = client.get("/sms/settings/").content.decode()
    assert "۲٬۵۰۰٬۰۰۰ ریال" in page and 'data-testid="credit-low"' in page
