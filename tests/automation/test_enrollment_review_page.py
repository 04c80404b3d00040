"""The enrollment review's heading says what the batch was made from: the list picked on the enroll page by its
name, a filter, or a manual pick."""

import pytest
from django.test import Client

from tests.automation.helpers import end_node, journey, linear_graph, setup_sms, sms_node

from ..conftest import make_list, make_target

pytestmark = pytest.mark.django_db


def _review(client: Client, campaign_id: int, data: dict) -> str:
    response = client.post(f"/automation/campaigns/{campaign_id}/enroll/", data)
    assert response.status_code == 302, response.content
    return client.get(response["Location"]).content.decode()


def test_the_review_names_the_list_it_was_made_from(actor, workspace, owner):
    setup_sms(workspace)
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()), activate=False)
    customers = make_list(workspace, name="مشتریان آزمایش")
    person = make_target(workspace, city="تهران")
    person.lists.add(customers)
    client = Client()
    client.force_login(owner)

    from_list = _review(client, campaign.id, {"mode": "list", "list": customers.id})
    assert "(فهرست «مشتریان آزمایش»،" in from_list and "نتایج فیلتر" not in from_list
    from_filter = _review(client, campaign.id, {"mode": "filter", "city": "تهران"})
    assert "(نتایج فیلتر،" in from_filter
