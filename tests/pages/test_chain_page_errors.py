"""Chain pages turn service errors into page messages (never a 500) and keep the form."""

import pytest

from campaigns.chains.models import ChainApprovalPackage, ChainNode
from campaigns.choices import CampaignStatus, Role

from ..chains.conftest import make_chain, make_group
from ..conftest import make_member, make_workspace

pytestmark = pytest.mark.django_db


@pytest.fixture
def shop():
    return make_workspace("shop")


@pytest.fixture
def manager_client(client, shop):
    client.force_login(make_member(shop, Role.MANAGER, username="mina"))
    return client


def test_submit_of_an_invalid_chain_names_the_node_and_changes_nothing(manager_client, shop):
    group = make_group(shop)
    nodes = make_chain(shop, group)
    ChainNode.objects.filter(pk=nodes["B"].pk).update(chain_action=None)
    response = manager_client.post(
        f"/chains/campaigns/{nodes['A'].id}/submit/",
        {"expected_chain_revision": nodes["A"].chain_revision, "next": f"/chains/groups/{group.id}/"},
        follow=True,
    )
    assert response.status_code == 200
    text = response.content.decode()
    assert "قابل ارسال برای تأیید نیست" in text and nodes["B"].name in text and "اقدامی" in text
    assert not ChainApprovalPackage.objects.exists()
    assert set(ChainNode.objects.filter(root=nodes["A"]).values_list("status", flat=True)) == {CampaignStatus.DRAFT}


def test_stale_chain_revision_on_edit_is_a_form_message(manager_client, shop):
    group = make_group(shop)
    nodes = make_chain(shop, group)
    page = manager_client.get(f"/chains/campaigns/{nodes['B'].id}/edit/")
    assert page.status_code == 200 and 'value="NOT_CONVERTED" checked' in page.content.decode()
    ChainNode.objects.filter(pk=nodes["A"].pk).update(chain_revision=nodes["A"].chain_revision + 1)
    response = manager_client.post(
        f"/chains/campaigns/{nodes['B'].id}/edit/",
        {
            "expected_chain_revision": nodes["A"].chain_revision,
            "name": "B تازه",
            "parent": nodes["A"].id,
            "inherit_type": "CONVERTED",
            "schedule_type": "AFTER_INTERVAL",
            "offset_days": "۳",
            "run_time": "09:00",
            "action_channel": "sms",
            "action_content": "سلام",
            "attribution_window_days": "7",
        },
    )
    assert response.status_code == 400
    assert "تغییر کرده است" in response.content.decode()
    nodes["B"].refresh_from_db()
    assert nodes["B"].name != "B تازه" and nodes["B"].inheritance["type"] == "NOT_CONVERTED"


def test_invalid_child_timing_shows_the_field_error(manager_client, shop):
    group = make_group(shop)
    nodes = make_chain(shop, group)
    response = manager_client.post(
        f"/chains/groups/{group.id}/campaigns/new/",
        {
            f"root_revision_{nodes['A'].id}": nodes["A"].chain_revision,
            "parent": nodes["A"].id,
            "name": "C",
            "inherit_type": "NOT_CONVERTED",
            "schedule_type": "AFTER_INTERVAL",
            "offset_days": "0",
            "run_time": "09:00",
            "action_channel": "sms",
            "action_content": "سلام",
            "attribution_window_days": "7",
        },
    )
    assert response.status_code == 400
    assert "فاصله باید عددی صحیح" in response.content.decode()
    assert not ChainNode.objects.filter(name="C").exists()


def test_persian_digits_in_numeric_inputs_are_read_as_numbers(manager_client, shop):
    group = make_group(shop)
    nodes = make_chain(shop, group)
    response = manager_client.post(
        f"/chains/groups/{group.id}/campaigns/new/",
        {
            f"root_revision_{nodes['A'].id}": nodes["A"].chain_revision,
            "parent": nodes["A"].id,
            "name": "C",
            "inherit_type": "FAILED_DELIVERY",
            "schedule_type": "AFTER_INTERVAL",
            "offset_days": "۳",
            "run_time": "۰۹:۳۰",
            "action_channel": "sms",
            "action_content": "سلام",
            "attribution_window_days": "۵",
        },
    )
    assert response.status_code == 302
    c = ChainNode.objects.get(name="C")
    assert c.inheritance["schedule"] == {"type": "AFTER_INTERVAL", "offset_days": 3, "run_time": "09:30"}
    assert c.attribution_window_days == 5 and c.parent_id == nodes["A"].id


def test_a_root_end_date_that_is_not_a_jalali_date_is_a_field_error(manager_client, shop):
    group = make_group(shop)
    body = {
        "name": "ریشه",
        "when_type": "MONTHLY",
        "when_time": "09:00",
        "when_day": "1",
        "when_end": "1405/13/40",
        "goal_type": "",
        "action_channel": "sms",
        "action_content": "سلام",
        "attribution_window_days": "7",
    }
    response = manager_client.post(f"/chains/groups/{group.id}/campaigns/new/", body)
    assert response.status_code == 400
    assert "این تاریخ وجود ندارد" in response.content.decode() or "تاریخ را به شکل" in response.content.decode()
    assert not ChainNode.objects.filter(workspace=shop, name="ریشه").exists()


def test_a_root_whose_goal_is_a_reply_with_words(manager_client, shop):
    group = make_group(shop)
    body = {
        "name": "ریشه پاسخ",
        "when_type": "MONTHLY",
        "when_time": "09:00",
        "when_day": "1",
        "goal_type": "REPLIED",
        "goal_words": "بله، آره ,  ",
        "action_channel": "sms",
        "action_content": "سلام",
        "attribution_window_days": "7",
    }
    response = manager_client.post(f"/chains/groups/{group.id}/campaigns/new/", body)
    assert response.status_code == 302, response.content.decode()[:500]
    root = ChainNode.objects.get(workspace=shop, name="ریشه پاسخ")
    assert root.goal == {"type": "REPLIED", "words": ["بله", "آره"]}
    page = manager_client.get(f"/chains/campaigns/{root.id}/edit/").content.decode()
    assert 'value="REPLIED" selected' in page and 'value="بله، آره"' in page
    body |= {"name": "ریشه بد", "goal_words": "x" * 41}
    response = manager_client.post(f"/chains/groups/{group.id}/campaigns/new/", body)
    assert response.status_code == 400 and "هر کلمه حداکثر" in response.content.decode()
    assert not ChainNode.objects.filter(workspace=shop, name="ریشه بد").exists()
