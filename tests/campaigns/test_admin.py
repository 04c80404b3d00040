"""The admin: every model registered, Persian changelists render, targets keep the number rules."""

import pytest
from django.apps import apps
from django.contrib import admin

from campaigns.models import Target

from ..conftest import make_campaign, make_target

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser_client(client, django_user_model):
    user = django_user_model.objects.create_superuser("root", "r@example.com", "pw-123456")
    client.force_login(user)
    return client


def test_every_project_model_is_registered():
    project_apps = {"platform", "campaigns", "chains", "automation", "sms", "workers"}
    missing = [
        m._meta.label
        for m in apps.get_models()
        if m._meta.app_label in project_apps and not m._meta.abstract and m not in admin.site._registry
    ]
    assert missing == []


def test_changelists_render(superuser_client, workspace):
    make_target(workspace)
    make_campaign(workspace)
    for model in (
        "campaigns/target",
        "campaigns/campaign",
        "platform/workspace",
        "platform/membership",
        "campaigns/targetlist",
        "campaigns/targetimport",
    ):
        response = superuser_client.get(f"/admin/{model}/")
        assert response.status_code == 200, model
        assert 'dir="rtl"' in response.content.decode()


def test_admin_target_form_normalises_and_refuses_duplicates(superuser_client, workspace):
    make_target(workspace, mobile="+989121111111", name="قبلی")
    data = {
        "workspace": workspace.id,
        "name": "نو",
        "mobile": "۰۹۱۲۱۱۱۱۱۱۱",
        "landline": "",
        "status": "new",
        "priority": 0,
        "attributes": "{}",
    }
    response = superuser_client.post("/admin/campaigns/target/add/", data)
    assert response.status_code == 200
    assert "قبلی" in response.content.decode()
    data["mobile"] = "0912 222 2222"
    response = superuser_client.post("/admin/campaigns/target/add/", data)
    assert response.status_code == 302
    assert Target.objects.get(name="نو").mobile == "+989122222222"
    data["mobile"] = "02188776655"
    response = superuser_client.post("/admin/campaigns/target/add/", data)
    assert "تلفن ثابت" in response.content.decode()


def test_every_project_admin_list_counts_like_the_pages(monkeypatch):
    """No changelist counts a whole big table: the capped pager, and no second count of the unfiltered table."""
    from campaigns.platform.pagination import CappedPaginator

    loose = [
        model._meta.label
        for model, model_admin in admin.site._registry.items()
        if model_admin.paginator is not CappedPaginator
        or model_admin.show_full_result_count
        or model_admin.show_facets != admin.ShowFacets.NEVER
    ]
    assert loose == []


def test_an_admin_list_past_the_cap_says_so_and_counts_no_further(superuser_client, workspace, monkeypatch):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from campaigns.platform.pagination import CappedPaginator

    monkeypatch.setattr(CappedPaginator, "cap", 3)
    for _ in range(5):
        make_target(workspace)
    with CaptureQueriesContext(connection) as captured:
        response = superuser_client.get("/admin/campaigns/target/")
    html = response.content.decode()
    assert response.status_code == 200 and "بیش از ۳" in html
    assert "انتخاب همه (بیش از ۳)" in html  # "select all" does not pretend there are three
    counts = [q["sql"] for q in captured if "COUNT(" in q["sql"].upper()]
    assert counts and all("LIMIT 4" in sql for sql in counts), counts
    searched = superuser_client.get("/admin/campaigns/target/", {"q": "مخاطب"}).content.decode()
    assert "بیش از ۳ نتیجه" in searched


def test_revoking_a_key_in_the_admin_revokes_the_keys_made_with_it(superuser_client, workspace):
    from django.utils import timezone

    from campaigns.choices import Role
    from campaigns.platform.jalali import to_jalali
    from campaigns.platform.tokens import api_token_create

    from ..conftest import make_member

    owner = make_member(workspace, Role.OWNER)
    root, _ = api_token_create(user=owner, workspace=workspace)
    child, _ = api_token_create(user=owner, workspace=workspace, granter=root)
    now = timezone.localtime(timezone.now())
    response = superuser_client.post(
        f"/admin/platform/apitoken/{root.pk}/change/", {"revoked_at": to_jalali(now, with_time=True)}
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    child.refresh_from_db()
    root.refresh_from_db()
    assert root.revoked_at is not None
    assert child.revoked_at is not None and child.revoked_with_id == root.pk
