"""A browser campaign completes with its last platform and its creator is told once (docs/ui.md "Notifications")."""

import pytest

from campaigns.notifications.models import Notification
from workers.choices import ErrorCode
from workers.services import creation, statistics
from workers.services.results import result_apply

from .conftest import make_account, make_browser_campaign
from .test_services import LINK, dispatch, failed, ok


@pytest.mark.django_db
def test_browser_campaign_finished_with_its_platforms_is_notified_once(
    actor, workspace, published, django_capture_on_commit_callbacks
):
    campaign = make_browser_campaign(
        actor, accounts=[make_account(workspace) for _ in range(3)], links=[LINK], max_attempts=1
    )
    creation.due_platforms_create_tasks()
    dispatch(django_capture_on_commit_callbacks)
    result_apply(message=ok(published[0]))
    statistics.statistics_refresh()
    assert not Notification.objects.filter(kind="campaign_finished").exists()  # tasks still open
    result_apply(message=ok(published[1]))
    result_apply(message=failed(published[2], ErrorCode.VERIFY_FAILED))
    statistics.statistics_refresh()
    statistics.statistics_refresh()
    told = Notification.objects.get(kind="campaign_finished")
    assert told.recipient_id == actor.user.id
    assert told.link == f"/browser/campaigns/{campaign.id}/"
    statistics.statistics_refresh()
    assert Notification.objects.filter(kind="campaign_finished").count() == 1
