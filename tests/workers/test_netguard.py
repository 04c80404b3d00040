"""Where a browser worker may go: refused at creation, in the worker before navigation and for every
request the page makes (real Chromium), proxies included; viewers do not see proxy details or screenshots.
"""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from campaigns.choices import Role
from workers.choices import ErrorCode
from workers.models import BrowserTaskScreenshot, CampaignPlatform, Proxy
from workers.netguard import AddressNotAllowed, NetGuard, parse_allow_list, refused_kind
from workers.services.accounts import proxy_create
from workers.services.action_configs import action_config_create

from ..conftest import api_client_for, make_member
from .conftest import LIKE_STEPS, LOGIN_CHECK, make_account, make_browser_campaign, make_proxy

METADATA_URL = "http://169.254.169.254/latest/meta-data"


def body(accounts, links, **extra):
    return {
        "kind": "browser",
        "name": "لایک",
        "platform": "demo",
        "accounts": [a.pk for a in accounts],
        "target_links": links,
        "action": "like",
        "steps": LIKE_STEPS,
        **extra,
    }


# --- the rule itself ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("127.1.2.3", "loopback"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.1", "loopback"),  # IPv4-mapped IPv6
        ("::ffff:169.254.169.254", "link-local"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("fd00::1", "private"),
        ("100.64.0.1", "cgnat"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("240.0.0.1", "reserved"),
        ("64:ff9b::7f00:1", "loopback"),  # NAT64 form of 127.0.0.1
        ("2002:7f00:1::", "loopback"),  # 6to4 form of 127.0.0.1
    ],
)
def test_internal_address_forms_are_refused(address, kind):
    assert refused_kind(address) == kind


def test_public_addresses_pass():
    assert refused_kind("93.184.216.34") is None
    assert refused_kind("2606:2800:220:1:248:1893:25c8:1946") is None


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        METADATA_URL,
        "http://[::1]:8766/post/1",
        "http://[::ffff:127.0.0.1]:8766/post/1",
        "http://0x7f000001/",
        "http://2130706433/",
        "http://127.1:8766/post/1",
        "ftp://93.184.216.34/",
        "http://user:pw@93.184.216.34/",
        "javascript:alert(1)",
    ],
)
def test_ipv6_loopback_mapped_and_numeric_forms_are_refused(url):
    with pytest.raises(AddressNotAllowed):
        NetGuard(allowed=parse_allow_list(["127.0.0.1:8766"])).check_url(url)


def test_a_name_is_refused_when_any_of_its_addresses_is_internal():
    guard = NetGuard(allowed=frozenset(), resolver=lambda host, port: ["93.184.216.34", "10.0.0.5"])
    with pytest.raises(AddressNotAllowed) as refused:
        guard.check_url("https://mixed.example/post")
    assert refused.value.kind == "private"


def test_dns_answers_are_cached_per_task_only():
    calls = []

    def resolver(host, port):
        calls.append(host)
        return ["93.184.216.34"]

    first = NetGuard(allowed=frozenset(), resolver=resolver)
    first.check_url("https://site.example/a")
    first.check_url("https://site.example/b")
    NetGuard(allowed=frozenset(), resolver=resolver).check_url("https://site.example/c")
    assert calls == ["site.example", "site.example"]


def test_allow_list_lets_the_demo_host_through(settings):
    settings.BROWSER_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:8766"]
    guard = NetGuard()
    guard.check_url("http://127.0.0.1:8766/post/1")
    with pytest.raises(AddressNotAllowed):
        guard.check_url("http://127.0.0.1:8767/post/1")  # another port of the same host is not allowed


# --- at creation --------------------------------------------------------------------------
@pytest.mark.django_db
class TestRefusedAtCreation:
    def test_file_url_is_refused_at_create(self, api, workspace):
        response = api.post("/api/v1/campaigns", body([make_account(workspace)], ["file:///etc/passwd"]), format="json")
        assert response.status_code == 400
        assert response.json()["success"] is False
        assert not CampaignPlatform.objects.exists()

    def test_metadata_url_is_refused_at_create(self, api, workspace):
        response = api.post("/api/v1/campaigns", body([make_account(workspace)], [METADATA_URL]), format="json")
        assert response.status_code == 400, response.content
        error = response.json()["error"]
        assert error["code"] == "ADDRESS_NOT_ALLOWED"
        assert "نشانی محلی شبکه" in error["details"]["target_links[0]"][0]
        assert not CampaignPlatform.objects.exists()

    def test_loopback_link_outside_the_allow_list_is_refused_at_create(self, api, workspace):
        links = ["http://127.0.0.1:9/post/1", "http://127.0.0.1:5432/"]
        response = api.post("/api/v1/campaigns", body([make_account(workspace)], links), format="json")
        assert response.status_code == 400
        assert set(response.json()["error"]["details"]) == {"target_links[1]"}

    def test_goto_step_to_an_internal_address_is_refused_at_create(self, api, workspace):
        steps = [{"action": "goto", "url": "http://10.0.0.1/admin"}, *LIKE_STEPS[1:]]
        response = api.post(
            "/api/v1/campaigns", body([make_account(workspace)], ["http://127.0.0.1:9/p"], steps=steps), format="json"
        )
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "ADDRESS_NOT_ALLOWED"
        assert set(response.json()["error"]["details"]) == {"steps[0]"}

    def test_templated_goto_is_checked_after_rendering_with_each_link(self, api, workspace):
        steps = [{"action": "goto", "url": "{link}"}, *LIKE_STEPS[1:]]
        ok = api.post(
            "/api/v1/campaigns", body([make_account(workspace)], ["http://127.0.0.1:9/p"], steps=steps), format="json"
        )
        assert ok.status_code == 201, ok.content
        config = api.post(
            "/api/v1/browser/action-configs",
            {"platform": "demo", "action_type": "visit", "steps": [{"action": "goto", "url": METADATA_URL}]},
            format="json",
        )
        assert config.status_code == 400
        assert config.json()["error"]["code"] == "ADDRESS_NOT_ALLOWED"

    def test_private_proxy_host_is_refused(self, api):
        response = api.post("/api/v1/browser/proxies", {"host": "192.168.1.10", "port": 3128}, format="json")
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "ADDRESS_NOT_ALLOWED"
        assert "host" in response.json()["error"]["details"]
        metadata = api.post("/api/v1/browser/proxies", {"host": "169.254.169.254", "port": 80}, format="json")
        assert metadata.status_code == 400
        assert not Proxy.objects.exists()

    def test_private_proxy_host_is_refused_on_update_and_in_the_model(self, api, actor, workspace):
        proxy = proxy_create(actor=actor, host="127.0.0.1", port=3128)  # allow-listed in tests
        response = api.patch(f"/api/v1/browser/proxies/{proxy.pk}", {"host": "10.0.0.7"}, format="json")
        assert response.status_code == 400
        assert Proxy.objects.get(pk=proxy.pk).host == "127.0.0.1"
        from django.core.exceptions import ValidationError

        with pytest.raises(ValidationError):
            Proxy(workspace=workspace, host="fd00::1", port=3128).full_clean()


# --- viewers and operators -------------------------------------------------------------------
@pytest.mark.django_db
@pytest.mark.parametrize("role", [Role.VIEWER, Role.OPERATOR])
def test_viewer_cannot_see_proxy_host_username_metadata_or_screenshot(actor, workspace, role):
    proxy = make_proxy(workspace, username="proxy-user", last_error="ERR at 127.0.0.1:3128")
    campaign = make_browser_campaign(actor, accounts=[make_account(workspace)], links=["http://127.0.0.1:9/post/1"])
    platform = CampaignPlatform.objects.get(campaign=campaign)
    from workers.services import creation

    creation.due_platforms_create_tasks()
    task = campaign.browser_tasks.get()
    BrowserTaskScreenshot.objects.create(workspace=workspace, task=task, png=b"\x89PNG secret")

    reader = api_client_for(make_member(workspace, role), workspace)
    shown = reader.get(f"/api/v1/browser/proxies/{proxy.pk}").json()
    assert shown["host"] is None and shown["username"] is None and shown["last_error"] is None
    listed = reader.get("/api/v1/browser/proxies").json()["results"][0]
    assert listed["host"] is None and listed["username"] is None
    assert reader.get(f"/api/v1/browser/platforms/{platform.pk}").json()["metadata"] is None
    assert reader.get("/api/v1/browser/platforms").json()["results"][0]["metadata"] is None
    assert reader.get(f"/api/v1/browser/tasks/{task.pk}/screenshot").status_code == 403

    manager = api_client_for(make_member(workspace, Role.MANAGER), workspace)
    assert manager.get(f"/api/v1/browser/proxies/{proxy.pk}").json()["host"] == "127.0.0.1"
    assert manager.get(f"/api/v1/browser/platforms/{platform.pk}").json()["metadata"]["target_links"]
    assert manager.get(f"/api/v1/browser/tasks/{task.pk}/screenshot").status_code == 200


# --- in the worker (real Chromium) --------------------------------------------------------------
class _Pages:
    """Two local servers: the allowed one (its redirect points at the other) and the forbidden one."""

    def __init__(self) -> None:
        self.hits: list[tuple[str, str]] = []
        pages = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                name = "forbidden" if self.server is pages.forbidden else "allowed"
                pages.hits.append((name, self.path))
                if self.path == "/redirect":
                    self.send_response(302)
                    self.send_header("Location", f"http://127.0.0.1:{pages.forbidden.server_address[1]}/secret")
                    self.end_headers()
                    return
                if self.path == "/with-metadata-image":
                    settle = "document.body.insertAdjacentHTML('beforeend', '<p id=settled>x</p>')"
                    html = (
                        f'<html><body><div id="me">me</div><img src="{METADATA_URL}" onerror="{settle}"></body></html>'
                    )
                else:
                    html = '<html><body><div id="me">me</div><p class="secret">internal secret page</p></body></html>'
                data = html.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.allowed = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.forbidden = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        for server in (self.allowed, self.forbidden):
            threading.Thread(target=server.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.allowed.server_address[1]}{path}"

    def close(self) -> None:
        for server in (self.allowed, self.forbidden):
            server.shutdown()
            server.server_close()


@pytest.fixture
def pages(settings):
    served = _Pages()
    settings.BROWSER_ALLOWED_PRIVATE_HOSTS = [f"127.0.0.1:{served.allowed.server_address[1]}"]  # nothing else
    yield served
    served.close()


_ids = iter(range(70_000, 80_000))


def run_payload(browser, link, *, steps=None, proxy=None):
    n = next(_ids)
    return browser.run(
        {
            "task_id": n,
            "attempt": 1,
            "link": link,
            "action_type": "visit",
            "steps": steps or [{"action": "goto"}, {"action": "verify", "selector": "#me"}],
            "login_check": {},
            "account": {"id": n, "label": f"acc-{n}", "cookies": ""},
            "proxy": proxy,
        }
    )


def assert_refused_without_page_content(result):
    assert result["status"] == "failed"
    assert result["error_code"] == ErrorCode.ADDRESS_NOT_ALLOWED
    assert result["error_reason"] == "address not allowed"
    assert not result.get("screenshot_b64")
    assert not result["result_data"].get("url")


@pytest.mark.browser
def test_file_and_metadata_urls_are_refused_in_the_worker(browser, pages):
    for link in ("file:///etc/passwd", METADATA_URL, "http://[::1]:8766/", "http://[::ffff:127.0.0.1]:8766/"):
        assert_refused_without_page_content(run_payload(browser, link))


@pytest.mark.browser
def test_goto_step_rendered_to_an_internal_address_is_refused_in_the_worker(browser, pages):
    steps = [{"action": "goto", "url": "{content}"}]
    result = browser.run(
        {
            "task_id": next(_ids),
            "attempt": 1,
            "link": pages.url("/ok"),
            "content": METADATA_URL,
            "steps": steps,
            "account": {"id": 1, "label": "a"},
        }
    )
    assert_refused_without_page_content(result)


@pytest.mark.browser
def test_page_redirecting_to_another_loopback_port_is_blocked_in_chromium(browser, pages):
    assert run_payload(browser, pages.url("/ok"))["status"] == "completed"
    result = run_payload(browser, pages.url("/redirect"))
    assert_refused_without_page_content(result)
    assert ("allowed", "/redirect") in pages.hits
    assert not [hit for hit in pages.hits if hit[0] == "forbidden"]  # the request never left the browser


@pytest.mark.browser
def test_sub_resource_from_the_metadata_address_is_blocked(browser, pages):
    # the image settles (its load fails) before the task ends, so the proxy has seen it
    result = run_payload(
        browser,
        pages.url("/with-metadata-image"),
        steps=[{"action": "goto"}, {"action": "verify", "selector": "#settled"}],
    )
    assert result["status"] == "completed", result
    assert result["result_data"]["blocked_requests"] >= 1


@pytest.mark.browser
def test_private_proxy_host_is_refused_in_the_worker(browser, pages):
    result = run_payload(browser, pages.url("/ok"), proxy={"id": 9, "server": "http://10.0.0.9:3128"})
    assert result["error_code"] == ErrorCode.PROXY_ERROR
    assert result["error_reason"] == "proxy address not allowed"
    assert not [hit for hit in pages.hits if hit[1] == "/ok"]


@pytest.mark.django_db
@pytest.mark.parametrize("role", [Role.VIEWER, Role.OPERATOR])
def test_viewer_sees_action_configs_without_their_steps(actor, api, workspace, role):
    config = action_config_create(
        actor=actor, platform="demo", action_type="like", steps=LIKE_STEPS, login_check=LOGIN_CHECK
    )
    reader = api_client_for(make_member(workspace, role), workspace)
    shown = reader.get(f"/api/v1/browser/action-configs/{config.pk}").json()
    assert shown["id"] == config.pk and shown["steps"] is None and shown["login_check"] is None
    listed = reader.get("/api/v1/browser/action-configs").json()["results"][0]
    assert listed["steps"] is None and listed["login_check"] is None
    owner = api.get(f"/api/v1/browser/action-configs/{config.pk}").json()
    assert owner["steps"] == LIKE_STEPS and owner["login_check"] == LOGIN_CHECK
