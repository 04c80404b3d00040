"""Who may rename and delete target lists, a list in use as an audience is kept, counts and duplicate-number
errors tell an operator nothing about targets they may not see."""

import pytest
from django.contrib.auth.models import Permission

from automation.models import AutoEnrollRule
from campaigns.choices import CampaignStatus, Role
from campaigns.models import TargetList

from ..conftest import api_client_for, make_campaign, make_chain_member, make_list, make_member, make_target

pytestmark = pytest.mark.django_db


@pytest.fixture
def manager(workspace):
    return make_member(workspace, Role.MANAGER)


@pytest.fixture
def operator(workspace):
    return make_member(workspace, Role.OPERATOR)


# --------------------------------------------------------------------------- rename / delete: manage campaigns
def test_operator_may_create_a_list_but_not_rename_or_delete_one(workspace, operator):
    client = api_client_for(operator, workspace)
    created = client.post("/api/v1/target-lists", {"name": "تماس‌های من"}, format="json")
    assert created.status_code == 201
    list_id = created.json()["id"]
    renamed = client.patch(f"/api/v1/target-lists/{list_id}", {"name": "دیگر"}, format="json")
    assert renamed.status_code == 403
    assert renamed.json()["error"]["code"] == "PERMISSION_DENIED"
    assert client.delete(f"/api/v1/target-lists/{list_id}").status_code == 403
    assert TargetList.objects.get(pk=list_id).name == "تماس‌های من"


def test_manager_renames_and_deletes_an_unused_list(workspace, manager):
    client = api_client_for(manager, workspace)
    tl = make_list(workspace)
    assert client.patch(f"/api/v1/target-lists/{tl.id}", {"name": "وفادار"}, format="json").json()["name"] == "وفادار"
    assert client.delete(f"/api/v1/target-lists/{tl.id}").status_code == 204
    assert not TargetList.objects.filter(pk=tl.id).exists()


# --------------------------------------------------------------------------- a list in use is not deleted
def test_deleting_a_campaigns_source_list_is_refused_naming_the_campaigns(workspace, manager):
    tl = make_list(workspace)
    root = make_campaign(workspace, name="ریشه ماهانه", source_target_list=tl, status=CampaignStatus.ACTIVE)
    make_chain_member(root)  # a chain root: its runs' audience is this list
    draft = make_campaign(workspace, name="پیش‌نویس", source_target_list=tl)
    make_campaign(workspace, name="تمام‌شده", source_target_list=tl, status=CampaignStatus.COMPLETED)
    make_campaign(workspace, name="لغوشده", source_target_list=tl, status=CampaignStatus.CANCELLED)

    response = api_client_for(manager, workspace).delete(f"/api/v1/target-lists/{tl.id}")

    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "TARGET_LIST_IN_USE"
    assert error["details"]["campaigns"] == [
        {"id": root.id, "name": "ریشه ماهانه"},
        {"id": draft.id, "name": "پیش‌نویس"},
    ]
    assert "«ریشه ماهانه»" in error["message"] and "«پیش‌نویس»" in error["message"]
    assert "تمام‌شده" not in error["message"]  # a finished campaign takes no more audience
    root.refresh_from_db()
    assert root.source_target_list_id == tl.id  # the chain keeps its audience


def test_a_list_only_finished_campaigns_used_may_go(workspace, manager):
    tl = make_list(workspace)
    done = make_campaign(workspace, source_target_list=tl, status=CampaignStatus.COMPLETED)
    assert api_client_for(manager, workspace).delete(f"/api/v1/target-lists/{tl.id}").status_code == 204
    done.refresh_from_db()
    assert done.source_target_list_id is None


@pytest.mark.parametrize(
    "value", [1, "1"], ids=["number", "string"]
)  # the rule keeps the filter value as the client sent it
def test_deleting_the_list_of_an_auto_enroll_rule_is_refused(workspace, manager, value):
    tl = make_list(workspace)
    campaign = make_campaign(workspace, name="خوش‌آمد", status=CampaignStatus.ACTIVE)
    AutoEnrollRule.objects.create(
        workspace=workspace, campaign=campaign, filters={"list": tl.id if value == 1 else str(tl.id)}
    )
    response = api_client_for(manager, workspace).delete(f"/api/v1/target-lists/{tl.id}")
    assert response.status_code == 409
    assert response.json()["error"]["details"]["campaigns"] == [{"id": campaign.id, "name": "خوش‌آمد"}]
    assert TargetList.objects.filter(pk=tl.id).exists()


def test_another_workspaces_campaign_does_not_hold_the_list(workspace, other_workspace, manager):
    tl = make_list(workspace)
    make_campaign(other_workspace, status=CampaignStatus.ACTIVE, source_target_list=tl)
    foreign_rule_campaign = make_campaign(other_workspace, status=CampaignStatus.ACTIVE)
    AutoEnrollRule.objects.create(workspace=other_workspace, campaign=foreign_rule_campaign, filters={"list": tl.id})
    assert api_client_for(manager, workspace).delete(f"/api/v1/target-lists/{tl.id}").status_code == 204


def test_admin_delete_page_names_the_campaigns_and_deletes_nothing(client, workspace, manager):
    manager.is_staff = True
    manager.save(update_fields=["is_staff"])
    manager.user_permissions.set(Permission.objects.filter(codename__endswith="_targetlist"))
    tl = make_list(workspace, name="مشتریان تهران")
    make_campaign(workspace, name="ریشه ماهانه", source_target_list=tl, status=CampaignStatus.ACTIVE)
    client.force_login(manager)
    url = f"/admin/campaigns/targetlist/{tl.id}/delete/"

    page = client.get(url).content.decode()
    assert "این فهرست مخاطبان کمپین‌های «ریشه ماهانه» است و حذف نمی‌شود" in page
    assert 'type="submit"' not in page.split('id="content"')[1]  # no confirmation button

    client.post(url, {"post": "yes"})
    bulk = client.post(
        "/admin/campaigns/targetlist/", {"action": "delete_selected", "_selected_action": [tl.id], "post": "yes"}
    )
    assert "«ریشه ماهانه»" in bulk.content.decode()
    assert TargetList.objects.filter(pk=tl.id).exists()


# --------------------------------------------------------------------------- counts of what the actor sees
def test_operator_counts_only_the_targets_they_see(workspace, operator, manager):
    tl = make_list(workspace)
    for target in (make_target(workspace, owner=operator), make_target(workspace), make_target(workspace)):
        target.lists.add(tl)
    as_operator = api_client_for(operator, workspace)
    assert as_operator.get(f"/api/v1/target-lists/{tl.id}").json()["target_count"] == 1
    assert as_operator.get("/api/v1/target-lists").json()["results"][0]["target_count"] == 1
    assert api_client_for(manager, workspace).get(f"/api/v1/target-lists/{tl.id}").json()["target_count"] == 3


# --------------------------------------------------------------------------- a taken number names no hidden target
def test_operator_hears_only_that_a_number_is_taken(workspace, operator):
    hidden = make_target(workspace, name="مشتری محرمانه", mobile="+989121111111")
    client = api_client_for(operator, workspace)

    created = client.post("/api/v1/targets", {"name": "نو", "mobile": "09121111111"}, format="json")
    mine = make_target(workspace, owner=operator, mobile="+989122222222")
    updated = client.patch(f"/api/v1/targets/{mine.id}", {"mobile": "09121111111"}, format="json")

    for response in (created, updated):
        assert response.status_code == 400
        details = response.json()["error"]["details"]
        assert details["mobile"] == ["این شماره قبلاً برای مخاطب دیگری ثبت شده است."]
        assert "duplicate_of" not in details
        assert "مشتری محرمانه" not in response.content.decode() and str(hidden.id) not in str(details)


def test_operator_is_told_which_of_their_own_targets_has_the_number(workspace, operator):
    own = make_target(workspace, name="مشتری خودم", owner=operator, mobile="+989121111111")
    response = api_client_for(operator, workspace).post(
        "/api/v1/targets", {"name": "نو", "mobile": "09121111111"}, format="json"
    )
    details = response.json()["error"]["details"]
    assert "مشتری خودم" in details["mobile"][0]
    assert details["duplicate_of"] == {"mobile": own.id}


def test_target_page_names_no_hidden_target_either(client, workspace, operator):
    make_target(workspace, name="مشتری محرمانه", mobile="+989121111111")
    client.force_login(operator)
    page = client.post("/targets/new/", {"name": "نو", "mobile": "09121111111", "status": "new", "priority": 0})
    html = page.content.decode()
    assert "این شماره قبلاً برای مخاطب دیگری ثبت شده است." in html
    assert "مشتری محرمانه" not in html
