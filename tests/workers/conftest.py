"""Fixtures of the browser channel: accounts, proxies, campaigns, a captured publisher, the local site, Chromium."""

import itertools
import os
from datetime import timedelta

import pytest
from django.utils import timezone

from workers import conf, dispatch
from workers.localsite import LocalProxy, LocalSite
from workers.models import BrowserAccount, Proxy
from workers.services.campaigns import browser_campaign_create
from workers.worker import BrowserThread, new_host

_seq = itertools.count(1)

LIKE_STEPS = [
    {"action": "goto"},
    {"action": "click", "selector": "#like"},
    {"action": "verify", "selector": ".liked"},
]
COMMENT_STEPS = [
    {"action": "goto"},
    {"action": "fill", "selector": "#comment", "text": "{content}"},
    {"action": "click", "selector": "#send"},
    {"action": "verify", "text": "{content}"},
]
LOGIN_CHECK = {"login_url_patterns": ["/login"], "logged_in_selector": "#me"}


def make_account(workspace, *, cookies: str | None = None, platform: str = "demo", **kwargs) -> BrowserAccount:
    n = next(_seq)
    return BrowserAccount.objects.create(
        workspace=workspace,
        label=kwargs.pop("label", f"acc-{n}"),
        platform=platform,
        cookies=cookies if cookies is not None else f"session=valid-{n}",
        cookie_domain=kwargs.pop("cookie_domain", "127.0.0.1"),  # the local site's host
        **kwargs,
    )


def make_proxy(workspace, *, port: int = 3128, **kwargs) -> Proxy:
    return Proxy.objects.create(workspace=workspace, host=kwargs.pop("host", "127.0.0.1"), port=port, **kwargs)


def make_browser_campaign(actor, *, accounts, links, steps=None, **kwargs):
    return browser_campaign_create(
        actor=actor,
        name=kwargs.pop("name", f"کمپین مرورگر {next(_seq)}"),
        platform=kwargs.pop("platform", "demo"),
        accounts=[a.pk for a in accounts],
        target_links=links,
        action=kwargs.pop("action", "like"),
        steps=steps or LIKE_STEPS,
        login_check=kwargs.pop("login_check", LOGIN_CHECK),
        **kwargs,
    )


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


# The demo site and the fixed loopback addresses the tests use (links on :9, proxies on :3128).
TEST_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:8766", "127.0.0.1:9", "127.0.0.1:3128"]


@pytest.fixture(autouse=True)
def _allowed_private_hosts(settings, request):
    """BROWSER_ALLOWED_PRIVATE_HOSTS for a test: the fixed entries plus the local site/proxy it serves."""
    entries = list(TEST_ALLOWED_PRIVATE_HOSTS)
    for name in ("site", "local_proxy"):
        if name in request.fixturenames:
            entries.append(f"127.0.0.1:{request.getfixturevalue(name).port}")
    settings.BROWSER_ALLOWED_PRIVATE_HOSTS = entries


@pytest.fixture
def allow_private(settings):
    """Add "host:port" entries to the allow-list for one test (e.g. a dead proxy port)."""

    def add(*entries: str) -> None:
        settings.BROWSER_ALLOWED_PRIVATE_HOSTS = [*settings.BROWSER_ALLOWED_PRIVATE_HOSTS, *entries]

    return add


@pytest.fixture
def shared_claims(monkeypatch):
    """The run claims of a worker simulated in this process are seen by the lease reclaim (as through Redis),
    whatever cache the profile runs on."""
    from workers import claims

    monkeypatch.setattr(claims, "claims_are_shared", lambda: True)


@pytest.fixture
def published():
    """Payloads the dispatcher publishes (after commit), instead of sending them to the broker."""
    sent: list[dict] = []
    dispatch.set_publisher(sent.extend)
    yield sent
    dispatch.set_publisher(None)


@pytest.fixture
def later():
    """Now + a little, so tasks created "now" are due."""
    return lambda seconds=1: timezone.now() + timedelta(seconds=seconds)


@pytest.fixture(scope="session")
def site():
    with LocalSite() as running:
        yield running


@pytest.fixture(scope="session")
def local_proxy():
    with LocalProxy() as running:
        yield running


class ThreadedBrowser:
    """The production ``BrowserThread`` with short test timeouts.

    The sync Playwright API leaves an event loop running in its thread, which
    makes Django's ORM refuse to run there; exactly like a browser worker, the
    browser side never touches the database, and the test thread keeps the ORM.
    """

    def __init__(self) -> None:
        self.thread = BrowserThread(
            new_host(
                executable_path=os.environ.get("PLAYWRIGHT_CHROMIUM_PATH", conf.chromium_path()),
                pool_size=8,
                step_timeout_ms=10000,  # generous: the CI machine may be busy
                navigation_timeout_ms=15000,
            )
        )
        self.host = self.thread.host

    def run(self, payload: dict) -> dict:
        return self.thread.run(payload)

    def run_all(self, payloads: list[dict]) -> list[dict]:
        return [self.run(p) for p in payloads]

    def close(self) -> None:
        self.thread.stop()


@pytest.fixture(scope="session")
def browser():
    running = ThreadedBrowser()
    yield running
    running.close()
