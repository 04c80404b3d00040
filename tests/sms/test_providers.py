"""Each provider's response codes mapped to submitted/rejected/failed/unavailable/unknown (local fake server)."""

import pytest

from sms.providers import SendRequest
from sms.providers.kavenegar import KavenegarProvider
from sms.providers.melipayamak import MelipayamakProvider

from .fake_provider import FakeProvider

REQUEST = SendRequest(phone="+989121234567", text="سلام", sender="3000", local_id="4711")


@pytest.fixture
def fake(settings):
    server = FakeProvider()
    settings.SMS_PROVIDER_BASE_URLS = {"kavenegar": server.url, "melipayamak": server.url}
    settings.SMS_HTTP_TIMEOUT = 0.5
    yield server
    server.close()


def _kavenegar(status, entries=None):
    return {"return": {"status": status, "message": "x"}, "entries": entries}


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ((200, _kavenegar(200, [{"messageid": 8792343, "status": 1, "statustext": "در صف ارسال"}])), "submitted"),
        ((200, _kavenegar(200, [{"messageid": 5, "status": 14, "statustext": "فیلتر"}])), "rejected"),
        ((411, _kavenegar(411)), "rejected"),
        ((412, _kavenegar(412)), "rejected"),
        ((418, _kavenegar(418)), "unavailable"),
        ((403, _kavenegar(403)), "unavailable"),
        ((401, _kavenegar(401)), "unavailable"),
        ((414, _kavenegar(414)), "failed"),
        ((409, _kavenegar(409)), "failed"),
        ((502, {"oops": True}), "unknown"),  # a gateway/proxy 5xx: the provider may have it
        ((409, _kavenegar(409)), "failed"),  # the provider itself refused: retryable
        ("timeout", "unknown"),  # read timeout: the request left
        ("drop", "unknown"),
    ],
)
def test_kavenegar_mapping(fake, answer, expected):
    fake.responses.append(answer)
    response = KavenegarProvider().send({"api_key": "KEY"}, REQUEST)
    assert response.status == expected
    sent = fake.requests[0]
    assert sent["path"] == "/v1/KEY/sms/send.json"
    assert sent["form"] == {"receptor": "09121234567", "sender": "3000", "message": "سلام", "localid": "4711"}
    if expected == "submitted":
        assert response.message_id == "8792343"


@pytest.mark.parametrize(
    ("ret", "expected"),
    [
        (1, "submitted"),
        (0, "unavailable"),
        (2, "unavailable"),
        (3, "failed"),
        (4, "failed"),
        (5, "rejected"),
        (6, "failed"),
        (7, "rejected"),
        (9, "unavailable"),
        (10, "unavailable"),
        (11, "failed"),
        (12, "unavailable"),
        (14, "rejected"),
        (15, "rejected"),
    ],
)
def test_melipayamak_mapping(fake, ret, expected):
    fake.responses.append(
        (200, {"Value": "4837292134" if ret == 1 else str(ret), "RetStatus": ret, "StrRetStatus": "x"})
    )
    response = MelipayamakProvider().send({"username": "u", "password": "p"}, REQUEST)
    assert response.status == expected
    sent = fake.requests[0]
    assert sent["path"] == "/api/SendSMS/SendSMS"
    assert sent["form"]["to"] == "09121234567" and sent["form"]["from"] == "3000" and sent["form"]["text"] == "سلام"
    if expected == "submitted":
        assert response.message_id == "4837292134"


def test_melipayamak_transport_failures(fake):
    fake.responses.extend([(500, {}), "timeout", "drop", (200, {"weird": 1})])
    provider = MelipayamakProvider()
    # After the request left, nothing of these says "not sent": all unknown (never a blind retry).
    assert [provider.send({"username": "u", "password": "p"}, REQUEST).status for _ in range(4)] == [
        "unknown",
        "unknown",
        "unknown",
        "unknown",
    ]


def test_connection_refused_is_failed(settings):
    settings.SMS_PROVIDER_BASE_URLS = {"kavenegar": "http://127.0.0.1:9"}
    assert KavenegarProvider().send({"api_key": "k"}, REQUEST).status == "failed"
