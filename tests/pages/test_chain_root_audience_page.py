"""A chain root's audience edited on the chain page (list and filters), the way the API's PUT changes it."""

import pytest

from campaigns.chains import page_forms as pf
from campaigns.choices import Role, TargetStatus

from ..chains.conftest import make_chain, make_group
from ..conftest import make_list, make_member, make_target, make_workspace

pytestmark = pytest.mark.django_db


@pytest.fixture
def shop():
    return make_workspace("shop")


@pytest.fixture
def manager_client(client, shop):
    client.force_login(make_member(shop, Role.MANAGER, username="mina"))
    return client


def edit_body(campaign, **changes) -> dict:
    """The edit form as the page fills it from the campaign, with ``changes`` typed over it."""
    body = {k: ("on" if v is True else v) for k, v in pf.initial_from_campaign(campaign).items() if v is not False}
    body["expected_chain_revision"] = campaign.chain_revision
    body.update(changes)
    return body


def test_the_edit_page_shows_and_changes_a_roots_list_and_filters(manager_client, shop):
    old, new = make_list(shop, "مشتریان تهران"), make_list(shop, "مشتریان وفادار")
    for city in ("تهران", "تهران", "شیراز"):
        make_target(shop, city=city).lists.add(new)
    make_target(shop).lists.add(old)
    root = make_chain(shop, make_group(shop), source_target_list=old, audience_filters={"city": "تهران"})["A"]
    url = f"/chains/campaigns/{root.id}/edit/"
    shown = manager_client.get(url).content.decode()
    assert f'<option value="{old.id}" selected>' in shown and 'name="aud_city" value="تهران"' in shown

    body = edit_body(root, audience_list=str(new.id), aud_city="شیراز", aud_status=[TargetStatus.NEW])
    response = manager_client.post(url, body)
    assert response.status_code == 302, response.content.decode()[:2000]
    root.refresh_from_db()
    assert root.source_target_list_id == new.id
    assert root.audience_filters == {"city": "شیراز", "status": [TargetStatus.NEW]}
    count = manager_client.post(
        "/chains/audience/count/", {"audience_list": str(new.id), "aud_city": "شیراز"}
    ).content.decode()
    assert "این کمپین به ۱ نفر می‌رسد" in count


def test_another_workspaces_list_is_a_field_error_and_the_audience_stays(manager_client, shop):
    mine = make_list(shop, "مشتریان")
    make_target(shop).lists.add(mine)
    other = make_workspace("other")
    foreign = make_list(other, "بیگانه")
    root = make_chain(shop, make_group(shop), source_target_list=mine)["A"]
    response = manager_client.post(f"/chains/campaigns/{root.id}/edit/", edit_body(root, audience_list=str(foreign.id)))
    assert response.status_code == 400
    assert "فهرست مخاطبان پیدا نشد" in response.content.decode()
    root.refresh_from_db()
    assert root.source_target_list_id == mine.id


def test_the_live_count_of_a_filtered_list_stops_past_the_cap_and_says_so(manager_client, shop, monkeypatch):
    """The form's count is read along the list's members and stops past ``COUNT_CAP`` («بیش از …»); the API's
    stays exact (docs/benchmarks.md "The five live counts")."""
    from campaigns.chains import views

    members = make_list(shop, "مشتریان")
    for city in ("تهران", "تهران", "تهران", "شیراز"):
        make_target(shop, city=city).lists.add(members)
    make_target(shop, city="تهران")  # not in the list
    body = {"audience_list": str(members.id), "aud_city": "تهران"}
    assert "این کمپین به ۳ نفر می‌رسد" in manager_client.post("/chains/audience/count/", body).content.decode()
    monkeypatch.setattr(views, "COUNT_CAP", 2)
    assert "این کمپین به بیش از ۲ نفر می‌رسد" in manager_client.post("/chains/audience/count/", body).content.decode()
