"""A new workspace approves with four eyes and counts schedule months in the Jalali calendar whichever path
creates it (``workspace_create``, the Django admin, the ORM); existing rows keep what they read before."""

import importlib

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.test import Client

from campaigns.approval_selectors import FOUR_EYES_SETTING, four_eyes
from campaigns.chains import schedule as sched
from campaigns.models import Workspace
from campaigns.services.workspaces import workspace_create

from ..conftest import make_workspace

pytestmark = pytest.mark.django_db

DEFAULTS = {FOUR_EYES_SETTING: True, sched.CALENDAR_SETTING: sched.JALALI}


def reads(workspace) -> tuple[bool, str]:
    return four_eyes(workspace), sched.workspace_calendar(workspace)


def test_the_orm_gives_a_new_workspace_the_defaults():
    workspace = Workspace.objects.create(name="از ORM", slug="orm")
    workspace.refresh_from_db()
    assert workspace.settings == DEFAULTS
    assert reads(workspace) == (True, sched.JALALI)


def test_the_admin_gives_a_new_workspace_the_defaults(client: Client):
    client.force_login(get_user_model().objects.create_superuser("root", password="pw-123456"))
    form = {
        "name": "از پیشخوان",
        "slug": "from-admin",
        "time_zone": "Asia/Tehran",
        "memberships-TOTAL_FORMS": "0",
        "memberships-INITIAL_FORMS": "0",
    }
    assert client.post("/admin/platform/workspace/add/", form).status_code == 302
    workspace = Workspace.objects.get(slug="from-admin")
    assert workspace.settings == DEFAULTS
    assert reads(workspace) == (True, sched.JALALI)


def test_workspace_create_gives_the_same_defaults():
    assert workspace_create(name="سرویس", slug="service").settings == DEFAULTS


@pytest.mark.parametrize(
    ("stored", "written"),
    [
        ({}, {FOUR_EYES_SETTING: False, sched.CALENDAR_SETTING: sched.GREGORIAN}),
        (
            {FOUR_EYES_SETTING: True, "notifications_email": True},
            {FOUR_EYES_SETTING: True, "notifications_email": True, sched.CALENDAR_SETTING: sched.GREGORIAN},
        ),
        ({sched.CALENDAR_SETTING: sched.JALALI}, {FOUR_EYES_SETTING: False, sched.CALENDAR_SETTING: sched.JALALI}),
    ],
)
def test_the_migration_writes_what_existing_rows_read_today(stored, written):
    existing = make_workspace("old", settings=stored)
    before = reads(existing)
    migration = importlib.import_module("campaigns.platform.migrations.0002_workspace_default_settings")
    migration.write_effective_values(apps, None)
    existing.refresh_from_db()
    assert existing.settings == written
    assert reads(existing) == before  # no existing workspace changes behaviour
