"""`manage.py demo_data`: the core demo from campaigns, each channel's part from its own app (demo
registry); the demo journey campaign can be started at once; a second run changes nothing."""

import io

import pytest
from django.apps import apps
from django.core.management import call_command

from campaigns.models import Campaign, Workspace
from campaigns.platform.registry import demo_contributors
from campaigns.platform.tenancy import Actor


@pytest.fixture
def demo(db, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    settings.DEBUG = True
    settings.BROWSER_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:8766", "127.0.0.1:8767"]  # the demo site and proxy

    def run() -> str:
        out = io.StringIO()
        call_command("demo_data", "--targets", "40", stdout=out)
        return out.getvalue()

    return run


def snapshot() -> dict[str, int]:
    """Row counts of every model of the project's apps (what a rerun must leave unchanged)."""
    return {
        model._meta.label: model._base_manager.count()
        for label in ("platform", "campaigns", "automation", "sms", "workers")
        for model in apps.get_app_config(label).get_models()
    }


def test_each_channel_contributes_its_own_demo():
    assert [c.name for c in demo_contributors()] == ["sms", "journey", "browser"]
    modules = {c.name: c.contribute.__module__ for c in demo_contributors()}
    assert modules == {"sms": "sms.demo", "journey": "automation.demo", "browser": "workers.demo"}


def test_demo_data_twice_is_idempotent(demo):
    first = demo()
    before = snapshot()
    assert before["campaigns.Campaign"] == 2 and before["campaigns.Target"] == 40
    assert before["sms.SmsProviderAccount"] == 1 and before["workers.BrowserAccount"] == 3
    assert before["workers.Proxy"] == 1  # a demo proxy to try (`make run` serves it in front of the demo site)
    assert before["sms.InboundSms"] == 3  # replies in the inbox, one «لغو» that blacklisted its sender
    from sms.inbound.models import InboundSms

    outcomes = dict(InboundSms.objects.values_list("text", "outcome"))
    assert outcomes["لغو"] == "opt_out" and before["sms.BlacklistEntry"] == 1
    assert InboundSms.objects.filter(target__isnull=True).count() == 1  # the unknown number is kept, unmatched

    second = demo()

    assert snapshot() == before
    assert first.splitlines()[-1] == second.splitlines()[-1]  # the same login line


def test_demo_journey_campaign_can_be_activated_from_the_start(demo):
    from automation.launch_check import journey_launch_check
    from automation.services.campaigns import journey_campaign_transition
    from sms.channel import channel_problem

    demo()
    workspace = Workspace.objects.get(slug="demo")
    assert channel_problem(workspace.id) is None  # a console provider is the primary account
    campaign = Campaign.objects.get(workspace=workspace, kind="journey")
    user = workspace.memberships.get(user__username="admin").user
    actor = Actor(user=user, workspace=workspace, membership=user.memberships.get(workspace=workspace))

    # the console account's demo credit was read at once: the launch check shows it and warns of no unread credit
    check = journey_launch_check(actor=actor, campaign_id=campaign.pk)
    assert "credit_unknown" not in [w["code"] for w in check["warnings"]]
    assert check["channels"][0]["account"]["credit_text"] == "۱۰٬۰۰۰٬۰۰۰٬۰۰۰ ریال"

    activated = journey_campaign_transition(actor=actor, campaign_id=campaign.pk, action="activate")

    assert activated.status == "active"


def test_the_demo_has_a_second_approver_printed_with_the_login(demo):
    """Four eyes is on in the demo, so one person tries approval as two: submit as admin, approve as approver."""
    import re

    from django.contrib.auth import authenticate

    from campaigns.approval_selectors import approver_ids, four_eyes
    from campaigns.choices import Role

    out = demo()
    workspace = Workspace.objects.get(slug="demo")
    assert four_eyes(workspace)
    line = next(line for line in out.splitlines() if "Second approver" in line)
    password = re.search(r"username=approver password=(\S+)", line).group(1)
    approver = authenticate(username="approver", password=password)
    assert approver is not None
    assert approver.memberships.get(workspace=workspace).role == Role.ADMIN
    admin = workspace.memberships.get(user__username="admin").user
    who = approver_ids(workspace, submitter_id=admin.id, bound_four_eyes=four_eyes(workspace))
    assert who == [approver.id]  # who approves what admin submits
    assert re.search(r"Demo login: username=admin password=\S+", out)


def test_demo_data_without_the_demo_proxy_allowed_skips_it(demo, settings):
    settings.BROWSER_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:8766"]  # e.g. `make run` against PostgreSQL
    out = demo()
    from workers.models import Proxy

    assert not Proxy.objects.exists() and "no demo proxy" in out


def test_demo_data_without_the_demo_site_allowed_still_completes(demo, settings):
    settings.BROWSER_ALLOWED_PRIVATE_HOSTS = []  # `make run` against PostgreSQL: the allow-list is empty by default

    out = demo()

    assert "127.0.0.1:8766 is not in BROWSER_ALLOWED_PRIVATE_HOSTS" in out
    assert Campaign.objects.filter(kind="journey").count() == 1  # the journey demo is there all the same
    assert not Campaign.objects.filter(kind="browser").exists()


def test_the_demo_proxy_of_the_demo_data_reaches_the_demo_site_served_by_make_run(demo, tmp_path):
    """What `make run` serves (`manage.py demo_site`, here on free ports) lets the demo data's «پراکسی نمونه»
    through with its stored user name and password, to the demo site, and refuses a wrong password (407)."""
    import base64
    import socket
    import subprocess
    import sys
    import time
    import urllib.error
    import urllib.request

    from workers.models import Proxy

    demo()
    proxy = Proxy.objects.get()
    cookie = "session=valid-demo-1"
    ports = []
    for _ in range(2):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])
    site_port, proxy_port = ports
    log = tmp_path / "demo_site.log"
    with log.open("wb") as out:
        served = subprocess.Popen(
            [sys.executable, "manage.py", "demo_site", "--port", str(site_port), "--proxy-port", str(proxy_port)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while "demo proxy: 127.0.0.1:" not in log.read_text(errors="replace"):
            assert served.poll() is None and time.monotonic() < deadline, log.read_text(errors="replace")
            time.sleep(0.2)

        def through_proxy(username: str, password: str):
            handler = urllib.request.ProxyHandler({"http": f"http://127.0.0.1:{proxy_port}"})
            request = urllib.request.Request(f"http://127.0.0.1:{site_port}/post/1")
            token = base64.b64encode(f"{username}:{password}".encode()).decode()
            request.add_header("Proxy-Authorization", f"Basic {token}")
            request.add_header("Cookie", cookie)  # a demo account's session, as its stored cookies send it
            return urllib.request.build_opener(handler).open(request, timeout=10)

        with through_proxy(proxy.username, proxy.password) as answer:
            assert answer.status == 200 and b'id="like"' in answer.read()
        with pytest.raises(urllib.error.HTTPError) as refused:
            through_proxy(proxy.username, "not-the-demo-password")
        assert refused.value.code == 407
    finally:
        served.terminate()
        served.wait(timeout=30)
