"""Secrets and personal data: ciphertext at rest, never in API responses, task headers or INFO logs.

SMS provider credentials, browser account cookies and proxy passwords are stored encrypted;
the API reports only that they are set. Celery message headers (``argsrepr``/``kwargsrepr``,
shown by workers, events and monitoring) carry ids only. Sending an SMS logs neither the
phone number nor the personalised text.
"""

import json
import logging
import uuid
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from celery.signals import before_task_publish
from django.conf import settings as django_settings
from django.db import connection
from django.test import Client, TestCase
from kombu import Connection

from automation.engine.batch import process_batch
from automation.engine.scheduler import tick
from automation.services.enrollment import enroll_subjects
from sms.models import SmsAttempt, SmsProviderAccount, SmsSettings
from tests.automation.helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node
from tests.conftest import make_target
from tests.workers.conftest import make_account, make_proxy
from workers.dispatch import _publish_now

SMS_KEY = "sms-api-key-7c1e5a"
COOKIE = "session=cookie-secret-93ab"
PROXY_PASSWORD = "proxy-password-51fd"
MOBILE = "+989127654321"
MOBILE_FORMS = (MOBILE, MOBILE[1:], "0" + MOBILE[3:], MOBILE[3:])  # E.164, 98…, 09…, 9…
FIRST_NAME = "Zarvanditest"
T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)  # 10:30 in Tehran, inside the default send window


@pytest.fixture
def secrets(workspace):
    account = SmsProviderAccount.objects.create(
        workspace=workspace, name="kv", provider="kavenegar", credentials=json.dumps({"api_key": SMS_KEY})
    )
    proxy = make_proxy(workspace, port=8080, username="proxy-user", password=PROXY_PASSWORD)
    browser_account = make_account(workspace, cookies=COOKIE, proxy=proxy)
    return account, proxy, browser_account


def _raw(table: str, column: str, pk: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {column} FROM {table} WHERE id = %s", [pk])
        return cursor.fetchone()[0]


@pytest.mark.django_db
def test_credentials_cookies_and_proxy_passwords_are_ciphertext_in_the_database(secrets):
    account, proxy, browser_account = secrets
    sms = setup_sms(account.workspace, "console")
    stored = {
        SMS_KEY: _raw(SmsProviderAccount._meta.db_table, "credentials", account.pk),
        PROXY_PASSWORD: _raw(proxy._meta.db_table, "password", proxy.pk),
        COOKIE: _raw(browser_account._meta.db_table, "cookies", browser_account.pk),
        account.inbound_token: _raw(SmsProviderAccount._meta.db_table, "inbound_token", account.pk),
        sms.webhook_token: _raw(SmsSettings._meta.db_table, "webhook_token", sms.pk),
    }
    for plaintext, raw in stored.items():
        assert raw and plaintext not in raw
        assert raw.startswith("gAAAA")  # a Fernet token
    # … and readable through the model.
    assert json.loads(SmsProviderAccount.objects.get(pk=account.pk).credentials)["api_key"] == SMS_KEY
    assert SmsProviderAccount.objects.get(pk=account.pk).inbound_token == account.inbound_token
    browser_account.refresh_from_db()
    proxy.refresh_from_db()
    assert (browser_account.cookies, proxy.password) == (COOKIE, PROXY_PASSWORD)


@pytest.mark.django_db
def test_api_responses_never_contain_secrets(api, owner, workspace, secrets, settings):
    account, proxy, browser_account = secrets
    settings.BROWSER_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:3128"]
    setup_sms(workspace, "kavenegar", {"api_key": SMS_KEY})
    created_account = api.post(
        "/api/v1/browser/accounts",
        {"label": "new", "platform": "demo", "cookies": COOKIE, "cookie_domain": "example.com"},
        format="json",
    )
    created_proxy = api.post(
        "/api/v1/browser/proxies",
        {"host": "127.0.0.1", "port": 3128, "username": "u", "password": PROXY_PASSWORD},
        format="json",
    )
    assert (created_account.status_code, created_proxy.status_code) == (201, 201), created_proxy.content
    responses = [created_account, created_proxy]
    for url in (
        "/api/v1/browser/accounts",
        f"/api/v1/browser/accounts/{browser_account.pk}",
        "/api/v1/browser/proxies",
        f"/api/v1/browser/proxies/{proxy.pk}",
        "/api/v1/sms/settings",
        "/api/v1/sms/providers",
    ):
        response = api.get(url)
        assert response.status_code == 200, url
        responses.append(response)
    assert api.get(f"/api/v1/browser/accounts/{browser_account.pk}").json()["has_cookies"] is True
    assert api.get(f"/api/v1/browser/proxies/{proxy.pk}").json()["has_password"] is True
    page = Client()
    page.force_login(owner)
    for url in ("/sms/settings/", f"/sms/settings/accounts/{account.pk}/"):
        response = page.get(url)
        assert response.status_code == 200, url
        responses.append(response)
    for response in responses:
        body = response.content.decode()
        for secret in (SMS_KEY, COOKIE, PROXY_PASSWORD):
            assert secret not in body, (response.request["PATH_INFO"], secret)


class _Published:
    """Messages published through the real producer (headers as the broker gets them)."""

    def __init__(self) -> None:
        self.messages: list[dict] = []

    def __call__(self, sender=None, headers=None, body=None, routing_key=None, **kwargs):
        self.messages.append({"task": sender, "headers": dict(headers or {}), "body": body, "routing_key": routing_key})

    def headers_text(self) -> str:
        return json.dumps([m["headers"] for m in self.messages], default=str, ensure_ascii=False)


@pytest.fixture
def published():
    capture = _Published()
    before_task_publish.connect(capture)
    try:
        yield capture
    finally:
        before_task_publish.disconnect(capture)
        with Connection(django_settings.CELERY_BROKER_URL) as conn:
            for name in {m["routing_key"] for m in capture.messages if m["routing_key"]}:
                try:
                    conn.SimpleQueue(name).clear()
                except Exception:  # nothing to clear
                    pass


@pytest.mark.django_db
def test_browser_task_headers_carry_no_cookie_or_proxy_password(published):
    queue = f"browser-secrets-{uuid.uuid4().hex[:8]}"
    payload = {
        "task_id": 41,
        "attempt": 1,
        "lease_id": str(uuid.uuid4()),
        "lease_expires_at": (datetime.now(UTC) + timedelta(minutes=5)).isoformat(),
        "server": queue,
        "account": {"id": 1, "label": "a", "cookies": COOKIE, "user_agent": ""},
        "proxy": {"id": 2, "server": "http://10.0.0.9:3128", "username": "u", "password": PROXY_PASSWORD},
    }
    _publish_now([payload])
    run = next(m for m in published.messages if m["task"] == "workers.browser.run_task")
    assert COOKIE in json.dumps(run["body"])  # the worker needs them: in the body only
    headers = published.headers_text()
    assert COOKIE not in headers and PROXY_PASSWORD not in headers
    assert "'task_id': 41" in run["headers"]["argsrepr"]


@pytest.mark.django_db
@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="processes the batch the PostgreSQL engine path publishes"
)
def test_sms_sending_task_headers_carry_no_phone_text_or_credentials(actor, workspace, published):
    setup_sms(workspace, "console", {"api_key": SMS_KEY})
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a", body="سلام {target.first_name}"), end_node()))
        target = make_target(workspace, mobile=MOBILE, first_name=FIRST_NAME)
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[target.id])
        with TestCase.captureOnCommitCallbacks(execute=True):
            tick(now=T0 + timedelta(minutes=1))  # the real sender: one message per chunk to the engine queue
    engine = [m for m in published.messages if m["task"] == "automation.process_executions"]
    assert engine, [m["task"] for m in published.messages]
    process_batch([tuple(item) for item in engine[0]["body"][0][0]], now=T0 + timedelta(minutes=1))
    attempt = SmsAttempt.objects.get(campaign=campaign)
    assert FIRST_NAME in attempt.message and attempt.phone == MOBILE  # the message was personalised and sent
    text = published.headers_text() + json.dumps([m["body"] for m in engine], default=str, ensure_ascii=False)
    for secret in (*MOBILE_FORMS, FIRST_NAME, SMS_KEY):
        assert secret not in text


@pytest.mark.django_db
def test_sending_an_sms_logs_no_phone_number_or_personalised_text(actor, workspace, caplog):
    setup_sms(workspace, "console")
    caplog.set_level(logging.INFO)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a", body="سلام {target.first_name}، کد شما 4711"), end_node()))
        target = make_target(workspace, mobile=MOBILE, first_name=FIRST_NAME)
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[target.id])
        Driver().tick(T0 + timedelta(minutes=1))
    attempt = SmsAttempt.objects.get(campaign=campaign)
    assert attempt.status == "submitted" and FIRST_NAME in attempt.message
    assert any(r.name == "sms.console" for r in caplog.records)  # the console provider did log the send
    for record in caplog.records:
        line = record.getMessage() + json.dumps(record.__dict__.get("args") or [], default=str, ensure_ascii=False)
        for secret in (*MOBILE_FORMS, FIRST_NAME):
            assert secret not in line, (record.name, line)


@pytest.mark.django_db
def test_a_refused_webhook_post_logs_its_path_without_the_token(client, workspace, caplog):
    # Django logs the path of every 4xx answer; the SMS webhooks carry their credential in it

    settings = setup_sms(workspace, "console")
    account = SmsProviderAccount.objects.create(workspace=workspace, name="ملی", provider="melipayamak")
    caplog.set_level(logging.INFO)
    refused = [
        client.post(f"/api/webhooks/sms/generic/{settings.webhook_token}", {"colour": 1}, "application/json"),
        client.get(f"/api/webhooks/sms/inbound/{account.id}/{account.inbound_token}", {"to": "1000"}),  # no sender
    ]
    assert [r.status_code for r in refused] == [400, 404]
    logged = [r for r in caplog.records if r.name == "django.request"]
    assert len(logged) == 2 and all("/api/webhooks/sms/" in r.getMessage() for r in logged)
    for token in (settings.webhook_token, account.inbound_token):
        assert token not in caplog.text


@pytest.mark.django_db
def test_the_admin_never_shows_an_idempotency_keys_kept_answer(api, workspace):
    # the answer of a new API key holds the key, shown once
    from django.contrib.auth import get_user_model

    from campaigns.platform.models import IdempotencyKey

    created = api.post("/api/v1/api-keys", {"name": "ci"}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert created.status_code == 201
    root = get_user_model().objects.create_superuser("root-admin", password="pw-123456")
    page = Client()
    page.force_login(root)
    row = IdempotencyKey.objects.get()
    response = page.get(f"/admin/platform/idempotencykey/{row.pk}/change/")
    assert response.status_code == 200 and "k-1" in response.content.decode()
    assert created.json()["key"] not in response.content.decode()


@pytest.mark.django_db
def test_the_delivery_webhook_finds_its_workspace_by_the_tokens_digest_kept_in_step(workspace):
    from campaigns.platform.errors import NotFound
    from sms.services import settings_for_token

    settings = setup_sms(workspace, "console")
    assert settings_for_token(settings.webhook_token).pk == settings.pk
    old, settings.webhook_token = settings.webhook_token, "t" * 43
    settings.save(update_fields=["webhook_token"])
    assert settings_for_token("t" * 43).pk == settings.pk
    with pytest.raises(NotFound):
        settings_for_token(old)
    deferred = SmsSettings.objects.only("id", "enabled").get(pk=settings.pk)
    deferred.enabled = False
    deferred.save()  # the token not loaded: the digest is left as it is
    assert settings_for_token("t" * 43).pk == settings.pk
