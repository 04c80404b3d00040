"""``Accept-Language: en`` gets English error messages (the codes never change); without it, Persian."""

import pytest

from tests.platform.test_hostile_input import assert_envelope

pytestmark = pytest.mark.django_db


def test_accept_language_en_gets_english_messages_with_the_same_codes(api):
    persian = assert_envelope(api.get("/api/v1/targets/999999"), 404, "NOT_FOUND")
    english = assert_envelope(api.get("/api/v1/targets/999999", HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9"), 404)
    assert persian["error"]["message"] == "مورد خواسته‌شده پیدا نشد."
    assert english["error"] == {"code": "NOT_FOUND", "message": "Not found.", "details": {}}


def test_english_field_errors(api):
    response = api.post("/api/v1/target-lists", {"nmae": "x"}, HTTP_ACCEPT_LANGUAGE="en")
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert body["error"]["message"] == "The request is not valid; see details."
    assert body["error"]["details"] == {"nmae": ["Unknown field."]}
    assert response["Content-Language"] == "en"
    persian = assert_envelope(api.post("/api/v1/target-lists", {"nmae": "x"}), 400)
    assert persian["error"]["details"] == {"nmae": ["این فیلد شناخته نیست."]}
    response = api.post("/api/v1/target-lists", {}, HTTP_ACCEPT_LANGUAGE="en")
    assert assert_envelope(response, 400)["error"]["details"] == {"name": ["This field is required."]}


def test_an_unsupported_language_falls_back_to_persian(api):
    body = assert_envelope(api.get("/api/v1/targets/999999", HTTP_ACCEPT_LANGUAGE="de"), 404)
    assert body["error"]["message"] == "مورد خواسته‌شده پیدا نشد."


def test_every_code_reads_in_english():
    from campaigns.platform.api.envelope import english_message

    assert english_message("IDEMPOTENCY_KEY_REUSED").startswith("This Idempotency-Key")
    assert english_message("CAMPAIGN_NOT_DRAFT") == "Campaign not draft."
