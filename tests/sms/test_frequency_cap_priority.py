"""A campaign's priority in the frequency cap across campaigns (docs/sms.md "Frequency cap"): ``high`` sends are
served first when sends to one number meet in one batch, ``low`` sends never take the last unit of a rule whose
limit is 2 or more, ``normal`` is the default; set on the campaign's edit page (Persian) and in the API's journey
settings (typed), read back in the journey stats."""

from collections import Counter
from datetime import UTC, date, datetime, timedelta

import time_machine

from automation.choices import ExecutionStatus
from automation.models import Execution
from automation.services.enrollment import enroll_subjects
from campaigns.models import Campaign
from sms import frequency_cap
from sms.choices import LineKind
from sms.models import SmsAttempt, SmsProviderAccount
from tests.automation.helpers import CountingConsole, Driver, end_node, journey, linear_graph, setup_sms, sms_node
from tests.conftest import make_target

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)  # Sunday 10:30 in Tehran


def _advertising(workspace, rules):
    settings = setup_sms(workspace, "console", frequency_cap_rules=rules)
    SmsProviderAccount.objects.filter(pk=settings.primary_account_id).update(line_kind=LineKind.ADVERTISING)


def _campaign(actor, people, priority=None, at=T0):
    settings = {"frequency_cap_priority": priority} if priority else {}
    with time_machine.travel(at, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a", body="تخفیف"), end_node()), settings=settings)
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[p.id for p in people], on_conflict="add")
    return campaign


def _sent(campaign) -> int:
    return SmsAttempt.objects.filter(campaign=campaign).count()


def test_a_low_priority_campaign_leaves_the_last_unit_of_a_period_to_the_others(actor, workspace, monkeypatch):
    CountingConsole(monkeypatch)
    _advertising(workspace, [{"period": "day", "limit": 3}])
    person = make_target(workspace)
    low_a, low_b = _campaign(actor, [person], "low"), _campaign(actor, [person], "low")
    normal = _campaign(actor, [person])
    Driver().tick(T0 + timedelta(minutes=1))
    # normal first, then the low ones up to 3 − 1: the third unit is kept
    assert (_sent(normal), _sent(low_a) + _sent(low_b)) == (1, 1)
    assert frequency_cap.sent_on(workspace.id, person.mobile, date(2026, 11, 1)) == 2
    assert Execution.objects.filter(campaign__in=[low_a, low_b], status=ExecutionStatus.WAITING).count() == 1

    # a normal campaign later the same day gets the kept unit; nobody goes above the cap
    later = _campaign(actor, [person], at=T0 + timedelta(hours=2))
    Driver().tick(T0 + timedelta(hours=2, minutes=1))
    assert _sent(later) == 1
    assert SmsAttempt.objects.filter(phone=person.mobile).count() == 3


def test_with_a_limit_of_one_a_low_priority_campaign_still_sends(actor, workspace, monkeypatch):
    CountingConsole(monkeypatch)
    _advertising(workspace, [{"period": "week", "limit": 1}])
    person = make_target(workspace)
    low = _campaign(actor, [person], "low")
    Driver().tick(T0 + timedelta(minutes=1))
    assert _sent(low) == 1  # nothing to keep back of a single unit: low is never starved for good


def test_high_priority_sends_are_served_first_when_they_meet_in_a_batch(actor, workspace, monkeypatch):
    CountingConsole(monkeypatch)
    _advertising(workspace, [{"period": "day", "limit": 1}])
    people = [make_target(workspace) for _ in range(3)]
    normal = _campaign(actor, people)  # enrolled first: first in the scheduler's fair order
    high = _campaign(actor, people, "high")
    Driver().tick(T0 + timedelta(minutes=1))
    assert Counter(SmsAttempt.objects.values_list("campaign_id", flat=True)) == {high.id: 3}
    assert Execution.objects.filter(campaign=normal, status=ExecutionStatus.WAITING).count() == 3


def test_the_priority_is_set_in_the_api_and_read_in_the_journey_stats(api, actor, workspace):
    setup_sms(workspace)
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()), activate=False)
    url = f"/api/v1/campaigns/{campaign.id}/journey"
    assert api.get(f"{url}/stats").json()["limits"]["frequency_cap_priority"] == "normal"
    response = api.patch(url, {"settings": {"frequency_cap_priority": "low"}}, format="json")
    assert response.status_code == 200, response.json()
    assert Campaign.objects.get(pk=campaign.pk).journey_settings == {"frequency_cap_priority": "low"}
    assert api.get(f"{url}/stats").json()["limits"]["frequency_cap_priority"] == "low"
    for wrong in ("urgent", 3, None):
        refused = api.patch(url, {"settings": {"frequency_cap_priority": wrong}}, format="json")
        assert refused.status_code == 400, wrong
    assert Campaign.objects.get(pk=campaign.pk).journey_settings == {"frequency_cap_priority": "low"}
    schemas = api.get("/api/schema/?format=json").json()["components"]["schemas"]
    assert "frequency_cap_priority" in schemas["JourneySettingsRequest"]["properties"]
    assert schemas["FrequencyCapPriorityEnum"]["enum"] == ["high", "normal", "low"]
    assert schemas["FrequencyCapRule"]["properties"]["limit"]["maximum"] == 500  # the SMS settings' rules, typed


def test_the_campaign_edit_page_sets_the_priority_in_persian(client, owner, actor, workspace):
    setup_sms(workspace)
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()), activate=False, settings={"stop_when_facts": []})
    client.force_login(owner)
    page = client.get(f"/automation/campaigns/{campaign.id}/edit/").content.decode()
    assert "اولویت در سقف پیامک تبلیغاتی" in page
    assert all(label in page for label in ("بالا", "عادی", "پایین"))
    response = client.post(
        f"/automation/campaigns/{campaign.id}/edit/", {"name": "کمپین", "frequency_cap_priority": "high"}
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    campaign.refresh_from_db()
    assert campaign.journey_settings.get("frequency_cap_priority") == "high"
    client.post(f"/automation/campaigns/{campaign.id}/edit/", {"name": "کمپین", "frequency_cap_priority": "normal"})
    campaign.refresh_from_db()
    assert "frequency_cap_priority" not in campaign.journey_settings  # the default is not stored


def test_the_launch_check_counts_a_low_priority_campaigns_people_a_unit_short_of_a_limit(
    actor, workspace, owner, client, monkeypatch
):
    from automation.launch_check import journey_launch_check

    CountingConsole(monkeypatch)
    _advertising(workspace, [{"period": "day", "limit": 2}])
    person, other = make_target(workspace, name="یک‌بار گرفته"), make_target(workspace, name="هیچ نگرفته")
    _campaign(actor, [person])
    Driver().tick(T0 + timedelta(minutes=1))  # one of the day's two units taken

    def at_cap(priority):
        with time_machine.travel(T0 + timedelta(minutes=2), tick=False):
            graph = linear_graph(sms_node("a", body="تخفیف", append_opt_out=True), end_node())
            settings = {"frequency_cap_priority": priority} if priority else {}
            campaign = journey(actor, graph, activate=False, settings=settings)
            enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[person.id, other.id], on_conflict="add")
            check = journey_launch_check(actor=actor, campaign_id=campaign.id)
        return campaign, next(r for r in check["exclusions"] if r["reason"] == "frequency_cap")["count"]

    assert at_cap(None)[1] == 0  # a normal campaign may still take the last unit
    low, count = at_cap("low")
    assert count == 1  # a low one may not: he waits for tomorrow
    client.force_login(owner)
    with time_machine.travel(T0 + timedelta(minutes=2), tick=False):
        page = client.get(f"/automation/campaigns/{low.id}/targets/?excluded=frequency_cap").content.decode()
    assert "یک‌بار گرفته" in page and "هیچ نگرفته" not in page


def test_the_priority_is_said_on_the_dashboard_and_in_the_launch_check_while_a_cap_rule_is_on(
    api, actor, workspace, owner, client
):
    settings = setup_sms(workspace)
    campaign = journey(
        actor, linear_graph(sms_node("a"), end_node()), activate=False, settings={"frequency_cap_priority": "low"}
    )
    url = f"/api/v1/campaigns/{campaign.id}/journey"
    client.force_login(owner)
    # no rule on: the priority is not said (it holds nothing)
    assert api.get(f"{url}/stats").json()["limits"]["frequency_cap_priority_said"] is None
    assert api.get(f"{url}/launch-check").json()["frequency_cap_priority"] is None
    assert "اولویت در سقف پیامک تبلیغاتی" not in client.get(f"/automation/campaigns/{campaign.id}/").content.decode()

    settings.frequency_cap_rules = [{"period": "week", "limit": 3}]
    settings.save(update_fields=["frequency_cap_rules"])
    said = {"value": "low", "label": "پایین", "text": "اولویت در سقف پیامک تبلیغاتی: پایین"}
    assert api.get(f"{url}/stats").json()["limits"]["frequency_cap_priority_said"] == said
    assert api.get(f"{url}/launch-check").json()["frequency_cap_priority"] == said
    page = client.get(f"/automation/campaigns/{campaign.id}/").content.decode()
    assert 'data-testid="launch-cap-priority">پایین<' in page
    assert 'data-testid="cap-priority-said" title="اولویت در سقف پیامک تبلیغاتی: پایین">پایین<' in page
    schemas = api.get("/api/schema/?format=json").json()["components"]["schemas"]
    assert "frequency_cap_priority" in schemas["LaunchCheckOutput"]["properties"]
    assert "frequency_cap_priority_said" in schemas["JourneyLimitsOutput"]["properties"]
