"""The login throttle guards every way to log in: staff page, Django admin, API keys; keys and back-off."""

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from campaigns.platform.tokens import api_token_create

from ..conftest import make_member

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _long_back_off(settings):
    settings.LOGIN_BACKOFF_SECONDS = 60  # a back-off never runs out in the middle of a test (no timed tests)


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    """Hundreds of wrong passwords per module: a cheap hasher (the throttle acts before any hashing anyway)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


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


def admin_login(client, username, password, ip):
    return client.post("/admin/login/?next=/admin/", {"username": username, "password": password}, REMOTE_ADDR=ip)


def test_admin_login_is_throttled_and_the_right_password_waits_during_back_off(workspace):
    get_user_model().objects.create_superuser("root", "root@example.com", "pw-123456")
    attacker = Client()
    codes = [admin_login(attacker, "root", f"guess-{i}", "203.0.113.9").status_code for i in range(200)]
    assert codes[:5] == [200] * 5  # the free allowance (LOGIN_FAILURES_PER_USERNAME = 5) ...
    assert set(codes[5:]) == {429}  # ... then back-off, without checking any further password
    refused = admin_login(attacker, "root", "pw-123456", "203.0.113.9")
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert "ثانیه دیگر دوباره تلاش کنید" in refused.content.decode()
    assert attacker.get("/admin/").status_code == 302  # not signed in
    assert attacker.get("/targets/").status_code == 302
    # the same throttle stands in front of the staff login: the address waits there too
    assert login(attacker, "root", "pw-123456", "203.0.113.9").status_code == 429
    # the real admin elsewhere is not locked out
    elsewhere = Client()
    assert admin_login(elsewhere, "root", "pw-123456", "198.51.100.7").status_code == 302
    assert elsewhere.get("/admin/").status_code == 200


def test_staff_login_failures_back_off_the_admin_login_of_the_same_username(workspace, settings):
    settings.LOGIN_FAILURES_PER_USERNAME = 2
    get_user_model().objects.create_superuser("root", "root@example.com", "pw-123456")
    for _ in range(2):
        assert login(Client(), "root", "wrong", "203.0.113.9").status_code == 200
    assert admin_login(Client(), "root", "pw-123456", "203.0.113.9").status_code == 429


@pytest.mark.parametrize(
    ("failed_as", "then_as"),
    [("nima", "ｎｉｍａ"), ("ＮＩＭＡ", "nima"), ("ｎｉｍａ", "ｎｉｍａ")],
)
def test_a_fullwidth_spelling_of_a_username_shares_its_throttle(workspace, settings, failed_as, then_as):
    settings.LOGIN_FAILURES_PER_USERNAME = 2
    make_member(workspace, username="nima")
    for _ in range(2):
        assert login(Client(), failed_as, "wrong", "203.0.113.9").status_code == 200
    assert login(Client(), then_as, "pw-123456", "203.0.113.9").status_code == 429
    assert login(Client(), then_as, "pw-123456", "198.51.100.7").status_code == 302  # it is the same user


def api_get(key: str, ip: str, workspace):
    client = APIClient(REMOTE_ADDR=ip)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client.get("/api/v1/me", HTTP_X_WORKSPACE=workspace.slug)


def test_wrong_api_keys_from_one_address_back_off_that_address_even_for_a_valid_key(workspace, settings):
    settings.LOGIN_FAILURES_PER_IP = 3
    user = make_member(workspace, username="crm-bot")
    _, key = api_token_create(user=user, workspace=workspace)
    assert api_get(key, "203.0.113.9", workspace).status_code == 200
    for i in range(3):  # guessing keys: a new prefix each time
        assert api_get(f"guess{i}.secret", "203.0.113.9", workspace).status_code == 401
    refused = api_get(key, "203.0.113.9", workspace)
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert refused.json()["error"]["code"] == "RATE_LIMITED"
    assert login(Client(), "crm-bot", "pw-123456", "203.0.113.9").status_code == 429  # one throttle
    assert api_get(key, "198.51.100.7", workspace).status_code == 200  # other clients are untouched


def test_guessing_the_secret_of_one_api_key_backs_off_that_key(workspace, settings):
    settings.LOGIN_FAILURES_PER_USERNAME = 2
    _, key = api_token_create(user=make_member(workspace), workspace=workspace)
    prefix = key.split(".", 1)[0]
    for _ in range(2):
        assert api_get(f"{prefix}.not-the-secret", "203.0.113.9", workspace).status_code == 401
    assert api_get(key, "203.0.113.9", workspace).status_code == 429
    assert api_get(key, "198.51.100.7", workspace).status_code == 200


def test_wrong_secrets_for_a_key_prefix_from_many_addresses_do_not_lock_the_integration_out(workspace, settings):
    settings.LOGIN_FAILURES_PER_USERNAME, settings.LOGIN_FAILURES_PER_IP = 5, 30  # the defaults
    _, key = api_token_create(user=make_member(workspace), workspace=workspace)
    prefix = key.split(".", 1)[0]
    for n in range(50):  # the prefix is public: anyone who saw one request can send it with wrong secrets
        assert api_get(f"{prefix}.wrong-{n}", f"203.0.113.{n % 12 + 1}", workspace).status_code in (401, 429)
    assert api_get(key, "198.51.100.7", workspace).status_code == 200  # the integration's own address
    # a username still has its address-independent key: the same guessing locks a staff login
    make_member(workspace, username="nima")
    for n in range(50):
        login(Client(), "nima", "wrong", f"203.0.113.{n % 12 + 1}")
    assert login(Client(), "nima", "pw-123456", "198.51.100.7").status_code == 429


def test_the_admin_password_change_checks_the_current_password_behind_the_throttle(workspace, settings):
    settings.LOGIN_FAILURES_PER_USERNAME = 2
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw-123456")
    hijacked = Client(REMOTE_ADDR="203.0.113.9")  # a stolen session guessing the current password
    hijacked.force_login(root)
    change = {"new_password1": "taken-over-9876", "new_password2": "taken-over-9876"}
    page = hijacked.get("/admin/password_change/")
    assert page.status_code == 200 and "old_password" in page.content.decode()
    for _ in range(2):
        assert hijacked.post("/admin/password_change/", {**change, "old_password": "wrong"}).status_code == 200
    refused = hijacked.post("/admin/password_change/", {**change, "old_password": "pw-123456"})
    assert refused.status_code == 429 and "ثانیه دیگر دوباره تلاش کنید" in refused.content.decode()
    root.refresh_from_db()
    assert root.check_password("pw-123456")
    owner = Client(REMOTE_ADDR="198.51.100.7")
    owner.force_login(root)
    done = owner.post("/admin/password_change/", {**change, "old_password": "pw-123456"})
    assert done.status_code == 302 and done["Location"] == "/admin/password_change/done/"
