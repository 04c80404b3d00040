"""What a browser campaign's status change does to its platforms (the browser kind's lifecycle effects).

``workers.apps`` registers ``BROWSER_EFFECTS`` on the browser kind handler; the campaign lifecycle
(``campaigns.services.lifecycle``) runs them after the status write, in its transaction, whoever changed
the status (a person, the admin, an approval):

* cancel, finish → every platform not completed stops (``stop``: completed, with its event), so the
  campaign page reads finished everywhere and a staff retry cannot bring a task back to a campaign that
  will never run it; tasks still waiting are never dispatched (the dispatcher takes active campaigns only)
  and tasks already with a worker finish and report as usual.

Start, pause and resume need nothing here: the creation and dispatch jobs take only active campaigns, every
minute (a start is seen by the next run).
"""

from __future__ import annotations

from datetime import datetime

from campaigns.models import Campaign
from campaigns.platform.fsm import fsm_apply
from workers import events
from workers.choices import PlatformStatus
from workers.models import CampaignPlatform


def browser_platforms_stop(*, campaign: Campaign, actor, now: datetime) -> int:
    """Stop the campaign's platforms that are not completed (rows locked first: a creation chunk or a
    platform pause in flight is waited for, never lost to). Returns how many stopped."""
    stopped = 0
    waiting = CampaignPlatform.objects.filter(campaign_id=campaign.pk).exclude(status=PlatformStatus.COMPLETED)
    for platform_id in waiting.order_by("pk").values_list("pk", flat=True):
        platform = CampaignPlatform.objects.select_for_update().get(pk=platform_id)
        if platform.status == PlatformStatus.COMPLETED:  # completed by its last result meanwhile
            continue
        fsm_apply(platform, "stop", now=now, on_applied=events.platform_status_recorder(platform, actor))
        stopped += 1
    return stopped


BROWSER_EFFECTS = {"cancel": browser_platforms_stop, "finish": browser_platforms_stop}
