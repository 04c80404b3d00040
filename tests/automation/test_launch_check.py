"""The launch check of a journey campaign (docs/journeys.md "Launch check"): the audience now, who gets nothing
and why (counts per reason that match what the sends then do), the cost per operator against the account's
credit, the finish time from the rate limit, window and daily limit, and the blockers of Start. Read only."""

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.apps import apps

from automation.choices import ExecutionStatus
from automation.journey_stats import target_timeline_events, timeline_entries
from automation.launch_check import journey_launch_check
from automation.launch_estimate import finish_at
from automation.models import Execution
from automation.services.enrollment import enroll_subjects
from campaigns.models import Target
from sms import launch as sms_launch
from sms import services as sms_services
from sms import telecom_blocks
from sms.choices import BlacklistSource, LineKind
from sms.models import SmsAttempt, SmsProviderAccount
from tests.automation.helpers import CountingConsole, Driver, end_node, journey, linear_graph, setup_sms, sms_node
from tests.conftest import api_client_for, make_member, make_target, make_workspace

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)  # a Sunday, 10:30 in Tehran


def _reasons(check) -> dict[str, int | None]:
    return {row["reason"]: row["count"] for row in check["exclusions"]}


@pytest.fixture
def world(actor, workspace, monkeypatch):
    CountingConsole(monkeypatch)
    settings = setup_sms(workspace, "console")
    SmsProviderAccount.objects.filter(pk=settings.primary_account_id).update(
        line_kind=LineKind.ADVERTISING, price_mci=1000, price_irancell=900, price_rightel=800, credit=10**6
    )
    people = {
        "mci": make_target(workspace, mobile="+989121110001"),
        "irancell": make_target(workspace, mobile="+989351110002"),
        "rightel": make_target(workspace, mobile="+989211110003"),
        "staff_blacklisted": make_target(workspace),
        "opted_out": make_target(workspace),
        "telecom_blocked": make_target(workspace),
        "no_mobile": make_target(workspace),
        "elsewhere": make_target(workspace, mobile="+989121110008"),
    }
    with time_machine.travel(T0, tick=False):
        other = journey(actor, linear_graph(sms_node("x", body="دیگری"), end_node()), activate=False)
        enroll_subjects(actor=actor, campaign_id=other.id, target_ids=[people["elsewhere"].id])
        campaign = journey(
            actor,
            linear_graph(sms_node("a", body="تخفیف ویژه", append_opt_out=True), end_node()),
            activate=False,
            ends_at=T0 + timedelta(days=30),
        )
        enroll_subjects(
            actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in people.values()], on_conflict="add"
        )
    sms_services.blacklist_add(actor=actor, number=people["staff_blacklisted"].mobile)
    sms_services.blacklist_opt_out(
        workspace_id=workspace.id, number=people["opted_out"].mobile, source=BlacklistSource.REPLY
    )
    telecom_blocks.remember(
        workspace_id=workspace.id, phone=people["telecom_blocked"].mobile, provider="kavenegar", code="14"
    )
    Target.objects.filter(pk=people["no_mobile"].pk).update(mobile=None, landline="+982188776655")
    return campaign, people


def _row_counts() -> dict[str, int]:
    return {m._meta.label: m._default_manager.count() for m in apps.get_models() if not m._meta.proxy}


def test_counts_by_reason_cost_and_finish_then_the_sends_do_what_it_said(actor, workspace, world):
    campaign, people = world
    before = _row_counts()
    with time_machine.travel(T0, tick=False):
        check = journey_launch_check(actor=actor, campaign_id=campaign.id)
    assert _row_counts() == before  # a dry run: nothing written

    assert check["audience"] == 8
    assert _reasons(check) == {
        "no_mobile": 1,
        "blacklisted": 1,
        "opt_out": 1,
        "telecom_blocked": 1,
        "live_elsewhere": 1,
        "frequency_cap": 0,
        "control_group": None,
    }
    assert check["receivers"] == 4 and check["messages"] == 4  # live elsewhere still gets it
    (sms,) = check["channels"]
    assert {o["operator"]: o["receivers"] for o in sms["operators"]} == {
        "mci": 2,
        "irancell": 1,
        "rightel": 1,
        "other": 0,
    }
    parts = sms["steps"][0]["parts"]
    assert sms["steps"][0]["has_opt_out"] and parts == 1
    assert sms["cost"] == parts * (2 * 1000 + 900 + 800)
    assert check["blockers"] == [] and check["ok"]
    assert check["finish"]["at"] == T0  # no rate limit, no window: at once

    # the sends: the same people get nothing, for the same reasons
    with time_machine.travel(T0, tick=False):
        from automation.services.campaigns import journey_campaign_transition

        journey_campaign_transition(actor=actor, campaign_id=campaign.id, action="activate")
    Driver().tick(T0 + timedelta(minutes=1))
    sent = set(SmsAttempt.objects.filter(campaign=campaign).values_list("phone", flat=True))
    assert len(sent) == check["receivers"]
    statuses = Counter(Execution.objects.filter(campaign=campaign).values_list("status", flat=True))
    assert statuses[ExecutionStatus.BLACKLISTED] == 2  # staff blacklist + opt-out
    events = list(target_timeline_events(actor=actor, target_id=people["telecom_blocked"].id))
    assert [e["why_not_sent"] for e in timeline_entries(actor=actor, events=events) if e["why_not_sent"]] == [
        "telecom_blocked"
    ]
    assert people["no_mobile"].mobile not in sent


def test_the_cost_uses_the_providers_prices_per_operator_unless_staff_keep_theirs(actor, workspace, world):
    campaign, _ = world
    account = SmsProviderAccount.objects.get(workspace=workspace)
    # read from the provider (Melipayamak GetSmsPrice): MCI and Irancell; RighTel keeps the typed price
    SmsProviderAccount.objects.filter(pk=account.pk).update(
        provider_prices={"mci": 1185, "irancell": 1310}, prices_checked_at=T0
    )
    with time_machine.travel(T0, tick=False):
        check = journey_launch_check(actor=actor, campaign_id=campaign.id)
    (sms,) = check["channels"]
    assert {o["operator"]: (o["price"], o["price_source"]) for o in sms["operators"]} == {
        "mci": (1185, "provider"),
        "irancell": (1310, "provider"),
        "rightel": (800, "typed"),
        "other": (1185, "provider"),  # priced like MCI
    }
    assert sms["cost"] == 2 * 1185 + 1310 + 800 and sms["account"]["prices_checked_at"] == T0

    SmsProviderAccount.objects.filter(pk=account.pk).update(use_typed_prices=True)
    with time_machine.travel(T0, tick=False):
        (sms,) = journey_launch_check(actor=actor, campaign_id=campaign.id)["channels"]
    assert sms["cost"] == 2 * 1000 + 900 + 800
    assert {o["price_source"] for o in sms["operators"]} == {"typed"}


def test_blockers_advertising_without_opt_out_link_not_allowed_credit_below_cost_empty(actor, workspace, world):
    assert world  # the SMS account and people; this test adds its own campaigns
    account = SmsProviderAccount.objects.get(workspace=workspace)
    account.links_allowed = False
    account.credit = 100
    account.save()
    graph = linear_graph(sms_node("a", body="تخفیف ویژه https://example.ir/x"), end_node())
    with time_machine.travel(T0, tick=False):
        bare = journey(actor, graph, activate=False)
        enroll_subjects(actor=actor, campaign_id=bare.id, target_ids=[make_target(workspace).id for _ in range(2)])
        check = journey_launch_check(actor=actor, campaign_id=bare.id)
        empty = journey_launch_check(actor=actor, campaign_id=journey(actor, graph, activate=False).id)
    assert [b["code"] for b in check["blockers"]] == ["credit_below_cost", "opt_out_missing", "link_not_allowed"]
    assert "لغو۱۱" in check["blockers"][1]["message"] and not check["ok"]
    # nobody yet: a warning, not a blocker (people are enrolled after a journey starts too)
    assert "empty_audience" not in [b["code"] for b in empty["blockers"]]
    assert empty["warnings"][0]["code"] == "empty_audience"

    SmsProviderAccount.objects.filter(pk=account.pk).update(line_kind=LineKind.SERVICE, links_allowed=True, credit=None)
    with time_machine.travel(T0, tick=False):
        check = journey_launch_check(actor=actor, campaign_id=bare.id)
    assert check["blockers"] == [] and [w["code"] for w in check["warnings"]] == ["credit_unknown"]


def test_a_credit_in_messages_pays_message_parts_and_a_credit_in_rials_the_cost(actor, workspace):
    settings = setup_sms(workspace, "melipayamak", {"username": "u", "password": "p"}, senders=("50004001",))
    meli = SmsProviderAccount.objects.get(pk=settings.primary_account_id)
    assert meli.credit_unit == "message"  # Melipayamak's GetCredit answers in messages
    SmsProviderAccount.objects.filter(pk=meli.pk).update(price_mci=1500, credit=1000)
    people = Target.objects.bulk_create(
        [Target(workspace=workspace, name=f"مخاطب {i}", mobile=f"+98912{i:07d}") for i in range(1200)]
    )
    graph = linear_graph(sms_node("a", body="سلام"), end_node())  # one part
    with time_machine.travel(T0, tick=False):
        small = journey(actor, graph, activate=False)
        enroll_subjects(actor=actor, campaign_id=small.id, target_ids=[p.id for p in people[:800]])
        large = journey(actor, graph, activate=False)
        enroll_subjects(actor=actor, campaign_id=large.id, target_ids=[p.id for p in people], on_conflict="add")
        checks = {c: journey_launch_check(actor=actor, campaign_id=c.id) for c in (small, large)}
    (sms,) = checks[small]["channels"]
    # 1,000 messages pay 800 one-part messages, though the cost (1,200,000 rials) is above the number 1,000
    assert (sms["parts"], sms["cost"]) == (800, 800 * 1500)
    assert sms["account"]["credit_unit"] == "message" and sms["account"]["credit_text"] == "۱٬۰۰۰ پیامک"
    assert "credit_below_cost" not in [b["code"] for b in checks[small]["blockers"]]
    (short,) = [b for b in checks[large]["blockers"] if b["code"] == "credit_below_cost"]
    assert "۱٬۰۰۰ پیامک" in short["message"] and "۱٬۲۰۰ پیامک" in short["message"]

    # a Kavenegar account's credit is in rials and weighed against the cost, as before
    kave = SmsProviderAccount.objects.create(
        workspace=workspace, name="کاوه", provider="kavenegar", credentials='{"api_key": "K"}', senders=["3000"]
    )
    assert kave.credit_unit == "rial"
    SmsProviderAccount.objects.filter(pk=kave.pk).update(price_mci=1500, credit=800 * 1500)
    settings.primary_account = kave
    settings.save()
    with time_machine.travel(T0, tick=False):
        enough = journey_launch_check(actor=actor, campaign_id=small.id)
        SmsProviderAccount.objects.filter(pk=kave.pk).update(credit=800 * 1500 - 1)
        short = journey_launch_check(actor=actor, campaign_id=small.id)
    assert enough["channels"][0]["account"]["credit_text"] == "۱٬۲۰۰٬۰۰۰ ریال"
    assert "credit_below_cost" not in [b["code"] for b in enough["blockers"]]
    assert [b["message"] for b in short["blockers"] if b["code"] == "credit_below_cost"] == [
        "اعتبار حساب پیامک از هزینه برآوردی این ارسال کمتر است."
    ]

    # staff who know their Melipayamak account counts rials say so on the account: then the cost is weighed
    settings.primary_account = meli
    settings.save()
    sms_services.sms_account_update(actor=actor, account_id=meli.pk, data={"credit_unit": "rial"})
    with time_machine.travel(T0, tick=False):
        check = journey_launch_check(actor=actor, campaign_id=small.id)
    assert "credit_below_cost" in [b["code"] for b in check["blockers"]]
    assert check["channels"][0]["account"]["credit_text"] == "۱٬۰۰۰ ریال"


def test_a_console_account_reports_its_demo_credit_and_a_real_provider_never_read_still_warns(
    actor, workspace, settings
):
    """The console (the embedded default's demo provider) answers the timer's credit read with a fixed large
    credit in the account's unit, so a demo launch check shows it and no «not read» warning; Kavenegar unchanged."""
    from sms.credit import credit_read
    from sms.providers.base import POOL

    sms = setup_sms(workspace, "console")
    console = SmsProviderAccount.objects.get(pk=sms.primary_account_id)
    graph = linear_graph(sms_node("a", body="سلام"), end_node())
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, graph, activate=False)
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id for _ in range(3)])
        unread = journey_launch_check(actor=actor, campaign_id=campaign.id)
    assert "credit_unknown" in [w["code"] for w in unread["warnings"]]  # before the first read, as before

    assert credit_read(now=T0) == {"asked": 1, "read": 1, "low": 0, "priced": 0, "price_failed": 0, "resumed": 0}
    with time_machine.travel(T0, tick=False):
        check = journey_launch_check(actor=actor, campaign_id=campaign.id)
    assert "credit_unknown" not in [w["code"] for w in check["warnings"]] and check["ok"]
    assert check["channels"][0]["account"]["credit_text"] == "۱۰٬۰۰۰٬۰۰۰٬۰۰۰ ریال"
    # an account that counts message parts is answered in message parts
    sms_services.sms_account_update(actor=actor, account_id=console.pk, data={"credit_unit": "message"})
    credit_read(now=T0)
    with time_machine.travel(T0, tick=False):
        check = journey_launch_check(actor=actor, campaign_id=campaign.id)
    assert check["channels"][0]["account"]["credit_text"] == "۱٬۰۰۰٬۰۰۰ پیامک"
    assert "credit_unknown" not in [w["code"] for w in check["warnings"]]

    # a Kavenegar account whose read got no answer (its panel unreachable) is still «not read»: the warning stays
    POOL.clear()
    settings.SMS_PROVIDER_BASE_URLS = {"kavenegar": "http://127.0.0.1:9"}
    kave = SmsProviderAccount.objects.create(
        workspace=workspace, name="کاوه", provider="kavenegar", credentials='{"api_key": "K"}', senders=["3000"]
    )
    sms.primary_account = kave
    sms.save()
    assert credit_read(now=T0)["read"] == 1  # the console's only
    with time_machine.travel(T0, tick=False):
        check = journey_launch_check(actor=actor, campaign_id=campaign.id)
    assert "credit_unknown" in [w["code"] for w in check["warnings"]]
    assert SmsProviderAccount.objects.get(pk=kave.pk).credit is None


def test_finish_time_follows_rate_window_and_daily_limit():
    from automation.engine.window import SendWindow

    window = SendWindow.from_config(
        {"timezone": "Asia/Tehran", "days": {"sun": [["09:00", "12:00"]], "mon": [["09:00", "12:00"]]}}
    )
    # Sunday 10:30 Tehran: 90 minutes left today at 10/min = 900, the daily limit 500 holds it to 500 today
    at = finish_at(start=T0, messages=700, rate_per_minute=10, window=window, daily_limit=500, tz="Asia/Tehran")
    assert at == datetime(2026, 11, 2, 5, 50, tzinfo=UTC)  # Monday 09:00 Tehran + 200/10 minutes
    assert finish_at(start=T0, messages=10, rate_per_minute=None, window=None, daily_limit=None, tz="UTC") == T0
    assert finish_at(start=T0, messages=10, rate_per_minute=1, window=None, daily_limit=0, tz="UTC") is None


def test_the_api_dry_run_changes_nothing_and_stays_in_its_workspace(api, actor, workspace, world):
    campaign, _ = world
    stranger_ws = make_workspace("x")
    stranger = api_client_for(make_member(stranger_ws), stranger_ws)
    before = _row_counts()
    with time_machine.travel(T0, tick=False):
        response = api.get(f"/api/v1/campaigns/{campaign.id}/journey/launch-check")
    assert response.status_code == 200
    assert _row_counts() == before
    data = response.json()
    assert data["receivers"] == 4 and data["ok"] is True
    assert {r["reason"]: r["text"] for r in data["exclusions"]}["blacklisted"] == "۱"
    assert data["channels"][0]["account"]["line_kind"] == "advertising"
    assert "credentials" not in data["channels"][0]["account"]
    assert stranger.get(f"/api/v1/campaigns/{campaign.id}/journey/launch-check").status_code == 404


def test_a_large_audience_is_counted_among_its_first_rows_said_as_an_estimate(actor, workspace, world, monkeypatch):
    """Past ``SAMPLE`` targets every reason is counted among rows spread over the audience (ids from its executions,
    read by id: bounded whatever the audience) and scaled to it, said as an estimate («حدود …»)."""
    from campaigns.platform import counts

    campaign, people = world
    with time_machine.travel(T0, tick=False):
        exact = journey_launch_check(actor=actor, campaign_id=campaign.id)
    monkeypatch.setattr(counts, "SAMPLE", 4)  # the audience (8) is "large": 4 of its rows are looked at
    monkeypatch.setattr(sms_launch, "PROBE", 0)  # no kept set is small enough to be driven from
    with time_machine.travel(T0, tick=False):
        check = journey_launch_check(actor=actor, campaign_id=campaign.id)
    rows = {r["reason"]: r for r in check["exclusions"]}
    counted = [rows[r] for r in ("no_mobile", "blacklisted", "opt_out", "telecom_blocked", "live_elsewhere")]
    assert all(r["estimated"] and r["text"].startswith("حدود") for r in counted)
    assert check["receivers_estimated"] and check["receivers_text"].endswith("(برآورد)")
    assert check["channels"][0]["operators_estimated"]
    assert not exact["receivers_estimated"] and not any(r["estimated"] for r in exact["exclusions"])
    # the four rows looked at are spread over the target ids of its live executions: counted there, doubled
    first, _ = counts._spread_ids(
        Execution.objects.filter(campaign=campaign).order_by("subject_id").values_list("subject_id", flat=True), 4
    )
    kept = {people[k].id: k for k in people}
    looked = {kept[i] for i in first}
    expected = {
        "no_mobile": "no_mobile",
        "staff_blacklisted": "blacklisted",
        "opted_out": "opt_out",
        "telecom_blocked": "telecom_blocked",
        "elsewhere": "live_elsewhere",
    }
    for who, reason in expected.items():
        assert rows[reason]["count"] == (2 if who in looked else 0), (reason, looked)


def test_the_people_behind_a_large_audiences_count_are_looked_for_among_its_sample(
    actor, workspace, world, client, owner, monkeypatch
):
    """The targets page behind an estimated count (``?excluded=``) looks among the same first rows the estimate
    came from when the audience is larger than the sample (bounded), and says so; a reason counted exactly from
    its small side (the blacklist) lists all of its people; a small audience: all of it."""
    from campaigns.platform import counts

    campaign, people = world
    client.force_login(owner)
    url = f"/automation/campaigns/{campaign.id}/targets/?excluded="
    whole = client.get(url + "no_mobile").content.decode()
    assert people["no_mobile"].name in whole and 'data-testid="excluded-sample"' not in whole
    first, _ = counts._spread_ids(
        Execution.objects.filter(campaign=campaign).order_by("subject_id").values_list("subject_id", flat=True), 4
    )
    monkeypatch.setattr(counts, "SAMPLE", 4)
    page = client.get(url + "no_mobile").content.decode()
    assert 'data-testid="excluded-sample"' in page and "نمونه‌ای از ۴ مخاطب" in page
    assert (people["no_mobile"].name in page) == (people["no_mobile"].id in first)
    for reason, who in (("blacklisted", "staff_blacklisted"), ("telecom_blocked", "telecom_blocked")):
        page = client.get(url + reason).content.decode()
        assert people[who].name in page and 'data-testid="excluded-sample"' not in page, reason
        assert people["mci"].name not in page


def test_a_reason_whose_kept_set_is_small_is_counted_exactly_from_that_side(actor, workspace, world, monkeypatch):
    """Past the sample, the blacklist's and the operators' blocks' numbers (each at most ``PROBE``) are driven from:
    the targets holding them, those in the audience (one indexed probe): exact counts, not estimates."""
    from campaigns.platform import counts

    campaign, _ = world
    monkeypatch.setattr(counts, "SAMPLE", 2)
    with time_machine.travel(T0, tick=False):
        check = journey_launch_check(actor=actor, campaign_id=campaign.id)
    rows = {r["reason"]: r for r in check["exclusions"]}
    for reason in ("blacklisted", "opt_out", "telecom_blocked"):
        assert rows[reason]["count"] == 1 and not rows[reason]["estimated"], rows[reason]
        assert rows[reason]["text"] == "۱"
    assert rows["no_mobile"]["estimated"] and rows["live_elsewhere"]["estimated"]  # only the sample knows them
    assert check["receivers_estimated"]
    # a blacklisted number outside the audience is not counted
    sms_services.blacklist_add(actor=actor, number=make_target(workspace, mobile="+989127770001").mobile)
    with time_machine.travel(T0, tick=False):
        again = journey_launch_check(actor=actor, campaign_id=campaign.id)
    assert {r["reason"]: r["count"] for r in again["exclusions"]}["blacklisted"] == 1


def test_a_large_audience_imported_in_batches_is_estimated_across_its_ids(actor, workspace, world):
    """The sample stands for the whole audience, not its oldest batch: 10,000 people whose first 5,000 ids have no
    mobile (an old import) and the rest do → «no mobile» is estimated near 5,000 (the lowest 2,000 ids said
    10,000); the people behind the count are looked for among the same sample, consistently with it."""
    from automation.launch_check import excluded_subject_ids
    from campaigns.platform import counts

    _, _ = world
    old = Target.objects.bulk_create(
        Target(workspace=workspace, name=f"قدیمی {i}", mobile=f"+98933{i:07d}", landline=f"+98218{i:07d}")
        for i in range(5_000)
    )
    new = Target.objects.bulk_create(
        Target(workspace=workspace, name=f"تازه {i}", mobile=f"+98935{i:07d}") for i in range(5_000)
    )
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a", body="سلام"), end_node()), activate=False)
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in old + new], on_conflict="add")
    # the old batch's mobiles were dropped since (a landline kept): the first 5,000 ids have none
    Target.objects.filter(pk__in=[t.pk for t in old]).update(mobile=None)
    with time_machine.travel(T0, tick=False):
        check = journey_launch_check(actor=actor, campaign_id=campaign.id)
    row = {r["reason"]: r for r in check["exclusions"]}["no_mobile"]
    assert check["audience"] == 10_000 and row["estimated"]
    assert abs(row["count"] - 5_000) <= 250, row  # within 5 %
    ids, looked_at = excluded_subject_ids(actor=actor, campaign_id=campaign.id, reason="no_mobile")
    assert looked_at and looked_at <= counts.SAMPLE
    listed = Target.objects.filter(pk__in=ids).count()
    assert round(listed * 10_000 / looked_at) == row["count"]  # the page's people are the count's
    # the same data gives the same sample (a repeated view agrees)
    with time_machine.travel(T0, tick=False):
        again = journey_launch_check(actor=actor, campaign_id=campaign.id)
    assert {r["reason"]: r for r in again["exclusions"]}["no_mobile"] == row
