"""Models: encrypted secrets at rest, FSM transitions, the unique task slot."""

import pytest
from django.db import IntegrityError, connection, transaction

from campaigns.platform.errors import InvalidTransition, StaleRevision
from campaigns.platform.fsm import fsm_apply
from workers.choices import PlatformStatus, SessionStatus, TaskStatus
from workers.models import BrowserAccount, BrowserTask, Proxy

from .conftest import make_account, make_browser_campaign, make_proxy

pytestmark = pytest.mark.django_db


def _raw(table: str, column: str, pk: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {column} FROM {table} WHERE id = %s", [pk])
        return cursor.fetchone()[0]


def test_cookies_and_proxy_password_are_encrypted_at_rest(workspace):
    account = make_account(workspace, cookies="session=valid-secret-cookie")
    proxy = make_proxy(workspace, username="u", password="proxy-secret")
    raw_cookies = _raw("workers_browseraccount", "cookies", account.pk)
    raw_password = _raw("workers_proxy", "password", proxy.pk)
    assert "valid-secret-cookie" not in raw_cookies and raw_cookies.startswith("gAAAA")
    assert "proxy-secret" not in raw_password
    assert BrowserAccount.objects.get(pk=account.pk).cookies == "session=valid-secret-cookie"
    assert Proxy.objects.get(pk=proxy.pk).password == "proxy-secret"


def test_account_session_fsm(workspace):
    account = make_account(workspace)
    fsm_apply(account, "expire", field="session_status")
    assert account.session_status == SessionStatus.EXPIRED
    with pytest.raises(InvalidTransition):
        fsm_apply(account, "expire", field="session_status")
    fsm_apply(account, "reactivate", field="session_status")
    assert account.session_status == SessionStatus.ACTIVE


def test_platform_fsm_lost_race_is_stale(actor, workspace):
    campaign = make_browser_campaign(actor, accounts=[make_account(workspace)], links=["http://127.0.0.1:9/post/1"])
    platform = campaign.browser_platforms.get()
    stale = type(platform).objects.get(pk=platform.pk)
    fsm_apply(platform, "pause")
    assert platform.status == PlatformStatus.PAUSED
    with pytest.raises(StaleRevision):
        fsm_apply(stale, "pause")


def test_task_slot_is_unique(actor, workspace):
    account = make_account(workspace)
    campaign = make_browser_campaign(actor, accounts=[account], links=["http://127.0.0.1:9/post/1"])
    platform = campaign.browser_platforms.get()
    fields = dict(
        workspace=workspace,
        campaign=campaign,
        platform=platform,
        account=account,
        link="http://127.0.0.1:9/post/1",
        action_type="like",
        start_date=platform.start_date,
    )
    BrowserTask.objects.create(**fields)
    with pytest.raises(IntegrityError), transaction.atomic():
        BrowserTask.objects.create(**fields)
    assert BrowserTask.objects.get().status == TaskStatus.PENDING
