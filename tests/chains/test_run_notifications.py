"""Who is told when a chain run is skipped (docs/ui.md "Notifications")."""

import pytest
import time_machine

from campaigns.chains.runs.choices import RunStatus, SkipReason
from campaigns.models import Notification
from campaigns.notifications.services import campaign_status_notify

from ..conftest import make_campaign
from .conftest import make_chain
from .runs_helpers import approved_chain, at, root_run, tick

pytestmark = pytest.mark.django_db


def test_a_skipped_root_run_is_notified_once_and_its_skipped_follow_ups_are_not(actor):
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, _ = approved_chain(actor, targets=1)
    nodes["A"].source_target_list.targets.clear()  # emptied after approval (an empty audience blocks approval)
    tick(at(2026, 10, 1, 9, 0))
    tick(at(2026, 10, 1, 9, 5))
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    assert (a10.status, a10.skip_reason) == (RunStatus.SKIPPED, SkipReason.EMPTY_AUDIENCE)
    told = Notification.objects.get(kind="chain_run_skipped")
    assert told.recipient_id == actor.user.id
    assert SkipReason.EMPTY_AUDIENCE.label in told.body
    assert told.link == f"/chains/campaigns/{nodes['A'].id}/runs/"


def test_a_chain_members_start_links_to_its_runs_page_a_standalone_campaigns_to_its_kinds(workspace, owner):
    """The core asks the registered pages (chains: a member's runs page), else the kind's page."""
    nodes = make_chain(workspace, shape="A>B", created_by=owner)
    standalone = make_campaign(workspace, kind="journey", created_by=owner)
    for campaign in (nodes["B"], standalone):
        campaign_status_notify(campaign=campaign, from_status="scheduled", to_status="active")
    links = dict(Notification.objects.filter(kind="campaign_started").values_list("title", "link"))
    assert links[f"کمپین «{nodes['B'].name}» شروع شد"] == f"/chains/campaigns/{nodes['B'].id}/runs/"
    assert links[f"کمپین «{standalone.name}» شروع شد"] == f"/automation/campaigns/{standalone.id}/"
