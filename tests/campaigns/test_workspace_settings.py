"""The workspace's approval and calendar settings (``workspace_approval_settings_update``) and their page's
gate (the page in Chromium: tests/pages/test_workspace_settings_page.py)."""

import zoneinfo

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from campaigns.approval_selectors import (
    FOUR_EYES_SETTING,
    WORKSPACE_APPROVAL_SETTING,
    four_eyes,
    workspace_needs_approval,
)
from campaigns.chains import schedule as sched
from campaigns.choices import Role
from campaigns.models import Workspace, WorkspaceSettingsEvent
from campaigns.platform.errors import PermissionDenied, ValidationFailed
from campaigns.platform.jalali import fa_digits, to_jalali
from campaigns.services.workspaces import workspace_approval_settings_update, workspace_time_zone_set

from ..conftest import make_actor, make_member, make_workspace

pytestmark = pytest.mark.django_db

OTHER_KEYS = {"notifications_email": True, "sms_retention_days": 30}


def test_sets_the_three_and_keeps_every_other_key():
    shop = make_workspace("shop", settings=dict(OTHER_KEYS))
    actor = make_actor(shop, Role.ADMIN)
    workspace_approval_settings_update(
        actor=actor, campaigns_need_approval=True, approval_four_eyes=True, calendar=sched.JALALI
    )
    shop.refresh_from_db()
    assert shop.settings == {
        **OTHER_KEYS,
        WORKSPACE_APPROVAL_SETTING: True,
        FOUR_EYES_SETTING: True,
        sched.CALENDAR_SETTING: sched.JALALI,
    }
    assert workspace_needs_approval(shop) and four_eyes(shop)
    assert sched.calendar_of(sched.workspace_zone(shop)) == sched.JALALI
    assert actor.workspace.settings == shop.settings  # the request's own workspace reads the change too

    workspace_approval_settings_update(actor=actor, approval_four_eyes=False, calendar=sched.GREGORIAN)
    shop.refresh_from_db()
    assert shop.settings[FOUR_EYES_SETTING] is False and shop.settings[WORKSPACE_APPROVAL_SETTING] is True
    assert sched.workspace_calendar(shop) == sched.GREGORIAN
    assert {key: shop.settings[key] for key in OTHER_KEYS} == OTHER_KEYS


def test_writes_nothing_it_need_not():
    """A value the workspace already reads — a missing key means off, off, Gregorian — is not written."""
    legacy = make_workspace("legacy", settings=dict(OTHER_KEYS))
    actor = make_actor(legacy, Role.OWNER)
    workspace_approval_settings_update(
        actor=actor, campaigns_need_approval=False, approval_four_eyes=False, calendar=sched.GREGORIAN
    )
    legacy.refresh_from_db()
    assert legacy.settings == OTHER_KEYS
    workspace_approval_settings_update(actor=actor, calendar=sched.JALALI)
    legacy.refresh_from_db()
    assert legacy.settings == {**OTHER_KEYS, sched.CALENDAR_SETTING: sched.JALALI}


def test_another_workspace_is_untouched():
    shop, other = make_workspace("shop"), make_workspace("other", settings={"notifications_email": True})
    make_member(other, Role.OWNER)
    workspace_approval_settings_update(
        actor=make_actor(shop, Role.OWNER), campaigns_need_approval=True, approval_four_eyes=True, calendar="jalali"
    )
    assert Workspace.objects.get(pk=other.pk).settings == {"notifications_email": True}


@pytest.mark.parametrize("role", [Role.MANAGER, Role.OPERATOR, Role.VIEWER])
def test_only_owners_and_admins_may_change_them(role):
    shop = make_workspace("shop")
    with pytest.raises(PermissionDenied):
        workspace_approval_settings_update(actor=make_actor(shop, role), campaigns_need_approval=True)
    shop.refresh_from_db()
    assert shop.settings == {}


@pytest.mark.parametrize(
    ("field", "value"),
    [("calendar", "hijri"), ("campaigns_need_approval", "yes"), ("approval_four_eyes", 1)],
)
def test_refuses_a_value_it_does_not_know(field, value):
    shop = make_workspace("shop")
    with pytest.raises(ValidationFailed):
        workspace_approval_settings_update(actor=make_actor(shop, Role.OWNER), **{field: value})


@pytest.mark.parametrize("role", [Role.MANAGER, Role.OPERATOR, Role.VIEWER])
def test_the_page_answers_403_to_a_role_without_manage_workspace(role, client: Client):
    shop = make_workspace("shop")
    client.force_login(make_member(shop, role))
    assert client.get("/workspace/settings/").status_code == 403
    refused = client.post("/workspace/settings/", {"campaigns_need_approval": "on", "calendar": "jalali"})
    assert refused.status_code == 403
    shop.refresh_from_db()
    assert shop.settings == {}
    assert "/workspace/settings/" not in client.get("/").content.decode()


def test_the_page_shows_a_bad_value_as_a_field_error(client: Client):
    shop = make_workspace("shop")
    client.force_login(make_member(shop, Role.ADMIN))
    response = client.post("/workspace/settings/", {"calendar": "hijri"})
    assert response.status_code == 400
    assert "hijri" in response.content.decode()  # Django's choice error names the value
    shop.refresh_from_db()
    assert shop.settings == {}


def test_every_change_is_recorded_with_who_before_and_after_and_shown_on_the_page(client: Client):
    shop = make_workspace("shop", settings={FOUR_EYES_SETTING: True})
    owner = make_member(shop, Role.OWNER, username="mina")
    client.force_login(owner)
    assert client.get("/workspace/settings/").content.decode().count('data-testid="settings-change"') == 0

    assert client.post("/workspace/settings/", {"calendar": "jalali"}).status_code == 302  # four eyes unchecked
    event = WorkspaceSettingsEvent.objects.get(workspace=shop)
    assert event.actor_id == owner.id
    assert event.data == {
        "before": {FOUR_EYES_SETTING: True, sched.CALENDAR_SETTING: None},
        "after": {FOUR_EYES_SETTING: False, sched.CALENDAR_SETTING: sched.JALALI},
    }
    workspace_time_zone_set(actor=make_actor(shop, Role.OWNER, user=owner), time_zone="Asia/Dubai")
    assert WorkspaceSettingsEvent.objects.filter(workspace=shop).count() == 2
    assert not WorkspaceSettingsEvent.objects.exclude(workspace=shop).exists()

    page = client.get("/workspace/settings/").content.decode()
    assert page.count('data-testid="settings-change"') == 3  # one row per changed key
    assert "تأیید چهارچشمی" in page and "روشن" in page and "خاموش" in page and "شمسی" in page
    assert "Asia/Dubai" in page and "mina" in page
    with timezone.override(zoneinfo.ZoneInfo("Asia/Dubai")):  # the page shows the workspace's own zone
        stamp = fa_digits(to_jalali(event.created_at, with_time=True))
    assert stamp in page and stamp.startswith("۱۴")  # a Jalali year, Persian digits


def test_saving_the_same_values_records_nothing(client: Client):
    shop = make_workspace("shop")
    client.force_login(make_member(shop, Role.OWNER))
    assert client.post("/workspace/settings/", {"calendar": "gregorian"}).status_code == 302
    assert not WorkspaceSettingsEvent.objects.exists()


def test_the_admin_shows_settings_read_only(client: Client):
    shop = make_workspace("shop", settings={FOUR_EYES_SETTING: True})
    admin_user = get_user_model().objects.create_superuser("root", password="pw-123456")
    client.force_login(admin_user)
    url = f"/admin/platform/workspace/{shop.id}/change/"
    page = client.get(url).content.decode()
    assert 'name="settings"' not in page and "approval_four_eyes" in page
    form = {
        "name": shop.name,
        "slug": shop.slug,
        "time_zone": "Asia/Dubai",
        "settings": '{"approval_four_eyes": false}',
        "memberships-TOTAL_FORMS": "0",
        "memberships-INITIAL_FORMS": "0",
    }
    assert client.post(url, form).status_code == 302
    shop.refresh_from_db()
    assert shop.settings == {FOUR_EYES_SETTING: True} and shop.time_zone == "Asia/Dubai"
    event = WorkspaceSettingsEvent.objects.get(workspace=shop)
    assert event.actor_id == admin_user.id and event.data["after"] == {"time_zone": "Asia/Dubai"}
