"""A browser platform's status: its own transitions (start, complete) and what a browser campaign's status
change does to its platforms (the browser kind's lifecycle effects). Every change goes through the platform's
FSM (``fsm_apply``: one conditional UPDATE) and writes its ``platform_status`` event in the same transaction.

* start → pending becomes running when the last chunk of its tasks is in (``workers.services.creation``);
* complete → running becomes completed when none of its tasks is pending or with a worker any more
  (``workers.services.statistics``, the periodic recount).

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


def platform_start(*, platform: CampaignPlatform, now: datetime, values: dict) -> bool:
    """Its last creation chunk is in: pending → running, with the chunk's progress (``values``, plain column
    values) in the same UPDATE. The caller holds the row lock; False when the platform was not pending."""
    recorder = events.platform_status_recorder(platform)
    return fsm_apply(platform, "start", now=now, values=values, strict=False, on_applied=recorder)


def platform_complete(*, platform_id: int, revision: int, now: datetime) -> bool:
    """No task of the running platform is pending or with a worker: running → completed. A lost race (the
    platform changed since ``revision`` was read) changes nothing; the next recount looks again."""
    platform = CampaignPlatform.objects.filter(pk=platform_id, revision=revision).first()
    if platform is None or platform.status != PlatformStatus.RUNNING:
        return False
    recorder = events.platform_status_recorder(platform)
    return fsm_apply(platform, "complete", now=now, strict=False, on_applied=recorder)


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
