"""The proxy is part of where an account's cookies go: a manager cannot re-route an owner's stored cookies
(API, page, admin), a proxy that carries cookies moves only with the owner/admin role, an account holding
cookies never falls back to the workspace's proxies unless chosen, and bound cookies are ``Secure``."""

import http.server
import os
import threading

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from playwright.sync_api import sync_playwright

from campaigns.choices import Role
from workers import conf
from workers.models import BrowserAccount, BrowserTask, Proxy
from workers.runner import cookies_for
from workers.services import creation
from workers.services.dispatch import dispatch_due_tasks

from ..conftest import api_client_for, make_member
from .conftest import make_account, make_browser_campaign, make_proxy

pytestmark = pytest.mark.django_db

LINK = "http://127.0.0.1:9/post/1"


@pytest.fixture
def manager(workspace):
    return make_member(workspace, Role.MANAGER, username="manager")


@pytest.fixture
def manager_api(manager, workspace):
    return api_client_for(manager, workspace)


@pytest.fixture
def owners_account(workspace):
    return make_account(workspace, cookies="session=owner-secret", cookie_domain="example.com")


class TestMovingTheCookies:
    def test_a_manager_cannot_move_the_owners_cookies_to_their_proxy(self, manager_api, owners_account):
        """The issue's repro: create a proxy, PATCH the owner's account onto it without the cookies."""
        created = manager_api.post("/api/v1/browser/proxies", {"host": "127.0.0.1", "port": 3128}, format="json")
        assert created.status_code == 201, created.content
        proxy_id = created.json()["id"]
        url = f"/api/v1/browser/accounts/{owners_account.pk}"
        refused = manager_api.patch(url, {"proxy_id": proxy_id}, format="json")
        assert refused.status_code == 400 and "cookies" in refused.json()["error"]["details"]
        refused = manager_api.patch(url, {"use_proxy_pool": True}, format="json")
        assert refused.status_code == 400 and "cookies" in refused.json()["error"]["details"]
        account = BrowserAccount.objects.get(pk=owners_account.pk)
        assert (account.proxy_id, account.use_proxy_pool, account.cookies) == (None, False, "session=owner-secret")

        # With cookies of their own the manager may route them anywhere; the owner's are replaced.
        moved = manager_api.patch(url, {"proxy_id": proxy_id, "cookies": "session=managers"}, format="json")
        assert moved.status_code == 200 and moved.json()["proxy_id"] == proxy_id
        assert BrowserAccount.objects.get(pk=owners_account.pk).cookies == "session=managers"

    def test_owners_and_admins_may_move_stored_cookies(self, api, workspace, owners_account):
        proxy = make_proxy(workspace)
        url = f"/api/v1/browser/accounts/{owners_account.pk}"
        moved = api.patch(url, {"proxy_id": proxy.pk, "use_proxy_pool": True}, format="json")
        assert moved.status_code == 200, moved.content
        assert moved.json()["proxy_id"] == proxy.pk and moved.json()["use_proxy_pool"] is True
        admin = api_client_for(make_member(workspace, Role.ADMIN), workspace)
        assert admin.patch(url, {"proxy_id": None}, format="json").status_code == 200

    def test_an_account_without_cookies_moves_freely(self, manager_api, workspace):
        account = make_account(workspace, cookies="", cookie_domain="example.com")
        proxy = make_proxy(workspace)
        response = manager_api.patch(f"/api/v1/browser/accounts/{account.pk}", {"proxy_id": proxy.pk}, format="json")
        assert response.status_code == 200

    def test_the_page_form_refuses_the_manager(self, client, manager, workspace, owners_account):
        proxy = make_proxy(workspace)
        client.force_login(manager)
        form = {
            "label": owners_account.label,
            "platform": "demo",
            "cookie_domain": "example.com",
            "cookies": "",
            "user_agent": "",
            "viewport_width": 1280,
            "viewport_height": 800,
            "proxy": proxy.pk,
        }
        url = reverse("browser-account-edit", args=[owners_account.pk])
        response = client.post(url, form)
        assert response.status_code == 400 and "کوکی‌ها را دوباره وارد کنید" in response.content.decode()
        assert BrowserAccount.objects.get(pk=owners_account.pk).proxy_id is None
        assert client.post(url, {**form, "proxy": "", "label": "renamed"}).status_code == 302  # same route: fine
        assert BrowserAccount.objects.get(pk=owners_account.pk).label == "renamed"

    def test_the_admin_refuses_the_manager_and_lets_a_superuser(self, client, admin_client, workspace, manager):
        account = make_account(workspace, cookies="session=owner-secret", cookie_domain="example.com")
        proxy = make_proxy(workspace)
        manager.is_staff = True
        manager.save()
        manager.user_permissions.set(Permission.objects.filter(content_type__app_label="workers"))
        client.force_login(manager)
        url = reverse("admin:workers_browseraccount_change", args=[account.pk])
        form = {
            "workspace": workspace.pk,
            "label": account.label,
            "platform": "demo",
            "cookie_domain": "example.com",
            "cookies": "",
            "user_agent": "",
            "viewport_width": 1280,
            "viewport_height": 800,
            "proxy": proxy.pk,
        }
        assert client.post(url, form).status_code == 200  # the form again, with the error
        assert BrowserAccount.objects.get(pk=account.pk).proxy_id is None
        assert admin_client.post(url, form).status_code == 302
        account.refresh_from_db()
        assert (account.proxy_id, account.cookies) == (proxy.pk, "session=owner-secret")


class TestMovingTheProxy:
    def test_a_proxy_carrying_cookies_moves_only_with_the_owner_or_admin_role(
        self, manager_api, api, workspace, owners_account
    ):
        proxy = make_proxy(workspace)
        BrowserAccount.objects.filter(pk=owners_account.pk).update(proxy=proxy)
        url = f"/api/v1/browser/proxies/{proxy.pk}"
        refused = manager_api.patch(url, {"port": 9}, format="json")
        assert refused.status_code == 400 and "host" in refused.json()["error"]["details"]
        assert Proxy.objects.get(pk=proxy.pk).port == 3128
        assert manager_api.patch(url, {"label": "renamed"}, format="json").status_code == 200
        assert api.patch(url, {"port": 9}, format="json").status_code == 200

    def test_a_pool_proxy_carries_the_cookies_of_accounts_that_chose_the_pool(self, manager_api, workspace):
        proxy = make_proxy(workspace)
        url = f"/api/v1/browser/proxies/{proxy.pk}"
        make_account(workspace, cookie_domain="example.com")  # cookies, not in the pool
        assert manager_api.patch(url, {"port": 9}, format="json").status_code == 200
        make_account(workspace, cookie_domain="example.com", use_proxy_pool=True)
        assert manager_api.patch(url, {"port": 3128}, format="json").status_code == 400


class TestNoPoolFallback:
    def dispatched(self, actor, account, published, capture):
        before = len(published)
        make_browser_campaign(actor, accounts=[account], links=[LINK])
        creation.due_platforms_create_tasks()
        with capture(execute=True):
            dispatch_due_tasks()
        return published[before] if len(published) > before else None

    def test_an_account_with_cookies_goes_out_directly_not_through_a_proxy_nobody_chose(
        self, actor, workspace, published, django_capture_on_commit_callbacks
    ):
        make_proxy(workspace)  # e.g. a manager's proxy: part of the workspace's pool
        payload = self.dispatched(actor, make_account(workspace), published, django_capture_on_commit_callbacks)
        assert payload["proxy"] is None

    def test_the_pool_when_chosen_and_for_accounts_without_cookies(
        self, actor, workspace, published, django_capture_on_commit_callbacks
    ):
        pooled = make_proxy(workspace)
        account = make_account(workspace, use_proxy_pool=True)
        chosen = self.dispatched(actor, account, published, django_capture_on_commit_callbacks)
        assert chosen["proxy"]["id"] == pooled.pk
        account = make_account(workspace, cookies="")
        cookieless = self.dispatched(actor, account, published, django_capture_on_commit_callbacks)
        assert cookieless["proxy"]["id"] == pooled.pk

    def test_an_account_whose_own_proxy_rests_waits_instead_of_taking_the_pool(
        self, actor, workspace, published, django_capture_on_commit_callbacks
    ):
        make_proxy(workspace, port=3129)  # usable pool proxy
        own = make_proxy(workspace, is_available=False)
        account = make_account(workspace, proxy=own)
        assert self.dispatched(actor, account, published, django_capture_on_commit_callbacks) is None
        assert BrowserTask.objects.get(account=account).status == "PENDING"


def test_bound_cookies_are_secure():
    cookies = cookies_for('[{"name": "a", "value": "1", "secure": false}, {"name": "b", "value": "2"}]', "example.com")
    assert [c["secure"] for c in cookies] == [True, True]


@pytest.mark.browser
def test_chromium_sends_bound_cookies_over_https_only_so_an_http_link_carries_none():
    """An ``http://`` link (or goto step, or redirect) to the account's site: the request carries no cookie, so a
    proxy on the way logs none. Loopback hosts count as secure (the local site, tests and the demo keep theirs)."""
    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append((self.headers.get("Host", "").split(":")[0], self.headers.get("Cookie")))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    path = os.environ.get("PLAYWRIGHT_CHROMIUM_PATH", conf.chromium_path())
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=path, args=["--host-resolver-rules=MAP example.test 127.0.0.1"])
            for site in ("example.test", "127.0.0.1"):
                context = browser.new_context()
                context.add_cookies(cookies_for("session=owner-secret", site))
                context.new_page().goto(f"http://{site}:{server.server_address[1]}/post/1")
                context.close()
            browser.close()
    finally:
        server.shutdown()
    cookies = {host: cookie for host, cookie in seen}
    assert cookies["example.test"] is None
    assert cookies["127.0.0.1"] == "session=owner-secret"
