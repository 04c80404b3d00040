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
    accounts = client.get("/browser/accounts/").content.decode()
    assert accounts.count("VERIFY_FAILED") == 2  # each account's last error

    foreign_ws = make_workspace()
    foreign = make_browser_campaign(
        make_actor(foreign_ws), accounts=[make_account(foreign_ws)], links=["http://127.0.0.1:9/post/1"]
    )
    assert client.get(f"/browser/campaigns/{foreign.pk}/").status_code == 404
    assert "کمپین لایک" in client.get("/browser/").content.decode()
    assert foreign.name not in client.get("/browser/").content.decode()


def test_other_workspaces_objects_are_404_on_every_browser_page(client, owner, workspace):
    from .conftest import make_proxy

    foreign_ws = make_workspace()
    campaign = make_browser_campaign(
        make_actor(foreign_ws), accounts=[make_account(foreign_ws)], links=["http://127.0.0.1:9/post/1"]
    )
    account, proxy = make_account(foreign_ws), make_proxy(foreign_ws)
    creation.due_platforms_create_tasks()
    task = BrowserTask.objects.filter(campaign=campaign).first()
    client.force_login(owner)
    for url in (
        f"/browser/campaigns/{campaign.pk}/progress/",
        f"/browser/campaigns/{campaign.pk}/edit/",
        f"/browser/accounts/{account.pk}/",
        f"/browser/proxies/{proxy.pk}/",
        f"/browser/tasks/{task.pk}/screenshot/",
    ):
        assert client.get(url).status_code == 404, url
    for url, data in (
        (f"/browser/campaigns/{campaign.pk}/control/", {"action": "pause"}),
        (f"/browser/accounts/{account.pk}/status/", {"action": "disable"}),
        (f"/browser/proxies/{proxy.pk}/reset/", {}),
    ):
        response = client.post(url, data)
        assert response.status_code in (302, 404), url
    campaign.refresh_from_db()
    account.refresh_from_db()
    assert campaign.status == "active" and account.session_status == "active"  # nothing changed over there


def test_the_progress_part_polls_only_while_the_campaign_runs(client, owner, actor, workspace):
    campaign = make_browser_campaign(actor, accounts=[make_account(workspace)], links=["http://127.0.0.1:9/post/1"])
    client.force_login(owner)
    assert 'hx-trigger="every 5s"' in client.get(f"/browser/campaigns/{campaign.pk}/progress/").content.decode()
    client.post(f"/browser/campaigns/{campaign.pk}/control/", {"action": "cancel"})
    body = client.get(f"/browser/campaigns/{campaign.pk}/progress/").content.decode()
    assert "hx-trigger" not in body and "لغوشده" in body
