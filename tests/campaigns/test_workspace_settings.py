"""The workspace's approval and calendar settings (``workspace_approval_settings_update``) and their page's
gate (the page in Chromium: tests/pages/test_workspace_settings_page.py)."""

import pytest
from django.test import Client

from campaigns.chains import schedule as sched
from campaigns.chains.approval_selectors import FOUR_EYES_SETTING, four_eyes
from campaigns.chains.selectors import WORKSPACE_APPROVAL_SETTING, workspace_needs_approval
from campaigns.choices import Role
from campaigns.models import Workspace
from campaigns.platform.errors import PermissionDenied, ValidationFailed
from campaigns.services.workspaces import workspace_approval_settings_update

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
