"""The fake provider takes the batches the real ones take and refuses what they refuse: the throughput benchmark
and the batch tests rely on it answering like Kavenegar and Melipayamak (sms-providers.md "Batches")."""

import json
import time

import pytest

from sms.providers.base import post_form
from tests.sms.fake_provider import FakeProvider


def post(url: str, data: dict) -> tuple[int, dict]:
    outcome = post_form(url, data)
    return outcome.status, outcome.body


@pytest.fixture
def fake():
    server = FakeProvider()
    yield server
    server.close()


def numbers(count: int, start: int = 0) -> list[str]:
    return [f"0912{start + i:07d}" for i in range(count)]


def test_kavenegar_send_takes_200_receptors_with_a_local_id_each(fake):
    status, body = post(
        fake.url + "/v1/K/sms/send.json",
        {"receptor": ",".join(numbers(200)), "message": "سلام", "localid": ",".join(str(i) for i in range(200))},
    )
    assert status == 200 and len(body["entries"]) == 200
    assert [e["localid"] for e in body["entries"]][:3] == ["0", "1", "2"]
    assert len({e["messageid"] for e in body["entries"]}) == 200
    assert [receptor for receptor, _ in fake.log] == numbers(200) and fake.batches == [200]

    status, body = post(fake.url + "/v1/K/sms/send.json", {"receptor": ",".join(numbers(201)), "message": "سلام"})
    assert (status, body["return"]["status"]) == (414, 414)  # too many records: nothing of it accepted
    assert len(fake.log) == 200 and fake.refused == {"batch_size": 1}


def test_kavenegar_sendarray_needs_rows_of_equal_length(fake):
    rows = {"receptor": json.dumps(numbers(3)), "sender": json.dumps(["1000"] * 3), "message": json.dumps(["a", "b"])}
    status, body = post(fake.url + "/v1/K/sms/sendarray.json", rows)
    assert (status, body["return"]["status"]) == (419, 419) and fake.log == []
    rows["message"] = json.dumps(["a", "b", "c"])
    rows["localmessageids"] = json.dumps([7, 8, 9])
    status, body = post(fake.url + "/v1/K/sms/sendarray.json", rows)
    assert status == 200 and [e["localid"] for e in body["entries"]] == ["7", "8", "9"]
    rows = {key: json.dumps(["x"] * 201) for key in ("receptor", "sender", "message")}
    assert post(fake.url + "/v1/K/sms/sendarray.json", rows)[0] == 414


def test_melipayamak_send_takes_100_numbers_with_a_rec_id_each(fake):
    form = {"username": "u", "password": "p", "from": "1000", "text": "سلام"}
    status, body = post(fake.url + "/api/SendSMS/SendSMS", {**form, "to": ",".join(numbers(100))})
    assert status == 200 and body["RetStatus"] == 1 and len(set(body["Value"].split(","))) == 100
    status, body = post(fake.url + "/api/SendSMS/SendSMS", {**form, "to": ",".join(numbers(101))})
    assert body["RetStatus"] == 4 and len(fake.log) == 100


def test_a_request_over_the_rate_cap_is_refused_whole_after_the_latency():
    fake = FakeProvider(latency=0.05, max_messages_per_second=150)
    try:
        started = time.monotonic()
        ok = post(fake.url + "/v1/K/sms/send.json", {"receptor": ",".join(numbers(100)), "message": "a"})
        assert ok[0] == 200 and time.monotonic() - started >= 0.05
        refused = post(fake.url + "/v1/K/sms/send.json", {"receptor": ",".join(numbers(100, 100)), "message": "a"})
        assert (refused[0], refused[1]["return"]["status"]) == (414, 414)
        assert len(fake.log) == 100 and fake.refused == {"rate_messages": 1}
        time.sleep(0.5)  # 75 more tokens: a batch of 100 is still too much, one of 50 goes
        assert (
            post(fake.url + "/v1/K/sms/send.json", {"receptor": ",".join(numbers(50, 200)), "message": "a"})[0] == 200
        )
    finally:
        fake.close()
