"""The Playwright runner against the local site with real Chromium: steps and error classification."""

import pytest

from workers.choices import ErrorCode
from workers.localsite import LocalProxy, dead_port
from workers.runner import cookies_for

from .conftest import COMMENT_STEPS, LIKE_STEPS, LOGIN_CHECK

pytestmark = pytest.mark.browser

_ids = iter(range(10_000, 20_000))


def payload(
    site, *, cookies=None, steps=None, proxy=None, post="1", content="", login_check=LOGIN_CHECK, domain="127.0.0.1"
):
    n = next(_ids)
    return {
        "task_id": n,
        "attempt": 1,
        "link": site.url(f"/post/{post}"),
        "content": content,
        "action_type": "like",
        "steps": steps or LIKE_STEPS,
        "login_check": login_check,
        "account": {
            "id": n,
            "label": f"acc-{n}",
            "cookies": cookies if cookies is not None else f"session=valid-{n}",
            "cookie_domain": domain,
            "user_agent": "Mozilla/5.0 test",
            "viewport": {"width": 800, "height": 600},
        },
        "proxy": proxy,
    }


def test_like_completes_and_the_site_counts_it_once(browser, site):
    before = site.state.like_count("r1")
    result = browser.run(payload(site, post="r1"))
    assert result["status"] == "completed", result
    assert result["result_data"]["url"].endswith("/post/r1")
    assert site.state.like_count("r1") == before + 1


def test_comment_uses_the_rendered_content(browser, site):
    result = browser.run(payload(site, steps=COMMENT_STEPS, post="r2", content="درود بر شما"))
    assert result["status"] == "completed", result
    assert ("r2", "درود بر شما") in {(post, body) for post, _, body in site.state.comments}


def test_user_agent_and_viewport_are_applied(browser, site):
    """The page echoes what the browser reports (innerWidth x innerHeight, navigator.userAgent)."""
    steps = [
        {"action": "goto"},
        {"action": "verify", "text": "viewport 800x600", "timeout_ms": 2000},
        {"action": "verify", "text": "ua Mozilla/5.0 test", "timeout_ms": 2000},
    ]
    result = browser.run(payload(site, steps=steps, post="r3"))
    assert result["status"] == "completed", result
    assert site.state.user_agents["r3"] == "Mozilla/5.0 test"  # the header the site received


def test_a_different_viewport_is_not_reported_as_the_account_one(browser, site):
    steps = [{"action": "goto"}, {"action": "verify", "text": "viewport 1280x720", "timeout_ms": 300}]
    assert browser.run(payload(site, steps=steps, post="r4"))["error_code"] == ErrorCode.VERIFY_FAILED


def test_redirect_to_login_is_cookie_expired_with_a_screenshot(browser, site):
    result = browser.run(payload(site, cookies="session=expired-1"))
    assert result["status"] == "failed"
    assert result["error_code"] == ErrorCode.COOKIE_EXPIRED
    assert result["screenshot_b64"]


def test_missing_logged_in_marker_is_cookie_expired(browser, site):
    login = {"login_url_patterns": [], "logged_in_selector": "#not-logged-in-marker"}
    result = browser.run(payload(site, login_check=login))
    assert result["error_code"] == ErrorCode.COOKIE_EXPIRED


def test_missing_selector_is_element_not_found(browser, site):
    steps = [{"action": "goto"}, {"action": "click", "selector": "#no-such-button", "timeout_ms": 300}]
    assert browser.run(payload(site, steps=steps))["error_code"] == ErrorCode.ELEMENT_NOT_FOUND


def test_failed_verification_is_verify_failed(browser, site):
    steps = [{"action": "goto"}, {"action": "verify", "text": "هرگز نمایش داده نمی‌شود", "timeout_ms": 300}]
    assert browser.run(payload(site, steps=steps))["error_code"] == ErrorCode.VERIFY_FAILED


def test_wait_for_text_timeout_is_timeout(browser, site):
    steps = [{"action": "goto"}, {"action": "wait_for", "text": "never", "timeout_ms": 300}]
    assert browser.run(payload(site, steps=steps))["error_code"] == ErrorCode.TIMEOUT


def test_dead_proxy_port_is_proxy_error(browser, site, allow_private):
    proxy = {"id": 1, "server": f"http://127.0.0.1:{dead_port()}"}
    allow_private(proxy["server"].split("//")[1])
    result = browser.run(payload(site, proxy=proxy))
    assert result["error_code"] == ErrorCode.PROXY_ERROR
    assert "ERR_PROXY_CONNECTION_FAILED" in result["error_reason"]


def test_proxy_auth_failure_is_proxy_error(browser, site, allow_private):
    with LocalProxy(credentials=("user", "right")) as guarded:
        server = f"http://127.0.0.1:{guarded.port}"
        allow_private(f"127.0.0.1:{guarded.port}")
        wrong = browser.run(payload(site, proxy={"id": 2, "server": server, "username": "user", "password": "bad"}))
        right = browser.run(payload(site, proxy={"id": 2, "server": server, "username": "user", "password": "right"}))
    assert wrong["error_code"] == ErrorCode.PROXY_ERROR
    assert right["status"] == "completed"
    assert guarded.requests >= 1


def test_traffic_goes_through_the_task_proxy(browser, site, local_proxy):
    before = local_proxy.requests
    result = browser.run(payload(site, proxy={"id": 3, "server": f"http://127.0.0.1:{local_proxy.port}"}))
    assert result["status"] == "completed"
    assert local_proxy.requests > before


def test_warm_context_is_reused_per_account_and_dropped_after_failure(browser, site):
    first = payload(site, post="w1")
    second = dict(first, task_id=first["task_id"] + 1, link=site.url("/post/w2"))
    browser.run(first)
    warm_before = browser.host.warm_sessions()
    assert browser.run(second)["status"] == "completed"
    assert browser.host.warm_sessions() == warm_before
    failing = dict(first, steps=[{"action": "goto"}, {"action": "click", "selector": "#x", "timeout_ms": 200}])
    browser.run(failing)
    assert browser.host.warm_sessions() == warm_before - 1


def test_accounts_never_share_cookies(browser, site):
    steps = [{"action": "goto"}, {"action": "verify", "text": "valid-iso-a"}]
    a = payload(site, cookies="session=valid-iso-a", steps=steps)
    b = payload(
        site,
        cookies="session=valid-iso-b",
        steps=[*steps[:1], {"action": "verify", "text": "valid-iso-a", "timeout_ms": 300}],
    )
    assert browser.run(a)["status"] == "completed"
    assert browser.run(b)["error_code"] == ErrorCode.VERIFY_FAILED


def test_cookie_formats_are_bound_to_the_accounts_site_never_the_link():
    assert cookies_for("a=1; b=2", "127.0.0.1") == [
        {"name": "a", "value": "1", "domain": "127.0.0.1", "path": "/", "secure": True},
        {"name": "b", "value": "2", "domain": "127.0.0.1", "path": "/", "secure": True},
    ]
    as_json = '[{"name": "s", "value": "v", "domain": "127.0.0.1"}, {"name": "x", "value": "y", "domain": "evil.test"}]'
    assert cookies_for(as_json, "127.0.0.1") == [
        {"name": "s", "value": "v", "domain": "127.0.0.1", "path": "/", "secure": True}
    ]
    netscape = ".example.com\tTRUE\t/\tTRUE\t2000000000\tsid\tabc\n"
    assert cookies_for(netscape, "example.com") == [
        {"name": "sid", "value": "abc", "domain": ".example.com", "path": "/", "secure": True, "expires": 2000000000}
    ]
    assert cookies_for("a=1", "") == []  # no site recorded: sent nowhere


def test_a_link_on_another_host_never_receives_the_accounts_cookies(browser, site):
    """The campaign's author chooses the link; the cookies stay with the site they were stored for."""
    steps = [{"action": "goto"}, {"action": "verify", "text": "valid-leak"}]
    leaked = payload(site, cookies="session=valid-leak", steps=steps, domain="localhost")
    result = browser.run(leaked)
    assert result["status"] == "failed" and result["error_code"] == ErrorCode.COOKIE_EXPIRED, result
