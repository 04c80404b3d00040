"""Write-only secrets stay with the destination they were stored for (API, admin, dispatch payload)."""

import pytest
from django.urls import reverse

from workers.models import BrowserAccount, Proxy

from .conftest import make_account, make_proxy

pytestmark = pytest.mark.django_db


def _proxy_form(workspace, **fields):
    base = {"workspace": workspace.pk, "label": "p", "protocol": "http", "host": "127.0.0.1", "port": 3128}
    return {**base, "username": "u", "password": "", "is_available": "on", **fields}


class TestProxyDestination:
    def test_moving_a_proxy_without_a_new_password_is_refused_and_keeps_it_in_place(self, api, workspace):
        proxy = make_proxy(workspace, username="u", password="stored-secret")
        response = api.patch(f"/api/v1/browser/proxies/{proxy.pk}", {"host": "127.0.0.2"}, format="json")
        assert response.status_code == 400
        assert "password" in response.json()["error"]["details"]
        proxy.refresh_from_db()
        assert (proxy.host, proxy.password) == ("127.0.0.1", "stored-secret")
        response = api.patch(f"/api/v1/browser/proxies/{proxy.pk}", {"port": 9}, format="json")
        assert response.status_code == 400

    def test_moving_a_proxy_with_a_new_or_empty_password_works(self, api, workspace):
        proxy = make_proxy(workspace, username="u", password="stored-secret")
        response = api.patch(f"/api/v1/browser/proxies/{proxy.pk}", {"port": 9, "password": ""}, format="json")
        assert response.status_code == 200, response.content
        assert response.json()["has_password"] is False
        assert Proxy.objects.get(pk=proxy.pk).password == ""

    def test_renaming_keeps_the_password(self, api, workspace):
        proxy = make_proxy(workspace, username="u", password="stored-secret")
        response = api.patch(f"/api/v1/browser/proxies/{proxy.pk}", {"label": "new", "port": 3128}, format="json")
        assert response.status_code == 200
        assert Proxy.objects.get(pk=proxy.pk).password == "stored-secret"

    def test_admin_refuses_a_new_host_with_the_old_password(self, admin_client, workspace):
        proxy = make_proxy(workspace, username="u", password="stored-secret")
        url = reverse("admin:workers_proxy_change", args=[proxy.pk])
        response = admin_client.post(url, _proxy_form(workspace, host="127.0.0.2"))
        assert response.status_code == 200  # the form again, with the error
        assert Proxy.objects.get(pk=proxy.pk).host == "127.0.0.1"
        response = admin_client.post(url, _proxy_form(workspace, host="127.0.0.1", port=9, password="fresh"))
        assert response.status_code == 302
        proxy.refresh_from_db()
        assert (proxy.port, proxy.password) == (9, "fresh")


class TestCookieSite:
    def test_cookies_are_counted_and_bound_to_the_site(self, api):
        body = {"label": "a", "platform": "demo", "cookies": "a=1; b=2", "cookie_domain": "Example.com"}
        response = api.post("/api/v1/browser/accounts", body, format="json")
        assert response.status_code == 201, response.content
        assert response.json()["cookie_domain"] == "example.com" and response.json()["cookie_count"] == 2

    def test_cookies_need_a_site_and_foreign_domains_are_refused(self, api):
        response = api.post(
            "/api/v1/browser/accounts", {"label": "a", "platform": "demo", "cookies": "a=1"}, format="json"
        )
        assert response.status_code == 400 and "cookies" in response.json()["error"]["details"]
        foreign = '[{"name": "s", "value": "v", "domain": "evil.test"}]'
        response = api.post(
            "/api/v1/browser/accounts",
            {"label": "a", "platform": "demo", "cookies": foreign, "cookie_domain": "example.com"},
            format="json",
        )
        assert response.status_code == 400 and "cookies" in response.json()["error"]["details"]

    def test_moving_cookies_to_another_site_needs_new_cookies(self, api, workspace):
        account = make_account(workspace, cookies="session=valid-stored", cookie_domain="example.com")
        response = api.patch(f"/api/v1/browser/accounts/{account.pk}", {"cookie_domain": "evil.test"}, format="json")
        assert response.status_code == 400 and "cookies" in response.json()["error"]["details"]
        assert BrowserAccount.objects.get(pk=account.pk).cookie_domain == "example.com"
        response = api.patch(
            f"/api/v1/browser/accounts/{account.pk}",
            {"cookie_domain": "other.test", "cookies": "session=valid-new"},
            format="json",
        )
        assert response.status_code == 200 and response.json()["cookie_domain"] == "other.test"

    def test_admin_refuses_a_new_site_with_the_old_cookies(self, admin_client, workspace):
        account = make_account(workspace, cookies="session=valid-stored", cookie_domain="example.com")
        url = reverse("admin:workers_browseraccount_change", args=[account.pk])
        form = {
            "workspace": workspace.pk,
            "label": account.label,
            "platform": "demo",
            "cookie_domain": "evil.test",
            "cookies": "",
            "user_agent": "",
            "viewport_width": 1280,
            "viewport_height": 800,
        }
        assert admin_client.post(url, form).status_code == 200  # the form again, with the error
        assert BrowserAccount.objects.get(pk=account.pk).cookie_domain == "example.com"
        assert admin_client.post(url, {**form, "cookies": "session=valid-new"}).status_code == 302
        account.refresh_from_db()
        assert (account.cookie_domain, account.cookies, account.cookie_count) == ("evil.test", "session=valid-new", 1)

    def test_the_payload_names_the_accounts_site_not_the_link(self, actor, workspace):
        from workers.dispatch import build_payload

        account = make_account(workspace, cookie_domain="example.com")
        task = type("T", (), {"pk": 1, "attempt_count": 1, "lease_id": None, "needs_verification": False})()
        task.workspace_id, task.campaign_id, task.link, task.action_type, task.server = (
            workspace.pk,
            1,
            "https://attacker.test/x",
            "like",
            "browser",
        )
        payload = build_payload(
            task=task, account=account, proxy=None, metadata={}, lease_expires_at=account.created_at
        )
        assert payload["account"]["cookie_domain"] == "example.com"
