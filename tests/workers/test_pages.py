"""Persian pages: the campaign list shows "N/total", the detail lists tasks; other workspaces are 404."""

import pytest

from workers.models import BrowserTask
from workers.services import creation

from ..conftest import make_actor, make_workspace
from .conftest import make_account, make_browser_campaign

pytestmark = pytest.mark.django_db


def test_campaign_pages(client, owner, actor, workspace):
    campaign = make_browser_campaign(
        actor,
        accounts=[make_account(workspace) for _ in range(2)],
        links=["http://127.0.0.1:9/post/1"],
        name="کمپین لایک",
    )
    creation.due_platforms_create_tasks()
    BrowserTask.objects.filter(campaign=campaign).update(status="FAILED", error_code="VERIFY_FAILED")
    client.force_login(owner)
    listing = client.get("/browser/")
    assert listing.status_code == 200
    assert "کمپین لایک" in listing.content.decode() and "۰/۲" in listing.content.decode()
    detail = client.get(f"/browser/campaigns/{campaign.pk}/", {"status": "FAILED"})
    assert detail.status_code == 200
    body = detail.content.decode()
    assert body.count("تأیید انجام کار ناموفق") == 3  # two task rows and their failure group
    assert "۲ کار" in body  # the group's count

    foreign_ws = make_workspace()
    foreign = make_browser_campaign(
        make_actor(foreign_ws), accounts=[make_account(foreign_ws)], links=["http://127.0.0.1:9/post/1"]
    )
    assert client.get(f"/browser/campaigns/{foreign.pk}/").status_code == 404
    assert "کمپین لایک" in client.get("/browser/").content.decode()
    assert foreign.name not in client.get("/browser/").content.decode()
