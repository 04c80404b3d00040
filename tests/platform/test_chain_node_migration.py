"""The 16 chain columns of a campaign move to its ``chains.ChainNode`` row without losing a value.

A database before the move (campaigns 0020, chains 0003) holds a chain of two with every chain field set, a
standalone campaign in a group, a campaign chains never touched, the chain's current package and a run. It is
migrated forward (chains 0004 → campaigns 0021 → chains 0005) and back: every value is the node's after, the
campaign's again after the way back, and the schema is the one it started with.
"""

import pytest
from django.utils import timezone

from tests.platform.scratch_db import migrate, schema, scratch_database

BEFORE = [("campaigns", "0020_target_revision"), ("chains", "0003_run_refusal_reasons")]
AFTER = [("chains", "0005_chain_node_is_a_campaign")]
COLUMNS = (
    "group_id",
    "parent_id",
    "root_id",
    "inheritance",
    "chain_revision",
    "chain_control",
    "approval_package_id",
    "needs_review",
    "needs_review_reasons",
    "root_schedule",
    "goal",
    "attribution_window_days",
    "ab_seed",
    "chain_action",
    "audience_filters",
    "chain_code",
)


@pytest.fixture
def scratch():
    with scratch_database("chain_node") as connection:
        yield connection


def seed(old) -> None:
    now = timezone.now()
    Campaign = old.get_model("campaigns", "Campaign")
    workspace = old.get_model("platform", "Workspace").objects.create(name="فروشگاه", slug="shop")
    group = old.get_model("chains", "CampaignGroup").objects.create(
        workspace=workspace, name="نوروز", name_key="نوروز", name_search="نوروز"
    )
    root = Campaign.objects.create(
        workspace=workspace,
        name="ریشه",
        group=group,
        chain_revision=3,
        chain_control="PAUSED",
        needs_review=True,
        needs_review_reasons=[{"code": "AUDIENCE_EMPTY"}],
        root_schedule={"type": "MONTHLY", "day": 1, "time": "09:00"},
        goal={"type": "REPLIED", "words": ["بله"]},
        attribution_window_days=14,
        ab_seed=12345,
        chain_action={"channel": "sms", "content": "سلام"},
        audience_filters={"city": "تهران"},
        chain_code="CH-7K3PQ2XM",
    )
    Campaign.objects.filter(pk=root.pk).update(root=root)
    child = Campaign.objects.create(
        workspace=workspace,
        name="پیگیری",
        group=group,
        parent=root,
        root=root,
        inheritance={"type": "NOT_CONVERTED", "schedule": {"type": "AFTER_INTERVAL", "offset_days": 2}},
        chain_code="CH-23456789",
    )
    package = old.get_model("chains", "ChainApprovalPackage").objects.create(
        workspace=workspace, root=root, submitted_revision=3, submitted_at=now, items=[{"campaign_id": root.pk}]
    )
    Campaign.objects.filter(pk__in=[root.pk, child.pk]).update(approval_package=package)
    old.get_model("chains", "CampaignRun").objects.create(
        workspace=workspace, campaign=child, root=root, package=package, run_type="MANUAL", planned_at=now
    )
    Campaign.objects.create(workspace=workspace, name="مستقل", group=group, ab_seed=7)
    Campaign.objects.create(workspace=workspace, name="سفر", ab_seed=8)


def values(models, app: str, model: str) -> dict[int, dict]:
    rows = models.get_model(app, model).objects.values("pk", *COLUMNS)
    return {row.pop("pk"): row for row in rows}


@pytest.mark.timeout(900)  # every migration from an empty database: minutes on a loaded machine
@pytest.mark.django_db
def test_the_chain_columns_move_to_the_node_row_and_back(scratch):
    old = migrate(scratch, BEFORE)
    seed(old)
    before, campaigns = schema(scratch), values(old, "campaigns", "Campaign")
    assert len(campaigns) == 4

    new = migrate(scratch, AFTER)
    assert values(new, "chains", "ChainNode") == campaigns  # every campaign's values, none lost
    Campaign = new.get_model("campaigns", "Campaign")
    assert not {f.name for f in Campaign._meta.get_fields()} & {c.removesuffix("_id") for c in COLUMNS}
    run = new.get_model("chains", "CampaignRun").objects.get()
    assert (run.campaign.name, run.campaign.root.name, run.package.root.chain_code) == ("پیگیری", "ریشه", "CH-7K3PQ2XM")

    back = migrate(scratch, BEFORE)
    assert values(back, "campaigns", "Campaign") == campaigns
    assert schema(scratch) == before
