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


def test_each_providers_credit_is_read_and_kept_in_its_unit_and_a_low_one_told_once_a_day(
    workspace, owner, fake, client
):
    kave = SmsProviderAccount.objects.get(pk=setup_sms(workspace, "kavenegar", {"api_key": "K"}).primary_account_id)
    meli = SmsProviderAccount.objects.create(
        workspace=workspace, name="ملی", provider="melipayamak", credentials='{"username": "u", "password": "p"}'
    )
    # Kavenegar answers in rials, Melipayamak in messages: each account keeps its provider's unit
    assert (kave.credit_unit, meli.credit_unit) == ("rial", "message")
    fake.status_responses += [Kavenegar.account_info(2_500_000), Melipayamak.credit(40_000.5)]
    # a Melipayamak account without a line cannot be asked its prices: said, not a crash; 40,000 messages are
    # far above the messages threshold (they were «low» when read as rials, below 100,000)
    assert credit_read(now=T0) == {"asked": 2, "read": 2, "low": 0, "priced": 0, "price_failed": 1, "resumed": 0}
    assert [r["path"] for r in fake.requests] == ["/v1/K/account/info.json", "/api/SendSMS/GetCredit"]
    kave.refresh_from_db()
    meli.refresh_from_db()
    assert (kave.credit, kave.credit_checked_at, meli.credit) == (2_500_000, T0, 40_000)
    notes = Notification.objects.filter(kind="sms_credit_low")
    assert not notes.exists()

    # 400 messages left: below the messages threshold (500), said in messages
    fake.status_responses += [Kavenegar.account_info(2_500_000), Melipayamak.credit(400)]
    assert credit_read(now=T0)["low"] == 1
    assert notes.count() == 1 and "«ملی» ۴۰۰ پیامک است" in notes.get().body

    # the same day again: still low, told once; a provider without an answer leaves the last credit
    fake.status_responses += [(500, {"error": "down"}), Melipayamak.credit(300)]
    assert credit_read(now=T0)["read"] == 1
    kave.refresh_from_db()
    assert kave.credit == 2_500_000 and notes.count() == 1

    client.force_login(owner)
    page = client.get("/sms/settings/").content.decode()
    assert "۲٬۵۰۰٬۰۰۰ ریال" in page and "۳۰۰ پیامک" in page and page.count('data-testid="credit-low"') == 1

    # a Kavenegar credit below the rials threshold is told in rials
    fake.status_responses += [Kavenegar.account_info(90_000), Melipayamak.credit(300)]
    credit_read(now=T0)
    assert "۹۰٬۰۰۰ ریال" in notes.get(dedupe_key__startswith=f"sms_credit_low:{kave.pk}:").body


def test_melipayamak_prices_per_operator_are_read_with_the_credit_and_a_failure_keeps_the_last_ones(
    workspace, owner, fake, client
):
    meli = SmsProviderAccount.objects.create(
        workspace=workspace,
        name="ملی",
        provider="melipayamak",
        credentials='{"username": "u", "password": "p"}',
        senders=["50004001"],
        price_mci=999,
        price_rightel=700,
    )
    fake.status_responses.append(Melipayamak.credit(40_000))
    report = credit_read(now=T0)
    assert (report["priced"], report["price_failed"], report["read"]) == (1, 0, 1)
    asked = fake.price_requests()
    # one GetSmsPrice per operator it prices: one number of that operator, a one-part text, the account's line
    assert [(r["form"]["irancellCount"], r["form"]["mtnCount"]) for r in asked] == [("1", "0"), ("0", "1")]
    assert {r["form"]["from"] for r in asked} == {"50004001"} and asked[0]["form"]["username"] == "u"
    meli.refresh_from_db()
    assert meli.provider_prices == {"irancell": 1310, "mci": 1185} and meli.prices_checked_at == T0
    assert meli.prices_error == "" and meli.credit == 40_000

    client.force_login(owner)
    page = client.get("/sms/settings/").content.decode()
    assert "از سرویس‌دهنده: همراه اول ۱٬۱۸۵، ایرانسل ۱٬۳۱۰ ریال" in page and 'data-testid="prices-error"' not in page

    # the provider fails (a gateway error, then a wrong password's 0): the last prices stay, the failure is shown
    later = datetime(2026, 11, 1, 7, 15, tzinfo=UTC)
    fake.price_responses.append((502, "<html>Bad Gateway</html>"))
    fake.status_responses.append(Melipayamak.credit(39_000))
    assert credit_read(now=later)["price_failed"] == 1
    meli.refresh_from_db()
    assert meli.provider_prices == {"irancell": 1310, "mci": 1185} and meli.prices_checked_at == T0
    assert meli.prices_error_at == later and "۵۰۲" in meli.prices_error and meli.credit == 39_000
    fake.price_responses.append(Melipayamak.price(0))
    fake.status_responses.append(Melipayamak.credit(39_000))
    assert credit_read(now=later)["price_failed"] == 1
    page = client.get("/sms/settings/").content.decode()
    assert 'data-testid="prices-error"' in page and "آخرین بهای خوانده‌شده به‌کار می‌رود" in page

    # staff keep their own prices: the account form's box, kept, and the page says so
    response = client.post(
        f"/sms/settings/accounts/{meli.id}/",
        {
            "name": "ملی",
            "senders": "50004001",
            "line_kind": "service",
            "price_mci": 999,
            "price_irancell": 0,
            "price_rightel": 700,
            "use_typed_prices": "on",
            "is_active": "on",
        },
    )
    assert response.status_code in (200, 302)
    meli.refresh_from_db()
    assert meli.use_typed_prices and meli.provider_prices  # the provider's prices are kept, not used
