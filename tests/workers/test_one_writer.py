"""One writer per rule: staff edits change only the edited columns, never a stale copy of the counters
that dispatch and results change at the same time; every list filter is validated."""

import pytest
from django.db.models import F

from workers.choices import SessionStatus
from workers.models import BrowserAccount, Proxy
from workers.services import accounts

from .conftest import make_account, make_proxy


@pytest.fixture
def concurrent_write(monkeypatch):
    """Run ``write`` right after the service read its row (another service commits in between)."""

    def install(write):
        original = accounts.get_scoped

        def get_scoped_then_write(model, workspace, pk):
            row = original(model, workspace, pk)
            write()
            return row

        monkeypatch.setattr(accounts, "get_scoped", get_scoped_then_write)

    return install


@pytest.mark.django_db
def test_account_edit_and_concurrent_counter_increment_both_survive(actor, workspace, concurrent_write):
    account = make_account(workspace, label="قدیمی")
    rows = BrowserAccount.objects.filter(pk=account.pk)
    # dispatch used the account and results expired its session while staff edited the label
    concurrent_write(
        lambda: rows.update(
            usage_count=F("usage_count") + 1,
            error_score=F("error_score") + 1,
            session_status=SessionStatus.EXPIRED,
            revision=F("revision") + 1,
        )
    )

    accounts.account_update(actor=actor, account_id=account.pk, data={"label": "تازه", "user_agent": "UA/1"})

    account.refresh_from_db()
    assert account.label == "تازه" and account.user_agent == "UA/1"  # the edit
    assert account.usage_count == 1 and account.error_score == 1  # the counters
    assert account.session_status == SessionStatus.EXPIRED and account.revision == 2  # the status change


@pytest.mark.django_db
def test_proxy_edit_and_concurrent_failure_count_both_survive(actor, workspace, concurrent_write):
    proxy = make_proxy(workspace, label="p1")
    concurrent_write(
        lambda: Proxy.objects.filter(pk=proxy.pk).update(
            failure_count=F("failure_count") + 1, error_score=F("error_score") + 1, is_available=False
        )
    )

    accounts.proxy_update(actor=actor, proxy_id=proxy.pk, data={"label": "p2"})

    proxy.refresh_from_db()
    assert proxy.label == "p2"
    assert proxy.failure_count == 1 and proxy.error_score == 1 and proxy.is_available is False


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/browser/accounts?session_status=nope",
        "/api/v1/browser/proxies?is_available=maybe",
        "/api/v1/browser/action-configs?action_type=nope",
        "/api/v1/browser/tasks?status=nope",
        "/api/v1/browser/tasks?campaign=abc",
        "/api/v1/browser/platforms?campaign=abc",
        "/api/v1/browser/platforms?status=nope",
    ],
)
def test_a_bad_filter_value_is_a_validation_error(api, path):
    response = api.get(path)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"


@pytest.mark.django_db
def test_platform_and_action_config_lists_filter(api, actor, workspace):
    from workers.services.action_configs import action_config_create

    from .conftest import LIKE_STEPS, make_browser_campaign

    action_config_create(actor=actor, platform="demo", action_type="like", steps=LIKE_STEPS)
    action_config_create(actor=actor, platform="other", action_type="like", steps=LIKE_STEPS)
    first = make_browser_campaign(actor, accounts=[make_account(workspace)], links=["http://127.0.0.1:9/post/1"])
    make_browser_campaign(actor, accounts=[make_account(workspace)], links=["http://127.0.0.1:9/post/2"])

    configs = api.get("/api/v1/browser/action-configs?platform=other").json()
    assert [c["platform"] for c in configs["results"]] == ["other"]
    platforms = api.get(f"/api/v1/browser/platforms?campaign={first.pk}").json()
    assert [p["campaign_id"] for p in platforms["results"]] == [first.pk]
    make_proxy(workspace, label="up")
    make_proxy(workspace, label="down", is_available=False)
    for value, labels in (("false", ["down"]), ("True", ["up"]), ("", ["down", "up"])):
        proxies = api.get(f"/api/v1/browser/proxies?is_available={value}").json()
        assert sorted(p["label"] for p in proxies["results"]) == labels
