"""Idempotency-Key on POST: a retry gets the first answer, another body with the key is a 409, and of two
concurrent requests with one key exactly one does the work."""

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator

from campaigns.choices import Role
from campaigns.models import TargetList
from campaigns.platform import idempotency
from campaigns.platform.idempotency import idempotency_keys_purge
from campaigns.platform.models import IdempotencyKey
from campaigns.services import targets
from tests.conftest import api_client_for, make_member, make_workspace
from tests.platform.test_hostile_input import assert_envelope

URL = "/api/v1/target-lists"


def post(api, body, key="key-1", url=URL):
    return api.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY=key)


@pytest.mark.django_db
def test_a_retry_with_the_key_gets_the_first_answer_and_creates_nothing(api, workspace):
    first = post(api, {"name": "مشتریان"})
    assert first.status_code == 201 and "Idempotent-Replayed" not in first
    again = post(api, {"name": "مشتریان"})
    assert (again.status_code, again.json(), again["Idempotent-Replayed"]) == (201, first.json(), "true")
    assert TargetList.objects.filter(workspace=workspace).count() == 1
    post(api, {"name": "مشتریان ۲"}, key="key-2")
    api.post(URL, {"name": "بدون کلید"}, format="json")
    assert TargetList.objects.filter(workspace=workspace).count() == 3


@pytest.mark.django_db
def test_the_key_with_another_body_is_a_409(api):
    post(api, {"name": "الف"})
    assert_envelope(post(api, {"name": "ب"}), 409, "IDEMPOTENCY_KEY_REUSED")


@pytest.mark.django_db
def test_a_key_is_per_workspace_and_path(api, workspace):
    post(api, {"name": "الف"})
    other = make_workspace("other")
    other_api = api_client_for(make_member(other), other)
    assert post(other_api, {"name": "الف"}).status_code == 201
    assert TargetList.objects.filter(workspace=other).count() == 1
    assert post(api, {"name": "الف"}, url="/api/v1/campaign-groups").status_code == 201  # another path


@pytest.mark.django_db
def test_a_key_is_its_users_and_its_answer_is_kept_encrypted(workspace):
    """Another member sending the owner's key runs their own request: the owner's answer (here a new API key,
    shown once) is never replayed to them, and it is not kept in clear."""
    owner_api = api_client_for(make_member(workspace), workspace)
    viewer_api = api_client_for(make_member(workspace, Role.VIEWER), workspace)
    body = {"name": "یکپارچه‌سازی"}
    first = post(owner_api, body, key="nightly", url="/api/v1/api-keys")
    assert first.status_code == 201
    other = post(viewer_api, body, key="nightly", url="/api/v1/api-keys")
    assert other.status_code == 201 and "Idempotent-Replayed" not in other
    assert other.json()["key"] != first.json()["key"]
    again = post(owner_api, body, key="nightly", url="/api/v1/api-keys")
    assert (again.json(), again["Idempotent-Replayed"]) == (first.json(), "true")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT response FROM {IdempotencyKey._meta.db_table}")
        stored = [row[0] for row in cursor.fetchall()]
    keys = (first.json()["key"], other.json()["key"])
    assert len(stored) == 2 and not any(key in text for key in keys for text in stored)


@pytest.mark.django_db
@pytest.mark.parametrize("key", ["", "x" * 256, "has space", "ناسازگار"])
def test_a_key_is_one_to_255_visible_ascii_characters(api, key):
    details = assert_envelope(post(api, {"name": "الف"}, key=key), 400, "VALIDATION_ERROR")["error"]["details"]
    assert list(details) == ["Idempotency-Key"]
    assert post(api, {"name": "الف"}, key="x" * 255).status_code == 201


@pytest.mark.django_db
def test_a_refusal_is_replayed_but_a_server_error_releases_the_key(api, workspace, monkeypatch):
    refused = post(api, {"name": ""}, key="bad")
    assert post(api, {"name": ""}, key="bad").json() == refused.json() and refused.status_code == 400

    def broken(**kwargs):
        raise RuntimeError("database went away")

    monkeypatch.setattr(targets, "target_list_create", broken)
    assert post(api, {"name": "الف"}).status_code == 500
    monkeypatch.undo()
    assert post(api, {"name": "الف"}).status_code == 201  # the retry runs
    assert TargetList.objects.filter(workspace=workspace).count() == 1


@pytest.mark.django_db
def test_answers_are_kept_24_hours(api, workspace):
    first = post(api, {"name": "الف"}).json()
    TargetList.objects.filter(workspace=workspace).delete()
    IdempotencyKey.objects.update(created_at=timezone.now() - timedelta(hours=24, seconds=1))
    again = post(api, {"name": "الف"})
    assert again.status_code == 201 and "Idempotent-Replayed" not in again and again.json()["id"] != first["id"]
    IdempotencyKey.objects.update(created_at=timezone.now() - timedelta(hours=25))
    assert idempotency_keys_purge() == 1 and not IdempotencyKey.objects.exists()


def test_every_post_documents_the_header_and_its_409():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    # (not the providers' delivery callbacks: a provider sends no such header; a repeated report is the same
    # status by its message id)
    posts = [
        (path, ops["post"])
        for path, ops in schema["paths"].items()
        if "post" in ops and not path.startswith("/api/webhooks/")
    ]
    assert len(posts) > 30
    for path, operation in posts:
        assert any(p["name"] == "Idempotency-Key" for p in operation["parameters"]), path
        assert "409" in operation["responses"], path
    commit = schema["paths"]["/api/v1/enrollments/{batch_id}/commit"]["post"]
    assert any(p["name"] == "Idempotency-Key" for p in commit["parameters"])


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent requests need PostgreSQL")
def test_of_two_concurrent_requests_with_one_key_one_runs_and_the_other_gets_its_answer(monkeypatch):
    workspace = make_workspace("race")
    user = make_member(workspace)
    entered, release = threading.Event(), threading.Event()
    calls = []
    create = targets.target_list_create

    def slow_create(**kwargs):
        calls.append(1)
        entered.set()
        assert release.wait(10)
        return create(**kwargs)

    monkeypatch.setattr(targets, "target_list_create", slow_create)
    clients = [api_client_for(user, workspace), api_client_for(user, workspace)]
    responses = [None, None]

    def send(i):
        try:
            responses[i] = post(clients[i], {"name": "هم‌زمان"}, key="race-key")
        finally:
            connection.close()

    first = threading.Thread(target=send, args=(0,))
    first.start()
    assert entered.wait(10)
    second = threading.Thread(target=send, args=(1,))
    second.start()
    time.sleep(0.5)  # the second request is waiting on the claimed key
    assert responses[1] is None
    release.set()
    first.join(15)
    second.join(15)
    assert [r.status_code for r in responses] == [201, 201]
    assert responses[0].json() == responses[1].json()
    assert "Idempotent-Replayed" not in responses[0] and responses[1]["Idempotent-Replayed"] == "true"
    assert len(calls) == 1 and TargetList.objects.filter(workspace=workspace).count() == 1


@pytest.mark.django_db
def test_a_claim_left_by_a_crashed_request_is_taken_over_after_the_timeout(api, workspace, settings):
    """A request that died holding its claim (no answer stored, no release) blocks the key only until the
    claim is older than IDEMPOTENCY_CLAIM_TIMEOUT_SECONDS; the retry then runs, once."""
    settings.IDEMPOTENCY_WAIT_SECONDS = 0.2
    first = post(api, {"name": "الف"})
    IdempotencyKey.objects.update(status_code=None, response="")  # as if it died before storing its answer
    TargetList.objects.filter(workspace=workspace).delete()  # ... and before committing its work
    assert_envelope(post(api, {"name": "الف"}), 409, "IDEMPOTENCY_KEY_IN_PROGRESS")  # a fresh claim still holds
    stale = timezone.now() - timedelta(seconds=settings.IDEMPOTENCY_CLAIM_TIMEOUT_SECONDS + 1)
    IdempotencyKey.objects.update(created_at=stale)
    again = post(api, {"name": "الف"})
    assert again.status_code == 201 and "Idempotent-Replayed" not in again and again.json()["id"] != first.json()["id"]
    replay = post(api, {"name": "الف"})
    assert (replay.json(), replay["Idempotent-Replayed"]) == (again.json(), "true")
    assert TargetList.objects.filter(workspace=workspace).count() == 1
    assert_envelope(post(api, {"name": "ب"}), 409, "IDEMPOTENCY_KEY_REUSED")


@pytest.mark.django_db
def test_the_request_whose_claim_was_taken_over_does_not_overwrite_the_answer(workspace, settings):
    lookup = {
        "workspace_id": workspace.pk,
        "user_id": make_member(workspace).pk,
        "key": "k",
        "path": URL,
        "fingerprint": "f",
    }
    lost = idempotency.idempotency_claim(**lookup)
    IdempotencyKey.objects.update(
        created_at=timezone.now() - timedelta(seconds=settings.IDEMPOTENCY_CLAIM_TIMEOUT_SECONDS + 1)
    )
    taken = idempotency.idempotency_claim(**lookup)
    assert isinstance(taken, idempotency.Claim) and taken.id == lost.id and taken.claimed_at != lost.claimed_at
    idempotency.idempotency_store(claim=taken, status_code=201, body={"id": 2})
    idempotency.idempotency_store(claim=lost, status_code=201, body={"id": 1})  # the slow one ends late
    idempotency.idempotency_release(claim=lost)
    assert idempotency.idempotency_claim(**lookup) == idempotency.StoredAnswer(201, {"id": 2})
