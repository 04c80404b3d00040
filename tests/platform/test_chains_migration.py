"""Groups, chains, packages and runs moved from the campaigns app to the chains app without losing a row.

A database at the state before the move, with a row in every moved table, a campaign in a group with a
current approval package, a group of users holding a run permission and an admin log entry, is migrated
forward and back: no table, column, index or constraint changes, every row and relation is read under the
new label (and again under the old one), and the permissions and admin history follow the content types.
"""

import uuid

import pytest
from django.utils import timezone

from tests.platform.scratch_db import migrate, schema, scratch_database

BEFORE = [
    ("campaigns", "0016_workspace_settings_events"),
    ("platform", "0002_workspace_default_settings"),
    ("chains", None),
    ("admin", "0003_logentry_add_action_flag_choices"),
]
AFTER = [
    ("campaigns", "0017_chain_models_moved_to_chains"),
    ("chains", "0001_initial"),
    ("admin", "0003_logentry_add_action_flag_choices"),
]
MOVED = (
    "CampaignGroup",
    "ChainApprovalPackage",
    "CampaignRun",
    "RunAudienceSnapshot",
    "RunAudienceMember",
    "RunExecution",
    "ConversionEvent",
)


@pytest.fixture
def scratch():
    with scratch_database("chains_move") as connection:
        yield connection


def seed(old) -> dict:
    """One row per moved table, written through the models as they were (app label ``campaigns``)."""
    now = timezone.now()
    user = old.get_model("auth", "User").objects.create(username="owner")
    workspace = old.get_model("platform", "Workspace").objects.create(name="فروشگاه", slug="shop")
    target = old.get_model("campaigns", "Target").objects.create(
        workspace=workspace, name="مخاطب", mobile="+989121234567"
    )
    group = old.get_model("campaigns", "CampaignGroup").objects.create(
        workspace=workspace, name="نوروز", name_key="نوروز", name_search="نوروز", created_by=user
    )
    campaign = old.get_model("campaigns", "Campaign").objects.create(workspace=workspace, name="ریشه", group=group)
    campaign.root = campaign
    campaign.save(update_fields=["root"])
    package = old.get_model("campaigns", "ChainApprovalPackage").objects.create(
        workspace=workspace, root=campaign, submitted_revision=1, submitted_at=now, items=[{"id": campaign.pk}]
    )
    old.get_model("campaigns", "Campaign").objects.filter(pk=campaign.pk).update(approval_package=package)
    run = old.get_model("campaigns", "CampaignRun").objects.create(
        workspace=workspace, campaign=campaign, root=campaign, package=package, run_type="MANUAL", planned_at=now
    )
    build_id = uuid.uuid4()
    snapshot = old.get_model("campaigns", "RunAudienceSnapshot").objects.create(
        workspace=workspace, run=run, attempt_no=1, build_id=build_id, status="FROZEN", member_count=1
    )
    old.get_model("campaigns", "CampaignRun").objects.filter(pk=run.pk).update(target_snapshot=snapshot)
    old.get_model("campaigns", "RunAudienceMember").objects.create(snapshot=snapshot, build_id=build_id, target=target)
    old.get_model("campaigns", "RunExecution").objects.create(
        workspace=workspace, run=run, target=target, action_code="CH-7K3PQ2XM", key=f"{run.pk}:{target.pk}"
    )
    old.get_model("campaigns", "ConversionEvent").objects.create(
        workspace=workspace, target=target, name="purchase", occurred_at=now, external_id="order-1"
    )
    content_types = old.get_model("contenttypes", "ContentType").objects
    run_type, _ = content_types.get_or_create(app_label="campaigns", model="campaignrun")
    permission = old.get_model("auth", "Permission").objects.create(
        content_type=run_type, codename="view_campaignrun", name="Can view campaign run"
    )
    old.get_model("auth", "Group").objects.create(name="run readers").permissions.add(permission)
    old.get_model("admin", "LogEntry").objects.create(
        user=user, content_type=run_type, object_id=str(run.pk), object_repr="run", action_flag=1
    )
    return {
        "campaign": campaign.pk,
        "group": group.pk,
        "package": package.pk,
        "run": run.pk,
        "content_type": run_type.pk,
    }


def assert_rows(models, label: str, ids: dict) -> None:
    """Every row and relation is there, read through the models of ``label``."""
    assert {name: models.get_model(label, name).objects.count() for name in MOVED} == dict.fromkeys(MOVED, 1)
    campaign = models.get_model("campaigns", "Campaign").objects.get(pk=ids["campaign"])
    assert (campaign.group.name, campaign.approval_package_id) == ("نوروز", ids["package"])
    run = models.get_model(label, "CampaignRun").objects.get(pk=ids["run"])
    assert (run.campaign_id, run.package.root_id, run.target_snapshot.status) == (campaign.pk, campaign.pk, "FROZEN")
    assert run.snapshots.get().members.get().target.name == "مخاطب"
    assert run.executions.get().action_code == "CH-7K3PQ2XM"
    assert models.get_model(label, "ConversionEvent").objects.get().external_id == "order-1"
    content_type = models.get_model("contenttypes", "ContentType").objects.get(pk=ids["content_type"])
    assert (content_type.app_label, content_type.model) == (label, "campaignrun")
    group = models.get_model("auth", "Group").objects.get(name="run readers")
    assert list(group.permissions.values_list("content_type__app_label", "codename")) == [(label, "view_campaignrun")]
    assert models.get_model("admin", "LogEntry").objects.get().content_type_id == ids["content_type"]


@pytest.mark.timeout(900)  # every migration from an empty database: minutes on a loaded machine
@pytest.mark.django_db
def test_a_database_with_rows_migrates_to_the_chains_app_and_back(scratch):
    ids = seed(migrate(scratch, BEFORE))
    before = schema(scratch)

    assert_rows(migrate(scratch, AFTER), "chains", ids)
    assert schema(scratch) == before  # state only: no table, column, index or constraint changed

    assert_rows(migrate(scratch, BEFORE), "campaigns", ids)
    assert schema(scratch) == before
