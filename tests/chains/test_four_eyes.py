"""Four-eyes approval: the submitter of a package may not approve it when the workspace says so; the package
names who may; approval requested / approved / rejected notify the right people once."""

import pytest
from django.core import mail
from django.test import TestCase

from campaigns.approval_selectors import FOUR_EYES_SETTING
from campaigns.chains.choices import PackageStatus
from campaigns.chains.models import ChainApprovalPackage, ChainNode
from campaigns.choices import CampaignStatus, Role
from campaigns.models import Notification
from campaigns.services.workspaces import workspace_create

from ..conftest import api_client_for, make_campaign, make_member, make_workspace
from .conftest import make_chain, make_group

pytestmark = pytest.mark.django_db


@pytest.fixture
def shop():
    return make_workspace("shop", settings={FOUR_EYES_SETTING: True, "notifications_email": True})


@pytest.fixture
def people(shop):
    mina = make_member(shop, Role.OWNER, username="mina")
    mina.email = "mina@example.com"
    mina.save()
    return {"mina": mina, "ali": make_member(shop, Role.ADMIN, username="ali"), "reza": make_member(shop, Role.MANAGER)}


def submit(api, root):
    body = {"expected_chain_revision": ChainNode.objects.get(pk=root.id).chain_revision}
    with TestCase.captureOnCommitCallbacks(execute=True):
        response = api.post(f"/api/v1/campaign/{root.id}/submit", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()["package"]


def decide(api, package, action, **extra):
    body = {"expected_submitted_revision": package["submitted_revision"], **extra}
    with TestCase.captureOnCommitCallbacks(execute=True):
        return api.post(f"/api/v1/campaign-chain-approvals/{package['id']}/{action}", body, format="json")


def test_the_submitter_gets_403_and_another_approver_approves(shop, people):
    root = make_chain(shop, make_group(shop))["A"]
    mina, ali = api_client_for(people["mina"], shop), api_client_for(people["ali"], shop)
    package = submit(mina, root)
    assert package["submitted_by_id"] == people["mina"].id
    assert package["approver_ids"] == [people["ali"].id]  # the manager cannot approve, the submitter may not

    refused = decide(mina, package, "approve")
    assert refused.status_code == 403
    error = refused.json()["error"]
    assert error["code"] == "SUBMITTER_CANNOT_APPROVE" and "فرستنده بسته" in error["message"]
    assert ChainApprovalPackage.objects.get(pk=package["id"]).status == PackageStatus.SUBMITTED

    approved = decide(ali, package, "approve")
    assert approved.status_code == 200, approved.content
    assert approved.json()["decided_by_id"] == people["ali"].id
    assert ChainNode.objects.get(pk=root.id).status == CampaignStatus.SCHEDULED


def test_without_the_setting_one_person_may_submit_and_approve(people):
    solo = make_workspace("solo")
    owner = make_member(solo, Role.OWNER)
    root = make_chain(solo, make_group(solo))["A"]
    api = api_client_for(owner, solo)
    package = submit(api, root)
    assert decide(api, package, "approve").status_code == 200


def test_new_workspaces_have_four_eyes_on():
    workspace = workspace_create(name="تازه", slug="fresh")
    assert workspace.settings[FOUR_EYES_SETTING] is True


def test_requested_approved_and_rejected_notify_the_right_people_once(shop, people):
    group = make_group(shop)
    root = make_chain(shop, group)["A"]
    mina, ali = api_client_for(people["mina"], shop), api_client_for(people["ali"], shop)
    package = submit(mina, root)
    requested = Notification.objects.filter(kind="chain_package_requested")
    assert list(requested.values_list("recipient_id", flat=True)) == [people["ali"].id]
    assert requested.get().link == f"/chains/approvals/{package['id']}/"

    rejected = decide(ali, package, "reject", reason="متن پیام روشن نیست")
    assert rejected.status_code == 200, rejected.content
    notice = Notification.objects.get(kind="chain_package_rejected")
    assert notice.recipient_id == people["mina"].id and "متن پیام روشن نیست" in notice.body
    assert [m.to for m in mail.outbox if "رد شد" in m.subject] == [["mina@example.com"]]

    again = submit(mina, root)
    assert decide(ali, again, "approve").status_code == 200
    assert list(Notification.objects.filter(kind="chain_package_approved").values_list("recipient_id", flat=True)) == [
        people["mina"].id
    ]
    assert Notification.objects.filter(kind="chain_package_requested").count() == 2  # one per package


def test_single_campaign_approval_has_four_eyes_too(shop, people):
    shop.settings["campaigns_need_approval"] = True
    shop.save()
    campaign = make_campaign(shop)
    mina, ali = api_client_for(people["mina"], shop), api_client_for(people["ali"], shop)
    assert mina.post(f"/api/v1/campaign/{campaign.id}/submit", {}, format="json").status_code == 200
    refused = mina.post(f"/api/v1/campaign/{campaign.id}/approve", {}, format="json")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "SUBMITTER_CANNOT_APPROVE"
    assert ali.post(f"/api/v1/campaign/{campaign.id}/approve", {}, format="json").status_code == 200


def turn_four_eyes_off(client, user):
    """The submitter, an owner, switches four eyes off on the settings page (the checkbox left unchecked)."""
    client.force_login(user)
    assert client.post("/workspace/settings/", {"calendar": "gregorian"}).status_code == 302


def test_turning_four_eyes_off_after_submitting_does_not_let_the_submitter_approve(shop, people, client):
    root = make_chain(shop, make_group(shop))["A"]
    mina = api_client_for(people["mina"], shop)
    package = submit(mina, root)
    assert package["four_eyes"] is True
    turn_four_eyes_off(client, people["mina"])
    shop.refresh_from_db()
    assert shop.settings[FOUR_EYES_SETTING] is False

    refused = decide(mina, package, "approve")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "SUBMITTER_CANNOT_APPROVE"
    body = {"expected_submitted_revision": package["submitted_revision"]}
    page = client.post(f"/chains/approvals/{package['id']}/approve/", body, follow=True)
    assert "فرستنده بسته" in page.content.decode()
    assert ChainApprovalPackage.objects.get(pk=package["id"]).status == PackageStatus.SUBMITTED
    detail = client.get(f"/chains/approvals/{package['id']}/").content.decode()
    assert "تأیید چهارچشمی" in detail  # the page names the rule the package bound

    # A package submitted after the change binds the new rule: the same person may approve it.
    assert decide(mina, package, "withdraw").status_code == 200
    again = submit(mina, root)
    assert again["four_eyes"] is False
    assert decide(mina, again, "approve").status_code == 200


def test_a_single_campaign_keeps_the_rule_it_was_submitted_under(shop, people, client):
    shop.settings["campaigns_need_approval"] = True
    shop.save()
    campaign = make_campaign(shop)
    mina = api_client_for(people["mina"], shop)
    assert mina.post(f"/api/v1/campaign/{campaign.id}/submit", {}, format="json").status_code == 200
    turn_four_eyes_off(client, people["mina"])

    refused = mina.post(f"/api/v1/campaign/{campaign.id}/approve", {}, format="json")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "SUBMITTER_CANNOT_APPROVE"
    campaign.refresh_from_db()
    client.post(f"/chains/campaigns/{campaign.id}/approve/", {"expected_revision": campaign.revision})
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.SUBMITTED
    assert api_client_for(people["ali"], shop).post(f"/api/v1/campaign/{campaign.id}/approve", {}).status_code == 200
