"""A journey campaign that starts tells its creator once; pausing and resuming does not (docs/ui.md)."""

import pytest

from automation.services.campaigns import journey_campaign_transition
from campaigns.models import Notification

from .helpers import end_node, journey, linear_graph, setup_sms, sms_node

pytestmark = pytest.mark.django_db


def test_campaign_started_is_notified_once_to_its_creator(actor, workspace):
    setup_sms(workspace)
    campaign = journey(actor, linear_graph(sms_node(), end_node()))
    journey_campaign_transition(actor=actor, campaign_id=campaign.id, action="pause")
    journey_campaign_transition(actor=actor, campaign_id=campaign.id, action="resume")
    started = Notification.objects.filter(kind="campaign_started")
    assert [(n.recipient_id, n.link) for n in started] == [(actor.user.id, f"/automation/campaigns/{campaign.id}/")]
    assert campaign.name in started.get().title
