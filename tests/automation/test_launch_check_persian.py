"""No English in what the launch check and the step editor's lint show staff (docs/journeys.md "Launch check"):
every blocker, warning, reason, label and count text of a journey's and a chain package's check — the API's
payload and the page — and every lint problem of ``sms.launch.text_lint`` is Persian; machine codes stay English.
Each blocker and warning the checks can give is triggered at least once, so a new English message fails here."""

import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from automation import launch_check
from automation.models import AutomationSettings
from automation.services.enrollment import enroll_subjects
from campaigns.models import Campaign
from sms import launch as sms_launch
from sms.choices import LineKind
from sms.models import SmsFrequencyCount, SmsProviderAccount, SmsSettings
from sms.services import blacklist_add
from tests.automation.helpers import end_node, journey, linear_graph, setup_sms, sms_node
from tests.chains.conftest import make_chain
from tests.conftest import make_list, make_target

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)  # a Sunday, 10:30 in Tehran
LATIN = re.compile(r"[A-Za-z]")
# The keys whose values staff read; every other string of the payload is a machine value (codes, ids, times).
HUMAN_KEYS = {"message", "text", "label", "title", "campaign_name"}
TEXT = "حراج ویژه https://example.ir/x"  # a filtered word and a link, no opt-out line


def _human_strings(value, path="") -> list[tuple[str, str]]:
    """(path, string) of every human-readable field of a payload: the keys above and any ``*_text``/``*_label``."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            here = f"{path}.{key}"
            if isinstance(item, str) and (key in HUMAN_KEYS or key.endswith(("_text", "_label"))):
                found.append((here, item))
            else:
                found += _human_strings(item, here)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _human_strings(item, f"{path}[{i}]")
    return found


def _english(payload) -> list[str]:
    return [f"{path}: {text}" for path, text in _human_strings(payload) if LATIN.search(text)]


def _codes(payload) -> set[str]:
    """Every blocker and warning code of a check (a journey's or a package's, its members')."""
    checks = payload.get("members", [payload])
    return {item["code"] for c in [payload, *checks] for item in c.get("blockers", []) + c.get("warnings", [])}


def _visible_text(html: str) -> str:
    """The launch check's section as a person reads it: tags, attributes and entities removed."""
    start = html.index('data-testid="launch-check"')
    section = html[start : html.index("</section>", start)]
    return re.sub(r"&[a-z]+;|&#\d+;", " ", re.sub(r"<[^>]*>", " ", section.split(">", 1)[1]))


@pytest.fixture
def sms_account(workspace):
    settings = setup_sms(workspace, "console", frequency_cap_rules=[{"period": "day", "limit": 1}])
    account = SmsProviderAccount.objects.get(pk=settings.primary_account_id)
    account.name = "حساب تبلیغاتی"
    account.line_kind = LineKind.ADVERTISING
    account.links_allowed = False
    account.filtered_words = ["حراج"]
    account.price_mci = 1000
    account.credit = 100  # below the cost
    account.save()
    return account


def test_every_blocker_and_warning_of_a_journeys_check_is_persian_in_the_api_and_on_the_page(
    actor, workspace, sms_account, api, client, owner
):
    people = [make_target(workspace, mobile=f"+98912111000{i}") for i in range(4)]
    for person in people:  # everyone already had today's promotional message: the cap holds them till tomorrow
        SmsFrequencyCount.objects.create(workspace=workspace, phone=person.mobile, day=T0.date(), sent=1)
    AutomationSettings.objects.update_or_create(workspace=workspace, defaults={"global_daily_limit": 1})
    with time_machine.travel(T0, tick=False):
        campaign = journey(
            actor, linear_graph(sms_node("a", body=TEXT), end_node()), activate=False, ends_at=T0 + timedelta(hours=2)
        )
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[p.id for p in people])
        empty = journey(actor, linear_graph(sms_node("a", body=TEXT), end_node()), activate=False)
    Campaign.objects.filter(pk__in=[campaign.id, empty.id]).update(name="کمپین تابستانه")

    payloads = []
    client.force_login(owner)
    with time_machine.travel(T0, tick=False):
        for target in (campaign, empty):
            response = api.get(f"/api/v1/campaigns/{target.id}/journey/launch-check")
            assert response.status_code == 200
            payloads.append(response.json())
        page = client.get(f"/automation/campaigns/{campaign.id}/").content.decode()
        # no usable account, a credit never read, a daily limit of nothing: the other blockers and warnings
        SmsProviderAccount.objects.filter(pk=sms_account.pk).update(is_active=False, credit=None)
        AutomationSettings.objects.filter(workspace=workspace).update(global_daily_limit=0)
        payloads.append(api.get(f"/api/v1/campaigns/{campaign.id}/journey/launch-check").json())
        payloads.append(launch_check.journey_launch_check(actor=actor, campaign_id=campaign.id))

    seen = set().union(*(_codes(p) for p in payloads))
    assert seen >= {
        *sms_launch.BLOCKER_MESSAGES,
        *sms_launch.WARNING_MESSAGES,
        "empty_audience",
        "finish_after_end",
        "finish_unknown",
    }, seen
    assert [problem for p in payloads for problem in _english(p)] == []
    # the reasons' labels and count texts are walked too
    assert {row["reason"] for row in payloads[0]["exclusions"]} >= {"frequency_cap", "control_group"}
    text = _visible_text(page)
    assert "سقف ارسال" in text and LATIN.findall(text) == [], text


def test_every_blocker_of_a_chain_packages_check_is_persian_in_the_api_and_on_the_page(
    actor, workspace, sms_account, api, client, owner
):
    from campaigns.chains.services.approval import campaign_submit

    lst = make_list(workspace)
    people = [make_target(workspace) for _ in range(3)]
    for person in people:
        person.lists.add(lst)
    nodes = make_chain(workspace, shape="A>B", source_target_list=lst)
    Campaign.objects.filter(pk=nodes["A"].pk).update(name="پیام نخست")
    Campaign.objects.filter(pk=nodes["B"].pk).update(name="پیام پیگیری")
    nodes["A"].refresh_from_db()
    _, package = campaign_submit(
        actor=actor, campaign_id=nodes["A"].id, expected_chain_revision=nodes["A"].chain_revision
    )

    url = f"/api/v1/campaign-chain-approvals/{package.id}/launch-check"
    payloads = [api.get(url).json()]
    SmsSettings.objects.filter(workspace=workspace).update(frequency_cap_rules=[])
    for person in people:  # nobody left to send to: the package's empty audience blocks
        blacklist_add(actor=actor, number=person.mobile)
    SmsProviderAccount.objects.filter(pk=sms_account.pk).update(is_active=False)
    payloads.append(api.get(url).json())
    client.force_login(owner)
    page = client.get(f"/chains/approvals/{package.id}/").content.decode()

    seen = set().union(*(_codes(p) for p in payloads))
    assert seen >= {"empty_audience", "no_account", "credit_below_cost", "opt_out_missing"}, seen
    assert all(b["message"].startswith("«پیام") for p in payloads for b in p["blockers"])
    assert [problem for p in payloads for problem in _english(p)] == []
    text = _visible_text(page)
    assert "پیام نخست" in text and LATIN.findall(text) == [], text


def test_every_lint_problem_of_the_step_editor_is_persian(workspace, sms_account):
    problems = {}
    for body, links_allowed in ((TEXT, False), (TEXT, True)):
        SmsProviderAccount.objects.filter(pk=sms_account.pk).update(links_allowed=links_allowed)
        lint = sms_launch.text_lint({"body": body}, body, workspace_id=workspace.id)
        problems.update({p["code"]: p["message"] for p in lint["problems"]})
    assert set(problems) == set(sms_launch.LINT_MESSAGES)
    assert {code: text for code, text in problems.items() if LATIN.search(text)} == {}
