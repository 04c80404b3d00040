"""Notifications: one row per recipient and key (also under two workers), the bell, the page, the API, e-mail."""

import threading

import pytest
from django.core import mail
from django.db import connection, transaction

from campaigns.choices import Role
from campaigns.notifications.models import Notification
from campaigns.notifications.services import notification_send, notifications_mark_all_read
from campaigns.services.imports import target_import_process, target_import_start
from tests.conftest import api_client_for, make_member, make_workspace

pytestmark = pytest.mark.django_db


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="SQLite's shared-cache memory test database refuses a second writer at once (table is locked)",
)
@pytest.mark.django_db(transaction=True)
def test_same_dedupe_key_from_two_workers_leaves_one_notification():
    workspace = make_workspace("dup")
    user = make_member(workspace, Role.OWNER)
    first_inserted = threading.Event()
    results, errors = {}, []

    def worker(name: str, wait_for_other: bool) -> None:
        try:
            with transaction.atomic():
                if not wait_for_other:
                    first_inserted.wait(10)  # the other worker's row exists, uncommitted
                results[name] = notification_send(
                    workspace=workspace, recipients=[user], kind="k", title="t", dedupe_key="outage:1"
                )
                if wait_for_other:
                    first_inserted.set()
        except Exception as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=("a", True)), threading.Thread(target=worker, args=("b", False))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors
    assert Notification.objects.filter(recipient=user, dedupe_key="outage:1").count() == 1
    assert sorted(len(r) for r in results.values()) == [0, 1]  # exactly one worker created it


def test_repeated_send_is_a_no_op_and_non_members_are_skipped(workspace, owner, other_workspace):
    stranger = make_member(other_workspace, Role.OWNER)
    created = notification_send(workspace=workspace, recipients=[owner, stranger], kind="k", title="t", dedupe_key="x")
    again = notification_send(workspace=workspace, recipients=[owner], kind="k", title="t", dedupe_key="x")
    assert len(created) == 1 and again == []
    assert Notification.objects.count() == 1


def test_email_is_sent_once_when_the_workspace_asks_for_it(workspace, owner, django_capture_on_commit_callbacks):
    owner.email = "owner@example.com"
    owner.save()
    workspace.settings = {"notifications_email": True}
    workspace.save()
    with django_capture_on_commit_callbacks(execute=True):
        notification_send(workspace=workspace, recipients=[owner], kind="k", title="سلام", dedupe_key="e")
        notification_send(workspace=workspace, recipients=[owner], kind="k", title="سلام", dedupe_key="e")
    assert [m.subject for m in mail.outbox] == ["سلام"]


def test_no_email_without_the_setting(workspace, owner, django_capture_on_commit_callbacks):
    owner.email = "owner@example.com"
    owner.save()
    with django_capture_on_commit_callbacks(execute=True):
        notification_send(workspace=workspace, recipients=[owner], kind="k", title="سلام", dedupe_key="e")
    assert mail.outbox == []


def test_api_lists_own_notifications_and_marks_them(api, workspace, owner, actor):
    other = make_member(workspace, Role.MANAGER)
    notification_send(workspace=workspace, recipients=[owner, other], kind="k", title="a", dedupe_key="1")
    notification_send(workspace=workspace, recipients=[owner], kind="k", title="b", dedupe_key="2")
    listed = api.get("/api/v1/notifications").json()
    assert listed["count"] == 2 and {r["title"] for r in listed["results"]} == {"a", "b"}
    first = listed["results"][0]["id"]
    assert api.post(f"/api/v1/notifications/{first}/read", {"read": True}, format="json").json()["is_read"] is True
    assert api.get("/api/v1/notifications/unread-count").json() == {"unread": 1}
    assert api.get("/api/v1/notifications?unread=true").json()["count"] == 1
    assert api.post(f"/api/v1/notifications/{first}/read", {"read": False}, format="json").json()["is_read"] is False
    assert api.post("/api/v1/notifications/read-all").json() == {"unread": 0, "marked": 2}
    # the other member's notification is neither listed nor markable
    theirs = Notification.objects.get(recipient=other).id
    assert api.post(f"/api/v1/notifications/{theirs}/read", {}, format="json").status_code == 404
    assert api_client_for(other, workspace).get("/api/v1/notifications/unread-count").json() == {"unread": 1}


def test_bell_shows_unread_count_and_page_marks_all_read(client, workspace, owner, actor):
    notification_send(workspace=workspace, recipients=[owner], kind="k", title="کمپین تمام شد", dedupe_key="1")
    client.force_login(owner)
    home = client.get("/")
    assert 'data-testid="bell-count">۱<' in home.content.decode()
    page = client.get("/notifications/")
    assert "کمپین تمام شد" in page.content.decode()
    client.post("/notifications/", {"action": "read_all"})
    assert notifications_mark_all_read(actor=actor) == 0
    assert 'data-testid="bell-count"' not in client.get("/").content.decode()


def test_finished_import_notifies_its_creator(actor, owner, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        started = target_import_start(actor=actor, file_name="a.csv", content=b"name,mobile\nx,09120000001\n")
    target_import_process(import_id=started.id)
    target_import_process(import_id=started.id)  # a second delivery of the task notifies nothing more
    n = Notification.objects.get(recipient=owner)
    assert n.kind == "import_finished" and n.link == f"/targets/import/{started.id}/"
