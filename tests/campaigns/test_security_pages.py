"""Login throttling, the workspace switcher's redirect, export formulas and bounds, API docs behind login."""

import io

import pytest
from django.core.cache import cache
from openpyxl import load_workbook

from campaigns.choices import Role

from ..conftest import api_client_for, make_member, make_target

pytestmark = pytest.mark.django_db


def login(client, username, password, ip, **extra):
    return client.post("/login/", {"username": username, "password": password}, REMOTE_ADDR=ip, **extra)


def test_login_throttling_backs_off_the_attacker_but_not_the_victim_elsewhere(client, workspace, settings):
    settings.LOGIN_FAILURES_PER_USERNAME = 3
    make_member(workspace, username="nima")
    for _ in range(3):
        assert login(client, "nima", "wrong", "203.0.113.9").status_code == 200
    blocked = login(client, "nima", "pw-123456", "203.0.113.9")  # even the right password waits
    assert blocked.status_code == 429
    assert int(blocked["Retry-After"]) >= 1
    # the real user at another address is not locked out by the attacker's failures
    from django.test import Client

    assert login(Client(), "nima", "pw-123456", "198.51.100.7").status_code == 302


def test_login_throttling_backoff_grows_and_is_capped(client, workspace, settings):
    settings.LOGIN_FAILURES_PER_USERNAME = 2
    settings.LOGIN_BACKOFF_SECONDS = 2
    settings.LOGIN_BACKOFF_MAX_SECONDS = 8
    from django.test import RequestFactory

    from campaigns.platform.login_throttle import LoginThrottle

    waits = []

    request = RequestFactory().post("/login/", REMOTE_ADDR="203.0.113.9")
    throttle = LoginThrottle(request, "Nima")
    for _ in range(6):
        throttle.failed()
        waits.append(throttle.retry_after())
    assert waits[0] == 0  # under the allowance
    assert waits[1] in (2, 3) and waits[2] in (4, 5) and waits[3] in (8, 9) and waits[5] in (8, 9)


def test_login_throttling_uses_the_client_address_behind_a_trusted_proxy(client, workspace, settings):
    settings.LOGIN_FAILURES_PER_USERNAME = 2
    settings.TRUSTED_PROXY_COUNT = 1
    make_member(workspace, username="sara")
    proxy = "10.0.0.2"  # every request arrives from the proxy; X-Forwarded-For names the client
    for _ in range(2):
        login(client, "sara", "wrong", proxy, HTTP_X_FORWARDED_FOR="203.0.113.9")
    assert login(client, "sara", "pw-123456", proxy, HTTP_X_FORWARDED_FOR="203.0.113.9").status_code == 429
    # a spoofed left-most entry does not escape: the proxy's own entry (right-most) is used
    spoofed = login(client, "sara", "pw-123456", proxy, HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.9")
    assert spoofed.status_code == 429
    from django.test import Client

    other = login(Client(), "sara", "pw-123456", proxy, HTTP_X_FORWARDED_FOR="198.51.100.7")
    assert other.status_code == 302


def test_login_throttling_username_wide_backoff_spares_a_known_device(workspace, settings):
    from django.test import Client

    settings.LOGIN_FAILURES_PER_USERNAME = 1  # username-wide allowance: 10
    make_member(workspace, username="omid")
    device = Client()
    assert login(device, "omid", "pw-123456", "198.51.100.7").status_code == 302
    known = device.cookies["login_device"].value
    device.logout()  # drops every cookie; the browser keeps the device cookie
    device.cookies["login_device"] = known
    for i in range(12):  # a distributed attack: one address per guess
        login(Client(), "omid", "wrong", f"203.0.113.{i + 1}")
    assert login(Client(), "omid", "pw-123456", "198.51.100.8").status_code == 429
    assert login(device, "omid", "pw-123456", "198.51.100.7").status_code == 302
    cache.clear()


def test_drf_num_proxies_is_set(settings):
    from rest_framework.settings import api_settings

    assert api_settings.NUM_PROXIES == settings.TRUSTED_PROXY_COUNT


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/x", "javascript:alert(1)"])
def test_open_redirect_through_next_in_the_workspace_switcher_is_refused(client, workspace, target):
    user = make_member(workspace, Role.VIEWER)
    client.force_login(user)
    response = client.post("/workspace/switch/", {"workspace": workspace.id, "next": target})
    assert response.status_code == 302
    assert response["Location"] == "/"


def test_workspace_switcher_still_follows_a_local_next(client, workspace):
    user = make_member(workspace, Role.VIEWER)
    client.force_login(user)
    response = client.post("/workspace/switch/", {"workspace": workspace.id, "next": "/targets/?city=x"})
    assert response["Location"] == "/targets/?city=x"


@pytest.mark.parametrize("value", ["=1+1", "+1+1", "-1+1", "@SUM(A1)", "\t=1", "\r=1"])
def test_spreadsheet_formula_injection_in_exports_is_written_as_text(workspace, value):
    owner = make_member(workspace, Role.OWNER)
    make_target(workspace, name=value, city='=HYPERLINK("http://x")')
    response = api_client_for(owner, workspace).get("/api/v1/targets/export")
    cells = next(load_workbook(io.BytesIO(response.content)).active.iter_rows(min_row=2))
    name, city = cells[0], cells[7]
    assert name.data_type == "s" and name.value[1:] == value[1:]  # (XML stores a CR as a line feed)
    assert name.quotePrefix
    assert city.data_type == "s"


def test_targets_export_over_the_bound_asks_for_a_narrower_filter(client, workspace, settings):
    settings.TARGETS_EXPORT_MAX_ROWS = 2
    owner = make_member(workspace, Role.OWNER)
    for city in ("a", "a", "b"):
        make_target(workspace, city=city)
    api = api_client_for(owner, workspace)
    refused = api.get("/api/v1/targets/export")
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "VALIDATION_ERROR"
    assert api.get("/api/v1/targets/export", {"city": "a"}).status_code == 200
    client.force_login(owner)
    page = client.get("/targets/", {"export": "xlsx"}, follow=True)
    assert page["Content-Type"].startswith("text/html") and "فیلتر" in page.content.decode()


def test_api_schema_and_docs_need_login(client, workspace):
    schema = client.get("/api/schema/")
    assert schema.status_code == 401
    docs = client.get("/api/docs/")
    assert docs.status_code == 302 and "/login/" in docs["Location"]
    client.force_login(make_member(workspace))
    assert client.get("/api/schema/").status_code == 200
    assert client.get("/api/docs/").status_code == 200
