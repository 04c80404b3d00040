"""A chain root's audience in the API: a target list narrowed by the targets page's filters, its live count,
and the blocking problems at submit and approval when it reaches nobody."""

import pytest

from campaigns.chains.models import ChainApprovalPackage, ChainNode
from campaigns.choices import CampaignStatus, TargetStatus

from ..conftest import make_list, make_target
from .conftest import ACTION, GOAL, make_group

pytestmark = pytest.mark.django_db

MONTHLY = {"type": "MONTHLY", "day": "1", "time": "09:00"}
AFTER = {"type": "NOT_CONVERTED", "schedule": {"type": "AFTER_INTERVAL", "offset_days": 2, "run_time": "09:00"}}


@pytest.fixture
def people(workspace):
    """A list of 5: 3 new in Tehran (priority 5, 5, 1), 1 new in Shiraz, 1 converted in Tehran."""
    lst = make_list(workspace, "مشتریان")
    rows = [
        make_target(workspace, city="تهران", priority=5),
        make_target(workspace, city="تهران", priority=5),
        make_target(workspace, city="تهران", priority=1),
        make_target(workspace, city="شیراز", priority=5),
        make_target(workspace, city="تهران", priority=5, status=TargetStatus.CONVERTED),
    ]
    for row in rows:
        row.lists.add(lst)
    make_target(workspace, city="تهران", priority=5)  # not in the list
    return lst


def create(api, **body):
    body.setdefault("name", "ریشه")
    body.setdefault("chain_action", ACTION)
    return api.post("/api/v1/campaign", body, format="json")


def chain(api, workspace, **root_body):
    group = make_group(workspace)
    root = create(api, campaign_group_id=group.id, when=MONTHLY, goal=GOAL, **root_body)
    assert root.status_code == 201, root.content
    child = create(
        api, name="دنباله", parent_campaign_id=root.json()["id"], expected_chain_revision=1, inheritance=AFTER
    )
    assert child.status_code == 201, child.content
    return root.json(), child.json()


def submit(api, campaign_id):
    revision = ChainNode.objects.get(pk=campaign_id).chain_revision
    return api.post(f"/api/v1/campaign/{campaign_id}/submit", {"expected_chain_revision": revision}, format="json")


def test_root_keeps_list_and_filters_and_a_run_would_reach_only_the_matching(api, workspace, people):
    filters = {"status": [TargetStatus.NEW], "city": "تهران", "priority_min": 3}
    root, _ = chain(api, workspace, source_target_list_id=people.id, audience_filters=filters)
    assert root["source_target_list_id"] == people.id
    assert root["audience_filters"] == {"status": ["new"], "city": "تهران", "priority_min": "3"}
    count = api.post(
        "/api/v1/campaign/audience/count",
        {"source_target_list_id": people.id, "audience_filters": filters},
        format="json",
    )
    assert count.status_code == 200, count.content
    assert count.json() == {"count": 2, "message": "این کمپین به ۲ نفر می‌رسد"}


def test_the_count_message_uses_persian_digits_and_separator(api, workspace):
    from campaigns.chains.audience import reach_message

    assert reach_message(1240) == "این کمپین به ۱٬۲۴۰ نفر می‌رسد"


def test_put_changes_the_audience_and_children_refuse_one(api, workspace, people):
    root, child = chain(api, workspace, source_target_list_id=people.id)
    other = make_list(workspace, "دیگر")
    body = {"source_target_list_id": other.id, "audience_filters": {"city": "شیراز"}, "expected_chain_revision": 2}
    response = api.put(f"/api/v1/campaign/{root['id']}", body, format="json")
    assert response.status_code == 200, response.content
    assert (response.json()["source_target_list_id"], response.json()["audience_filters"]) == (
        other.id,
        {"city": "شیراز"},
    )
    refused = api.put(
        f"/api/v1/campaign/{child['id']}",
        {"source_target_list_id": people.id, "expected_chain_revision": 3},
        format="json",
    )
    assert refused.status_code == 400
    assert "source_target_list_id" in refused.json()["error"]["details"]


@pytest.mark.parametrize(
    "filters, field",
    [
        ({"colour": "red"}, "audience_filters"),
        ({"status": ["nope"]}, "audience_filters"),
        ({"priority_min": "high"}, "audience_filters"),
    ],
)
def test_bad_filters_are_field_errors_never_ignored(api, workspace, people, filters, field):
    response = create(api, source_target_list_id=people.id, audience_filters=filters)
    assert response.status_code == 400, response.content
    assert any(key.startswith(field) for key in response.json()["error"]["details"])


def test_another_workspaces_list_looks_missing(api, workspace, other_workspace):
    foreign = make_list(other_workspace, "بیگانه")
    make_target(other_workspace).lists.add(foreign)
    created = create(api, source_target_list_id=foreign.id)
    assert created.status_code == 400
    assert "source_target_list_id" in created.json()["error"]["details"]
    counted = api.post("/api/v1/campaign/audience/count", {"source_target_list_id": foreign.id}, format="json")
    assert counted.status_code == 400
    assert not ChainNode.objects.filter(source_target_list=foreign).exists()


def test_submit_names_a_root_without_audience(api, workspace):
    root, _ = chain(api, workspace)
    response = submit(api, root["id"])
    assert response.status_code == 400
    (node,) = response.json()["error"]["details"]["nodes"]
    assert node["campaign_id"] == root["id"]
    assert [r["code"] for r in node["reasons"]] == ["AUDIENCE_MISSING"]
    assert "فهرست مخاطبان" in node["reasons"][0]["message"]
    assert ChainNode.objects.get(pk=root["id"]).status == CampaignStatus.DRAFT


def test_submit_names_an_audience_that_counts_zero(api, workspace, people):
    root, _ = chain(api, workspace, source_target_list_id=people.id, audience_filters={"city": "اصفهان"})
    response = submit(api, root["id"])
    assert response.status_code == 400
    (node,) = response.json()["error"]["details"]["nodes"]
    assert [r["code"] for r in node["reasons"]] == ["AUDIENCE_EMPTY"]
    assert "«مشتریان»" in node["reasons"][0]["message"] and "۰ نفر" in node["reasons"][0]["message"]


def test_audience_emptied_while_submitted_blocks_approval_and_the_package_says_why(api, workspace, people):
    root, _ = chain(api, workspace, source_target_list_id=people.id, audience_filters={"city": "شیراز"})
    assert submit(api, root["id"]).status_code == 200
    package = ChainApprovalPackage.objects.get(root_id=root["id"])
    assert api.get(f"/api/v1/campaign-chain-approvals/{package.id}").json()["problems"] == []
    people.targets.filter(city="شیراز").update(city="تهران")  # the only match moved away meanwhile
    shown = api.get(f"/api/v1/campaign-chain-approvals/{package.id}").json()
    assert [r["code"] for r in shown["problems"][0]["reasons"]] == ["AUDIENCE_EMPTY"]
    approve = api.post(
        f"/api/v1/campaign-chain-approvals/{package.id}/approve",
        {"expected_submitted_revision": package.submitted_revision},
        format="json",
    )
    assert approve.status_code == 400
    assert approve.json()["error"]["code"] == "CHAIN_INVALID"
    assert ChainNode.objects.get(pk=root["id"]).status == CampaignStatus.SUBMITTED


def test_each_node_keeps_its_own_daily_limit_and_send_window(api, workspace, people):
    window = {"timezone": "Asia/Tehran", "days": {"sat": [["09:00", "18:00"]]}}
    root, child = chain(api, workspace, source_target_list_id=people.id, daily_limit=500)
    assert (root["daily_limit"], root["send_window"]) == (500, None)
    edit = {"daily_limit": 40, "send_window": window, "expected_chain_revision": 2}
    response = api.put(f"/api/v1/campaign/{child['id']}", edit, format="json")
    assert response.status_code == 200, response.content
    assert (response.json()["daily_limit"], response.json()["send_window"]) == (40, window)
    stored = ChainNode.objects.get(pk=child["id"])
    assert (stored.daily_limit, stored.send_window) == (40, window)
    assert ChainNode.objects.get(pk=root["id"]).daily_limit == 500  # independent per node
    closed = {"timezone": "Asia/Tehran", "days": {}}
    refused = api.put(
        f"/api/v1/campaign/{child['id']}", {"send_window": closed, "expected_chain_revision": 3}, format="json"
    )
    assert refused.status_code == 400 and "send_window" in refused.json()["error"]["details"]


def test_each_node_keeps_its_own_priority_in_the_frequency_cap(api, workspace, people):
    root, child = chain(api, workspace, source_target_list_id=people.id, frequency_cap_priority="high")
    assert (root["frequency_cap_priority"], child["frequency_cap_priority"]) == ("high", "normal")
    edit = {"frequency_cap_priority": "low", "expected_chain_revision": 2}
    response = api.put(f"/api/v1/campaign/{child['id']}", edit, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["frequency_cap_priority"] == "low"
    assert ChainNode.objects.get(pk=child["id"]).journey_settings == {"frequency_cap_priority": "low"}
    assert api.get(f"/api/v1/campaign/{root['id']}").json()["frequency_cap_priority"] == "high"
    refused = api.put(
        f"/api/v1/campaign/{child['id']}",
        {"frequency_cap_priority": "urgent", "expected_chain_revision": 3},
        format="json",
    )
    assert refused.status_code == 400
    back = {"frequency_cap_priority": "normal", "expected_chain_revision": 3}
    assert api.put(f"/api/v1/campaign/{child['id']}", back, format="json").json()["frequency_cap_priority"] == "normal"
    assert ChainNode.objects.get(pk=child["id"]).journey_settings == {}  # the default is not stored


def test_a_whole_lists_reach_is_its_kept_size_and_follows_deletes_and_removals(api, workspace, people):
    """Without filters the count is the list's live members kept with its writes — no count of the workspace —
    and it says what a run would freeze: a deleted target and a removed member leave it at once."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from campaigns.models import Target

    def reach():
        with CaptureQueriesContext(connection) as captured:
            body = api.post("/api/v1/campaign/audience/count", {"source_target_list_id": people.id}, format="json")
        assert not [q for q in captured if "campaigns_target_lists" in q["sql"] and "COUNT(" in q["sql"].upper()]
        return body.json()["count"]

    assert reach() == 5
    members = list(people.targets.order_by("id"))
    Target.objects.filter(pk=members[0].pk).update(deleted_at="2026-01-01T00:00:00Z")
    people.targets.remove(members[1])
    assert reach() == 3
    filtered = api.post(
        "/api/v1/campaign/audience/count",
        {"source_target_list_id": people.id, "audience_filters": {"city": "تهران"}},
        format="json",
    )
    assert filtered.json()["count"] == 2  # counted: the filters narrow the kept members
