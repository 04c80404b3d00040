"""The tenancy models moved from the campaigns app to the kernel app (platform) without losing a row.

A database at the state before the move (rows in every tenancy table, a group holding workspace
permissions, an admin log entry) is migrated forward: the rows, the relations pointing at them, the
permissions and the admin history are all still there, now under the ``platform`` app label.
"""

import pytest
from django.utils import timezone

from tests.platform.scratch_db import migrate, schema, scratch_database

BEFORE = [
    ("campaigns", "0013_campaign_chain_code"),
    ("automation", "0016_execution_events_partitioned_by_month"),
    ("sms", "0010_sms_log_indexes_by_campaign_and_number"),
    ("workers", "0007_browser_events_partitioned_by_month"),
    ("platform", None),
    ("admin", "0003_logentry_add_action_flag_choices"),
]
AFTER = [("campaigns", "0014_tenancy_models_moved_to_platform"), ("admin", "0003_logentry_add_action_flag_choices")]


@pytest.fixture
def scratch():
    with scratch_database("tenancy_move") as connection:
        yield connection


def seed_before_the_move(old):
    """Rows written through the models as they were (app label ``campaigns``)."""
    user = old.get_model("auth", "User").objects.create(username="owner")
    workspace = old.get_model("campaigns", "Workspace").objects.create(name="فروشگاه", slug="shop")
    old.get_model("campaigns", "Membership").objects.create(workspace=workspace, user=user, role="owner")
    old.get_model("campaigns", "ApiToken").objects.create(
        user=user, prefix="abc123", key_hash="0" * 64, expires_at=timezone.now()
    )
    old.get_model("campaigns", "PlatformHeartbeat").objects.create(name="beat", beat_at=timezone.now())
    old.get_model("campaigns", "Target").objects.create(workspace=workspace, name="مخاطب", mobile="+989121234567")
    old.get_model("sms", "SmsTemplate").objects.create(workspace=workspace, name="خوشامد", body="سلام")
    content_types = old.get_model("contenttypes", "ContentType").objects
    workspace_type, _ = content_types.get_or_create(app_label="campaigns", model="workspace")
    permission = old.get_model("auth", "Permission").objects.create(
        content_type=workspace_type, codename="change_workspace", name="Can change workspace"
    )
    group = old.get_model("auth", "Group").objects.create(name="workspace admins")
    group.permissions.add(permission)
    old.get_model("admin", "LogEntry").objects.create(
        user=user, content_type=workspace_type, object_id=str(workspace.pk), object_repr="فروشگاه", action_flag=1
    )
    return workspace.pk, workspace_type.pk


@pytest.mark.timeout(900)  # every migration from an empty database: minutes on a loaded machine
@pytest.mark.django_db
def test_a_database_with_rows_migrates_to_the_kernel_app(scratch):
    workspace_id, content_type_id = seed_before_the_move(migrate(scratch, BEFORE))
    before = schema(scratch)
    new = migrate(scratch, AFTER)
    assert schema(scratch) == before  # state only: no table, column, index or constraint changed

    workspace = new.get_model("platform", "Workspace").objects.get(pk=workspace_id)
    assert workspace.slug == "shop"
    members = new.get_model("platform", "Membership").objects
    assert members.get(workspace=workspace).user.username == "owner"
    assert new.get_model("platform", "ApiToken").objects.get().prefix == "abc123"
    assert new.get_model("platform", "PlatformHeartbeat").objects.get().name == "beat"
    assert new.get_model("campaigns", "Target").objects.get().workspace_id == workspace_id
    assert new.get_model("sms", "SmsTemplate").objects.get().workspace.slug == "shop"

    content_type = new.get_model("contenttypes", "ContentType").objects.get(pk=content_type_id)
    assert (content_type.app_label, content_type.model) == ("platform", "workspace")
    group = new.get_model("auth", "Group").objects.get(name="workspace admins")
    assert list(group.permissions.values_list("content_type__app_label", "codename")) == [
        ("platform", "change_workspace")
    ]
    assert new.get_model("admin", "LogEntry").objects.get().content_type_id == content_type_id
