"""Browser API: campaign creation through POST /api/v1/campaigns, CRUD with write-only secrets, tasks, isolation."""

import pytest

from campaigns.choices import Role
from workers.choices import ErrorCode, PlatformStatus, SessionStatus, TaskStatus
from workers.models import ActionConfig, BrowserAccount, BrowserTask, CampaignPlatform, Proxy
from workers.services import creation
from workers.services.dispatch import dispatch_due_tasks
from workers.services.results import result_apply

from ..api_base import TenantIsolationCases
from ..conftest import api_client_for, make_actor, make_member
from .conftest import LIKE_STEPS, LOGIN_CHECK, make_account, make_browser_campaign, make_proxy

LINK = "http://127.0.0.1:9/post/1"


def seed_body(accounts, **extra):
    return {
        "kind": "browser",
        "name": "لایک پست",
        "platform": "demo",
        "accounts": [a.pk for a in accounts],
        "target_links": [LINK],
        "content_template": "",
        "action": "like",
        "start_date": "2026-01-01T00:00:00Z",
        "steps": LIKE_STEPS,
        "login_check": LOGIN_CHECK,
        **extra,
    }


@pytest.mark.django_db
class TestCampaignCreateApi:
    def test_seed_body_creates_campaign_platform_and_metadata(self, api, workspace):
        accounts = [make_account(workspace) for _ in range(3)]
        response = api.post("/api/v1/campaigns", seed_body(accounts), format="json")
        assert response.status_code == 201, response.content
        body = response.json()
        assert body["kind"] == "browser" and body["status"] == "active"
        platform = CampaignPlatform.objects.get(campaign_id=body["id"])
        assert platform.metadata["account_ids"] == [a.pk for a in accounts]
        assert platform.metadata["target_links"] == [LINK]

    def test_validation_errors_use_the_envelope(self, api, workspace):
        response = api.post("/api/v1/campaigns", seed_body([], target_links=["not a url"]), format="json")
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == "VALIDATION_ERROR"
        assert {"accounts", "target_links"} <= set(error["details"])

    def test_other_workspace_accounts_are_account_not_found(self, api, other_workspace):
        foreign = make_account(other_workspace)
        response = api.post("/api/v1/campaigns", seed_body([foreign]), format="json")
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "ACCOUNT_NOT_FOUND"
        assert not CampaignPlatform.objects.exists()

    def test_bad_steps_are_invalid_steps(self, api, workspace):
        body = seed_body([make_account(workspace)], steps=[{"action": "evaluate", "script": "x"}])
        response = api.post("/api/v1/campaigns", body, format="json")
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "INVALID_STEPS"

    def test_viewer_cannot_create(self, workspace):
        viewer = make_member(workspace, Role.VIEWER)
        client = api_client_for(viewer, workspace)
        response = client.post("/api/v1/campaigns", seed_body([make_account(workspace)]), format="json")
        assert response.status_code == 403


@pytest.mark.django_db
class TestAccountsAndProxiesApi:
    def test_cookies_are_write_only(self, api):
        response = api.post(
            "/api/v1/browser/accounts",
            {"label": "a", "platform": "demo", "cookies": "session=valid-secret", "cookie_domain": "127.0.0.1"},
            format="json",
        )
        assert response.status_code == 201, response.content
        body = response.json()
        assert "cookies" not in body and body["has_cookies"] is True
        assert "valid-secret" not in response.content.decode()
        listed = api.get("/api/v1/browser/accounts").content.decode()
        assert "valid-secret" not in listed
        assert BrowserAccount.objects.get(pk=body["id"]).cookies == "session=valid-secret"

    def test_new_cookies_reactivate_an_expired_account(self, api, workspace):
        account = make_account(workspace, session_status=SessionStatus.EXPIRED)
        response = api.patch(f"/api/v1/browser/accounts/{account.pk}", {"cookies": "session=valid-new"}, format="json")
        assert response.status_code == 200
        assert response.json()["session_status"] == "active"

    def test_proxy_password_is_write_only_and_socks5_auth_is_refused(self, api):
        response = api.post(
            "/api/v1/browser/proxies",
            {"host": "127.0.0.1", "port": 3128, "username": "u", "password": "proxy-secret"},
            format="json",
        )
        assert response.status_code == 201
        assert "password" not in response.json() and response.json()["has_password"] is True
        assert "proxy-secret" not in api.get("/api/v1/browser/proxies").content.decode()
        socks = api.post(
            "/api/v1/browser/proxies",
            {"host": "127.0.0.1", "port": 1080, "protocol": "socks5", "username": "u", "password": "p"},
            format="json",
        )
        assert socks.status_code == 400 and socks.json()["error"]["code"] == "PROXY_NOT_SUPPORTED"

    def test_proxy_reset_brings_it_back(self, api, workspace):
        proxy = make_proxy(workspace, is_available=False, error_score=3)
        response = api.post(f"/api/v1/browser/proxies/{proxy.pk}/reset")
        assert response.status_code == 200
        assert response.json()["is_available"] is True and response.json()["error_score"] == 0

    def test_account_with_a_task_in_flight_cannot_be_deleted(
        self, api, actor, workspace, django_capture_on_commit_callbacks, published
    ):
        account = make_account(workspace)
        make_browser_campaign(actor, accounts=[account], links=[LINK])
        creation.due_platforms_create_tasks()
        with django_capture_on_commit_callbacks(execute=True):
            dispatch_due_tasks()
        response = api.delete(f"/api/v1/browser/accounts/{account.pk}")
        assert response.status_code == 409 and response.json()["error"]["code"] == "RESOURCE_IN_USE"

    def test_action_config_crud(self, api):
        body = {"platform": "demo", "action_type": "like", "steps": LIKE_STEPS, "login_check": LOGIN_CHECK}
        created = api.post("/api/v1/browser/action-configs", body, format="json")
        assert created.status_code == 201, created.content
        assert api.post("/api/v1/browser/action-configs", body, format="json").status_code == 409
        config_id = created.json()["id"]
        bad = api.patch(f"/api/v1/browser/action-configs/{config_id}", {"steps": [{"action": "nope"}]}, format="json")
        assert bad.status_code == 400
        assert api.delete(f"/api/v1/browser/action-configs/{config_id}").status_code == 204
        assert not ActionConfig.objects.exists()


@pytest.mark.django_db
class TestTasksApi:
    @pytest.fixture
    def campaign(self, actor, workspace, published, django_capture_on_commit_callbacks):
        campaign = make_browser_campaign(
            actor, accounts=[make_account(workspace) for _ in range(3)], links=[LINK], max_attempts=1
        )
        creation.due_platforms_create_tasks()
        with django_capture_on_commit_callbacks(execute=True):
            dispatch_due_tasks()
        first, second = published[:2]
        result_apply(
            message={
                "task_id": first["task_id"],
                "attempt": 1,
                "lease_id": first["lease_id"],
                "status": "completed",
                "result_data": {},
            }
        )
        result_apply(
            message={
                "task_id": second["task_id"],
                "attempt": 1,
                "lease_id": second["lease_id"],
                "status": "failed",
                "error_code": "VERIFY_FAILED",
                "error_reason": "x",
                "result_data": {},
            }
        )
        return campaign

    def test_list_with_filters(self, api, campaign):
        response = api.get("/api/v1/browser/tasks", {"campaign": campaign.pk})
        assert response.status_code == 200 and response.json()["count"] == 3
        failed = api.get("/api/v1/browser/tasks", {"status": "FAILED", "error_code": "VERIFY_FAILED"}).json()
        assert failed["count"] == 1 and failed["results"][0]["error_code"] == "VERIFY_FAILED"
        assert api.get("/api/v1/browser/tasks", {"status": "NOPE"}).status_code == 400

    def test_statistics_and_retry(self, api, campaign):
        stats = api.get(f"/api/v1/browser/campaigns/{campaign.pk}/statistics").json()
        assert (stats["total"], stats["completed"], stats["failed"], stats["summary"]) == (3, 1, 1, "1/3")
        assert api.get(f"/api/v1/browser/campaigns/{campaign.pk}/statistics", {"live": "1"}).json()["summary"] == "1/3"
        task = BrowserTask.objects.get(status=TaskStatus.FAILED)
        response = api.post(f"/api/v1/browser/tasks/{task.pk}/retry")
        assert response.status_code == 200 and response.json()["status"] == "PENDING"
        again = api.post(f"/api/v1/browser/tasks/{task.pk}/retry")
        assert again.status_code == 409 and again.json()["error"]["code"] == "TASK_NOT_RETRYABLE"

    def test_pause_and_resume_platform(self, api, campaign):
        platform = campaign.browser_platforms.get()
        assert api.post(f"/api/v1/browser/platforms/{platform.pk}/pause").json()["status"] == PlatformStatus.PAUSED
        again = api.post(f"/api/v1/browser/platforms/{platform.pk}/pause")
        assert again.status_code == 409 and again.json()["error"]["code"] == "INVALID_TRANSITION"
        assert api.post(f"/api/v1/browser/platforms/{platform.pk}/resume").json()["status"] == PlatformStatus.RUNNING

    def test_statistics_of_unknown_campaign_is_campaign_not_found(self, api):
        response = api.get("/api/v1/browser/campaigns/999999/statistics")
        assert response.status_code == 404 and response.json()["error"]["code"] == "CAMPAIGN_NOT_FOUND"


# --- tenant isolation: every endpoint ---------------------------------------------------------
class TestAccountIsolation(TenantIsolationCases):
    list_url = "/api/v1/browser/accounts"
    detail_url = "/api/v1/browser/accounts/{id}"
    update_payload = {"label": "دزدیده", "cookies": "session=stolen"}

    def make(self, workspace):
        return make_account(workspace)

    def test_status_of_other_workspace_account_is_404(self, setup):
        client, own, foreign = setup
        assert client.post(f"/api/v1/browser/accounts/{own.id}/status", {"transition": "disable"}).status_code == 200
        response = client.post(f"/api/v1/browser/accounts/{foreign.id}/status", {"transition": "disable"})
        assert response.status_code == 404
        assert BrowserAccount.objects.get(pk=foreign.pk).session_status == SessionStatus.ACTIVE

    def test_cannot_pin_other_workspace_proxy(self, setup):
        client, own, foreign = setup
        foreign_proxy = make_proxy(foreign.workspace)
        response = client.patch(f"/api/v1/browser/accounts/{own.id}", {"proxy_id": foreign_proxy.pk}, format="json")
        assert response.status_code == 404
        own.refresh_from_db()
        assert own.proxy_id is None


class TestProxyIsolation(TenantIsolationCases):
    list_url = "/api/v1/browser/proxies"
    detail_url = "/api/v1/browser/proxies/{id}"
    update_payload = {"host": "127.0.0.2"}

    def make(self, workspace):
        return make_proxy(workspace)

    def test_reset_other_workspace_proxy_is_404(self, setup):
        client, _own, foreign = setup
        Proxy.objects.filter(pk=foreign.pk).update(is_available=False)
        assert client.post(f"/api/v1/browser/proxies/{foreign.id}/reset").status_code == 404
        assert not Proxy.objects.get(pk=foreign.pk).is_available


class TestActionConfigIsolation(TenantIsolationCases):
    list_url = "/api/v1/browser/action-configs"
    detail_url = "/api/v1/browser/action-configs/{id}"
    update_payload = {"steps": [{"action": "goto"}]}

    def make(self, workspace):
        return ActionConfig.objects.create(workspace=workspace, platform="demo", action_type="like", steps=LIKE_STEPS)


def _campaign_with_task(workspace):
    actor = make_actor(workspace)
    campaign = make_browser_campaign(actor, accounts=[make_account(workspace)], links=[LINK])
    creation.platform_tasks_create(platform_id=campaign.browser_platforms.get().pk)
    return campaign


class TestTaskIsolation(TenantIsolationCases):
    list_url = "/api/v1/browser/tasks"
    detail_url = "/api/v1/browser/tasks/{id}"
    can_delete = False

    def make(self, workspace):
        return BrowserTask.objects.get(campaign=_campaign_with_task(workspace))

    def test_retry_other_workspace_task_is_404(self, setup):
        client, _own, foreign = setup
        BrowserTask.objects.filter(pk=foreign.pk).update(status=TaskStatus.FAILED, error_code=ErrorCode.TIMEOUT)
        assert client.post(f"/api/v1/browser/tasks/{foreign.id}/retry").status_code == 404
        assert BrowserTask.objects.get(pk=foreign.pk).status == TaskStatus.FAILED

    def test_screenshot_of_other_workspace_task_is_404(self, setup):
        from workers.models import BrowserTaskScreenshot

        client, own, foreign = setup
        for task in (own, foreign):
            BrowserTaskScreenshot.objects.create(
                workspace=task.workspace, task=task, png=b"\x89PNG-" + bytes([task.pk % 250])
            )
        response = client.get(f"/api/v1/browser/tasks/{own.id}/screenshot")
        assert response.status_code == 200 and response["Content-Type"] == "image/png"
        assert response.content.startswith(b"\x89PNG-")
        assert client.get(f"/api/v1/browser/tasks/{foreign.id}/screenshot").status_code == 404
        BrowserTaskScreenshot.objects.filter(task=own).delete()
        assert client.get(f"/api/v1/browser/tasks/{own.id}/screenshot").status_code == 404

    def test_filter_by_other_workspace_campaign_is_empty(self, setup):
        client, _own, foreign = setup
        assert client.get(self.list_url, {"campaign": foreign.campaign_id}).json()["count"] == 0


class TestPlatformIsolation(TenantIsolationCases):
    list_url = "/api/v1/browser/platforms"
    detail_url = "/api/v1/browser/platforms/{id}"
    can_delete = False

    def make(self, workspace):
        return _campaign_with_task(workspace).browser_platforms.get()

    def test_retrieve_other_workspace_is_404(self, setup):
        client, own, foreign = setup
        assert client.get(self.detail_url.format(id=own.id)).status_code == 200
        response = client.get(self.detail_url.format(id=foreign.id))
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "PLATFORM_NOT_FOUND"

    def test_pause_resume_other_workspace_platform_is_404(self, setup):
        client, _own, foreign = setup
        assert client.post(f"/api/v1/browser/platforms/{foreign.id}/pause").status_code == 404
        assert client.post(f"/api/v1/browser/platforms/{foreign.id}/resume").status_code == 404
        assert CampaignPlatform.objects.get(pk=foreign.pk).status == PlatformStatus.RUNNING


class TestStatisticsIsolation(TenantIsolationCases):
    detail_url = "/api/v1/browser/campaigns/{id}/statistics"
    can_delete = False

    def make(self, workspace):
        return _campaign_with_task(workspace)

    def test_retrieve_other_workspace_is_404(self, setup):
        client, own, foreign = setup
        assert client.get(self.detail_url.format(id=own.id)).status_code == 200
        response = client.get(self.detail_url.format(id=foreign.id))
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "CAMPAIGN_NOT_FOUND"
