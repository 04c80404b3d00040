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
        ((414, _kavenegar(414)), "throttled"),  # too many requests: the account backs off
        ((451, _kavenegar(451)), "throttled"),
        ((409, _kavenegar(409)), "throttled"),  # busy
        ((502, {"oops": True}), "unknown"),  # a gateway/proxy 5xx: the provider may have it
        ((402, _kavenegar(402)), "failed"),  # the provider itself refused: retryable
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
        (3, "throttled"),
        (4, "throttled"),
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


# --- every code of each provider's mapping, through the fake server built from the provider's fixtures ---
from sms.providers import PROVIDERS, provider_choices, provider_for  # noqa: E402
from sms.providers import kavenegar as kavenegar_module  # noqa: E402
from sms.providers import melipayamak as melipayamak_module  # noqa: E402

# The codes sms-providers.md lists: a mapping table that loses one fails here.
SPEC_KAVENEGAR_RETURN = {400, 401, 402, 403, 404, 405, 406, 407, 409, 411, 412, 413, 414, 417, 418, 424}
SPEC_KAVENEGAR_ENTRY = {1, 2, 4, 5, 10, 11, 13, 14, 50, 100}
SPEC_MELIPAYAMAK_RET = {0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15}
SPEC_MELIPAYAMAK_DELIVERY = {0, 1, 2, 3, 5, 8, 16, 35, 100, 200, 300, 400, 500}


def test_mapping_tables_cover_every_documented_code():
    assert SPEC_KAVENEGAR_RETURN <= set(kavenegar_module.SEND_CODES)
    assert SPEC_KAVENEGAR_ENTRY <= set(kavenegar_module.ENTRY_CODES)
    assert SPEC_MELIPAYAMAK_RET <= set(melipayamak_module.SEND_CODES)
    assert SPEC_MELIPAYAMAK_DELIVERY <= set(melipayamak_module.DELIVERY_CODES)


@pytest.mark.parametrize(("code", "expected"), sorted(kavenegar_module.SEND_CODES.items()))
def test_kavenegar_every_return_code(fake, code, expected):
    Fixtures = kavenegar_module.Fixtures
    fake.responses.append(Fixtures.ok([Fixtures.entry(91, 1)]) if code == 200 else Fixtures.error(code))
    response = KavenegarProvider().send({"api_key": "KEY"}, REQUEST)
    assert response.status == expected
    assert response.error_code == ("" if code == 200 else str(code))


@pytest.mark.parametrize(("code", "meaning"), sorted(kavenegar_module.ENTRY_CODES.items()))
def test_kavenegar_every_entry_code_by_local_id_and_by_message_id(fake, code, meaning):
    Fixtures = kavenegar_module.Fixtures
    fake.status_responses += [
        Fixtures.ok([Fixtures.entry(91, code, local_id="4711")]),
        Fixtures.ok([Fixtures.entry(91, code, local_id="4711")]),
    ]
    provider = KavenegarProvider()
    by_local = provider.query_status({"api_key": "KEY"}, local_ids=["4711"])["4711"]
    by_message = provider.query_status({"api_key": "KEY"}, message_ids=["91"])["91"]
    for answer in (by_local, by_message):
        assert (answer.state, answer.status, answer.provider_status) == (meaning.state, meaning.status, str(code))
    assert [r["path"] for r in fake.requests] == [
        "/v1/KEY/sms/statuslocalmessageid.json",
        "/v1/KEY/sms/status.json",
    ]
    assert fake.requests[0]["form"] == {"localid": "4711"} and fake.requests[1]["form"] == {"messageid": "91"}


def test_kavenegar_status_query_asks_many_ids_in_one_request(fake):
    provider = KavenegarProvider()
    sent = provider.send({"api_key": "K"}, REQUEST)  # local id 4711 accepted
    fake.set_status(sent.message_id, 10)
    answers = provider.query_status({"api_key": "K"}, message_ids=[sent.message_id, "999"])
    assert answers[sent.message_id].status == "delivered"
    assert answers["999"].state == "not_sent" and answers["999"].status == ""
    assert len(fake.status_requests()) == 1
    assert fake.status_requests()[0]["form"] == {"messageid": f"{sent.message_id},999"}


@pytest.mark.parametrize(("code", "expected"), sorted(melipayamak_module.SEND_CODES.items()))
def test_melipayamak_every_send_code(fake, code, expected):
    fake.responses.append(melipayamak_module.Fixtures.send(code, "4837292134"))
    response = MelipayamakProvider().send({"username": "u", "password": "p"}, REQUEST)
    assert response.status == expected
    if expected == "submitted":
        assert response.message_id == "4837292134"


@pytest.mark.parametrize(("code", "meaning"), sorted(melipayamak_module.DELIVERY_CODES.items()))
def test_melipayamak_every_delivery_code(fake, code, meaning):
    fake.status_responses.append(melipayamak_module.Fixtures.delivery(code))
    answers = MelipayamakProvider().query_status({"username": "u", "password": "p"}, message_ids=["4837292134"])
    answer = answers["4837292134"]
    assert (answer.state, answer.status, answer.provider_status) == (meaning.state, meaning.status, str(code))
    assert fake.requests[0]["path"] == "/api/SendSMS/GetDeliveries2"
    assert fake.requests[0]["form"] == {"username": "u", "password": "p", "recId": "4837292134"}


@pytest.mark.parametrize(
    ("kind", "answer"),
    [
        ("melipayamak", (500, {})),
        ("melipayamak", (200, {"RetStatus": 0, "Value": "0", "StrRetStatus": "bad login"})),
        ("melipayamak", (200, {"weird": 1})),
        ("kavenegar", (502, {"oops": True})),
        ("kavenegar", kavenegar_module.Fixtures.error(414)),
    ],
)
def test_a_status_question_without_a_usable_answer_gives_no_answer(fake, kind, answer):
    fake.status_responses.append(answer)
    credentials = {"api_key": "K"} if kind == "kavenegar" else {"username": "u", "password": "p"}
    assert provider_for(kind).query_status(credentials, message_ids=["1"]) == {}
    assert len(fake.status_requests()) == 1


def test_registry_drives_kinds_choices_and_credential_validation():
    assert [kind for kind, _ in provider_choices()] == PROVIDERS.keys() == ["console", "kavenegar", "melipayamak"]
    assert set(provider_for("kavenegar").credentials_errors({})) == {"api_key"}
    assert provider_for("kavenegar").credentials_errors({"api_key": "K"}) == {}
    assert set(provider_for("melipayamak").credentials_errors({"username": "u"})) == {"password"}
    assert provider_for("console").credentials_errors({}) == {}
    assert provider_for("nope") is None


@pytest.mark.django_db
def test_providers_endpoint_lists_the_registry(owner, workspace):
    from tests.conftest import api_client_for

    body = api_client_for(owner, workspace).get("/api/v1/sms/providers").json()
    assert [p["kind"] for p in body] == PROVIDERS.keys()
    kavenegar = next(p for p in body if p["kind"] == "kavenegar")
    assert kavenegar["status_by_local_id"] and kavenegar["status_by_message_id"]
    assert [f["name"] for f in kavenegar["credential_fields"]] == ["api_key"]
    melipayamak = next(p for p in body if p["kind"] == "melipayamak")
    assert not melipayamak["status_by_local_id"] and melipayamak["status_by_message_id"]


def test_console_answers_by_local_id_from_what_it_accepted():
    console = provider_for("console")
    assert console.has_status_query and not console.polls_delivery
    assert console.send({}, SendRequest(phone="+989121234567", text="x", sender="", local_id="900001")).status == (
        "submitted"
    )
    answers = console.query_status({}, local_ids=["900001", "900002"])
    assert (answers["900001"].state, answers["900001"].message_id) == ("sent", "console-900001")
    assert answers["900002"].state == "not_sent"  # never accepted: settled "not sent", sent again


def test_console_memory_is_bounded():
    from sms.providers import console as console_module

    memory = console_module._Memory(3)
    for n in (1, 2, 3, 1, 4, 5):
        memory.add(str(n))
    assert [str(n) in memory for n in range(1, 6)] == [False, False, True, True, True]
    assert "x" not in memory


def test_an_answer_over_the_size_bound_is_not_parsed(fake):
    # A provider (or whatever answers in its place) sending more than MAX_ANSWER_BYTES is not read whole: the
    # send's outcome is unknown, never "submitted" from an answer that was never bounded.
    from sms.providers.base import MAX_ANSWER_BYTES

    entry = {"messageid": 8792343, "status": 1, "statustext": "x" * MAX_ANSWER_BYTES}
    fake.responses.append((200, _kavenegar(200, [entry])))
    assert KavenegarProvider().send({"api_key": "KEY"}, REQUEST).status == "unknown"
    fake.responses.append((200, _kavenegar(200, [{**entry, "statustext": "x" * 1000}])))
    assert KavenegarProvider().send({"api_key": "KEY"}, REQUEST).status == "submitted"
