"""The launch check on a draft campaign's dashboard: with nobody to send to it gives no finish time (it used to
say «now», as if something would be sent), with someone it gives the estimate."""

import pytest
from django.test import Client

from automation.services.enrollment import enroll_subjects
from tests.automation.helpers import end_node, journey, linear_graph, setup_sms, sms_node
from tests.conftest import make_target

pytestmark = pytest.mark.django_db


def _finish(client: Client, campaign_id: int) -> str:
    html = client.get(f"/automation/campaigns/{campaign_id}/").content.decode()
    return html.split('data-testid="launch-finish">', 1)[1].split("</dd>", 1)[0]


def test_no_finish_time_when_nothing_will_be_sent(actor, workspace, owner):
    setup_sms(workspace)
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()), activate=False)
    client = Client()
    client.force_login(owner)
    assert "پیامی برای فرستادن نیست" in _finish(client, campaign.id)
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id])
    finish = _finish(client, campaign.id)
    assert "پیامی برای فرستادن نیست" not in finish and "/" in finish  # a Jalali date and time
