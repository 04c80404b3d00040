"""The delivery webhook's documented field and statuses, and its signed variant (token never in the URL): a
report by `provider_message_id` moves the send, an unknown status is a 400 naming it with nothing applied, a
signature made here with `hmac` is accepted and a wrong or stale one is the same 404; both are in the schema."""

import hashlib
import hmac
import json
import time

import pytest

from sms.models import SmsAttempt, SmsLogEvent, SmsSettings
from tests.automation.helpers import setup_sms

from .test_api import _sent_attempt

pytestmark = pytest.mark.django_db


def signed(secret: str, body: bytes, *, at: int | None = None) -> str:
    t = str(at if at is not None else int(time.time()))
    return f"t={t},v1=" + hmac.new(secret.encode(), t.encode() + b"." + body, hashlib.sha256).hexdigest()


def test_a_report_by_provider_message_id_moves_the_send(client, actor, workspace):
    attempt = _sent_attempt(actor, workspace)
    token = SmsSettings.objects.get(workspace=workspace).webhook_token
    body = {"reports": [{"provider_message_id": attempt.provider_message_id, "status": "delivered"}]}
    response = client.post(f"/api/webhooks/sms/generic/{token}", body, content_type="application/json")
    assert response.status_code == 200 and response.json() == {"ok": True}
    assert SmsAttempt.objects.get(pk=attempt.pk).status == "delivered"


def test_an_unknown_status_or_a_missing_id_is_a_400_and_nothing_is_applied(client, actor, workspace):
    attempt = _sent_attempt(actor, workspace)
    token = SmsSettings.objects.get(workspace=workspace).webhook_token
    body = {
        "reports": [
            {"message_id": attempt.provider_message_id, "status": "delivered"},
            {"message_id": attempt.provider_message_id, "status": "DELIVRD"},
            {"status": "failed"},
        ]
    }
    response = client.post(f"/api/webhooks/sms/generic/{token}", body, content_type="application/json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert set(response.json()["error"]["details"]["reports"]) == {"1", "2"}
    assert "status" in response.json()["error"]["details"]["reports"]["1"]
    assert SmsAttempt.objects.get(pk=attempt.pk).status != "delivered" and not SmsLogEvent.objects.exists()
    wrong = client.post("/api/webhooks/sms/generic/not-the-token", body, content_type="application/json")
    assert wrong.status_code == 404  # without the credential nothing is said about the body


def test_the_signed_variant_checks_an_hmac_made_by_the_sender(client, actor, workspace):
    attempt = _sent_attempt(actor, workspace)
    token = SmsSettings.objects.get(workspace=workspace).webhook_token
    url = f"/api/webhooks/sms/generic/signed/{workspace.id}"
    body = json.dumps({"reports": [{"message_id": attempt.provider_message_id, "status": "delivered"}]}).encode()
    refused = [
        client.post(url, body, content_type="application/json"),
        client.post(url, body, content_type="application/json", HTTP_WEBHOOK_SIGNATURE=signed("wrong", body)),
        client.post(
            url,
            body,
            content_type="application/json",
            HTTP_WEBHOOK_SIGNATURE=signed(token, body, at=int(time.time()) - 900),
        ),
        client.post(url, body + b" ", content_type="application/json", HTTP_WEBHOOK_SIGNATURE=signed(token, body)),
        client.post(
            f"/api/webhooks/sms/generic/signed/{workspace.id + 999}",
            body,
            content_type="application/json",
            HTTP_WEBHOOK_SIGNATURE=signed(token, body),
        ),
    ]
    assert {r.status_code for r in refused} == {404} and len({r.content for r in refused}) == 1
    assert SmsAttempt.objects.get(pk=attempt.pk).status != "delivered"
    ok = client.post(url, body, content_type="application/json", HTTP_WEBHOOK_SIGNATURE=signed(token, body))
    assert ok.status_code == 200 and SmsAttempt.objects.get(pk=attempt.pk).status == "delivered"


def test_both_webhooks_are_in_the_schema_with_their_fields(client, actor, workspace):
    setup_sms(workspace)
    client.force_login(actor.user)
    schema = client.get("/api/schema/?format=json").json()
    plain = schema["paths"]["/api/webhooks/sms/{provider}/{token}"]["post"]
    signed_op = schema["paths"]["/api/webhooks/sms/{provider}/signed/{workspace_id}"]["post"]
    assert plain["operationId"] == "sms_delivery_webhook" and signed_op["operationId"] == "sms_delivery_webhook_signed"
    assert "Webhook-Signature" in {p["name"] for p in signed_op["parameters"]}
    report = schema["components"]["schemas"]["DeliveryReportInputRequest"]["properties"]
    assert {"message_id", "provider_message_id", "status"} <= set(report)
    status_enum = report["status"]
    enum = status_enum.get("enum") or schema["components"]["schemas"][status_enum["$ref"].rsplit("/", 1)[-1]]["enum"]
    assert set(enum) == {"sent", "delivered", "failed", "rejected"}


def test_the_body_is_closed(client, actor, workspace):
    token = setup_sms(workspace).webhook_token
    url = f"/api/webhooks/sms/generic/{token}"
    body = {"reports": [{"message_id": "m1", "status": "sent", "mobile": "0912"}], "colour": "red"}
    response = client.post(url, body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "colour": ["این فیلد شناخته نیست."],
        "reports": {"0": {"mobile": ["این فیلد شناخته نیست."]}},
    }
