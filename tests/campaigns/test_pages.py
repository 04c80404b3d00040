"""Server-rendered pages without a browser: permissions, login throttling, filters, export."""

import io

import pytest
from openpyxl import load_workbook

from campaigns.choices import Role

from ..conftest import make_member, make_target

pytestmark = pytest.mark.django_db


def test_pages_require_login(client):
    response = client.get("/targets/")
    assert response.status_code == 302
    assert "/login/" in response["Location"]


def test_login_is_throttled_after_repeated_failures(client, workspace):
    make_member(workspace, username="nima")
    for _ in range(5):
        assert client.post("/login/", {"username": "nima", "password": "wrong"}).status_code == 200
    locked = client.post("/login/", {"username": "nima", "password": "pw-123456"})
    assert locked.status_code == 429
    assert "ثانیه دیگر" in locked.content.decode()


def test_target_page_filters_with_the_shared_filterset_and_exports(client, workspace):
    user = make_member(workspace, Role.MANAGER)
    make_target(workspace, name="شیرازی", city="شیراز")
    make_target(workspace, name="تبریزی", city="تبریز")
    client.force_login(user)
    html = client.get("/targets/", {"city": "شیراز"}).content.decode()
    assert "شیرازی" in html and "تبریزی" not in html
    export = client.get("/targets/", {"city": "شیراز", "export": "xlsx"})
    rows = list(load_workbook(io.BytesIO(export.getvalue())).active.iter_rows(values_only=True))
    assert [r[0] for r in rows[1:]] == ["شیرازی"]


def test_viewer_gets_a_clear_message_on_import(client, workspace):
    from django.core.files.uploadedfile import SimpleUploadedFile

    viewer = make_member(workspace, Role.VIEWER)
    client.force_login(viewer)
    upload = SimpleUploadedFile("a.csv", b"name,phone\nx,09120000001\n", "text/csv")
    html = client.post("/targets/import/", {"file": upload, "update_existing": "on"}).content.decode()
    assert "اجازه" in html


def test_switching_to_a_foreign_workspace_is_refused(client, workspace, other_workspace):
    user = make_member(workspace)
    client.force_login(user)
    client.post("/workspace/switch/", {"workspace": other_workspace.id})
    assert client.session["workspace_id"] == workspace.id


def test_target_form_page_creates_edits_and_deletes(client, workspace):
    from campaigns.models import Target

    user = make_member(workspace, Role.MANAGER)
    client.force_login(user)
    base = {"name": "سارا", "mobile": "۰۹۱۲ ۱۲۳ ۴۵۶۷", "landline": "", "status": "new", "priority": 0}
    assert client.post("/targets/new/", base).status_code == 302
    target = Target.objects.get(name="سارا")
    assert target.mobile == "+989121234567"
    # a landline typed into the mobile field is shown next to that field
    html = client.post("/targets/new/", {**base, "name": "دوم", "mobile": "02188776655"}).content.decode()
    assert "تلفن ثابت است" in html
    html = client.post("/targets/new/", {**base, "name": "سوم"}).content.decode()
    assert "سارا" in html  # duplicate names the existing target
    edit = client.post(f"/targets/{target.id}/edit/", {**base, "city": "یزد"})
    assert edit.status_code == 302
    target.refresh_from_db()
    assert target.city == "یزد"
    client.post(f"/targets/{target.id}/edit/", {"action": "delete"})
    target.refresh_from_db()
    assert target.deleted_at is not None


def test_target_page_filters_by_owner_and_date_and_shows_national_numbers(client, workspace):
    owner = make_member(workspace, Role.MANAGER, username="owner1")
    other = make_member(workspace, Role.MANAGER, username="owner2")
    make_target(workspace, name="مال من", owner=owner, mobile="+989121234567")
    make_target(workspace, name="مال دیگری", owner=other)
    client.force_login(owner)
    html = client.get("/targets/", {"owner": owner.id, "created_after": "2020-01-01"}).content.decode()
    assert "مال من" in html and "مال دیگری" not in html
    assert "0912 123 4567" in html
    assert "owner2" in html  # the owner filter lists the workspace's members by name
    assert "مال من" not in client.get("/targets/", {"created_after": "2999-01-01"}).content.decode()


@pytest.mark.django_db
def test_home_counts_targets_up_to_its_cap_and_says_more_beyond_it(client, workspace, monkeypatch):
    """A workspace of a million targets must not count them all on every visit of the home page."""
    from campaigns import selectors

    monkeypatch.setattr(selectors, "HOME_COUNT_CAP", 2)
    client.force_login(make_member(workspace, Role.VIEWER, username="sara"))
    make_target(workspace)
    make_target(workspace)
    assert 'data-testid="count-targets">۲</span>' in client.get("/").content.decode()
    make_target(workspace)
    assert 'data-testid="count-targets">بیش از ۲</span>' in client.get("/").content.decode()
