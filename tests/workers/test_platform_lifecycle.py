"""A browser platform's start and completion go through its FSM and are recorded in the campaign's history."""

import pytest
from django.db.models import F

from workers.choices import BrowserEventType, PlatformStatus, TaskStatus
from workers.models import BrowserEvent, BrowserTask, CampaignPlatform
from workers.services import creation, statistics
from workers.services.lifecycle import platform_complete

from .conftest import make_account, make_browser_campaign

LINK = "http://127.0.0.1:9/post/1"
pytestmark = pytest.mark.django_db


def history(campaign) -> list[str]:
    rows = BrowserEvent.objects.filter(campaign=campaign, type=BrowserEventType.PLATFORM_STATUS).order_by("id")
    return [event.message for event in rows]


def test_a_platform_starts_and_completes_with_an_event_each(actor, workspace):
    campaign = make_browser_campaign(actor, accounts=[make_account(workspace) for _ in range(2)], links=[LINK])
    platform = campaign.browser_platforms.get()
    assert creation.due_platforms_create_tasks() == 2
    platform.refresh_from_db()
    assert (platform.status, platform.is_tasks_created, platform.creation_cursor) == (PlatformStatus.RUNNING, True, 2)
    assert platform.revision == 2  # one conditional UPDATE
    assert history(campaign) == ["pending → running"]

    statistics.statistics_refresh()  # tasks still open: nothing completes
    assert history(campaign) == ["pending → running"]
    BrowserTask.objects.filter(platform=platform).update(status=TaskStatus.COMPLETED)
    statistics.statistics_refresh()
    platform.refresh_from_db()
    assert platform.status == PlatformStatus.COMPLETED
    assert history(campaign) == ["pending → running", "running → completed"]


def test_a_platform_that_changed_since_the_recount_read_it_is_not_completed(actor, workspace):
    campaign = make_browser_campaign(actor, accounts=[make_account(workspace)], links=[LINK])
    creation.due_platforms_create_tasks()
    platform = campaign.browser_platforms.get()
    read = platform.revision
    CampaignPlatform.objects.filter(pk=platform.pk).update(revision=F("revision") + 1)  # a pause meanwhile
    assert platform_complete(platform_id=platform.pk, revision=read, now=platform.updated_at) is False
    platform.refresh_from_db()
    assert platform.status == PlatformStatus.RUNNING
    assert history(campaign) == ["pending → running"]
