"""Auto-enroll rule: new targets only by default, caps per check and per workspace day, cursor, skips, locking."""

import threading
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from automation.choices import EventType
from automation.models import AutoEnrollRule, Execution, ExecutionEvent
from automation.services.auto_enroll import auto_enroll_check, auto_enroll_check_all, auto_enroll_rule_set
from automation.services.enrollment import enroll_subjects
from campaigns.choices import Role
from campaigns.models import Target
from campaigns.platform.errors import ValidationFailed
from sms.services import blacklist_add
from tests.api_base import TenantIsolationCases
from tests.conftest import api_client_for, make_actor, make_member, make_target

from .helpers import end_node, journey, linear_graph, setup_sms, sms_node

GRAPH = linear_graph(sms_node("a"), end_node())
RULE = {"province": "Fars"}


@pytest.fixture
def campaign(actor, workspace):
    setup_sms(workspace)
    return journey(actor, GRAPH)


def _enrolled(campaign) -> set[int]:
    return set(Execution.objects.filter(campaign=campaign).values_list("subject_id", flat=True))


def _targets(workspace, n: int, **fields) -> list[Target]:
    return [make_target(workspace, province=fields.get("province", "Fars")) for _ in range(n)]


@pytest.mark.django_db
def test_empty_or_unknown_rule_is_refused(actor, campaign):
    for filters in ({}, {"province": ""}, {"status": []}, {"colour": "red"}):
        with pytest.raises(ValidationFailed) as exc:
            auto_enroll_rule_set(actor=actor, campaign_id=campaign.id, filters=filters)
        assert "filters" in exc.value.details
    assert not AutoEnrollRule.objects.exists()


@pytest.mark.django_db
def test_only_new_targets_by_default_and_enrolled_as_auto(actor, workspace, campaign):
    existing = make_target(workspace, province="Fars")
    rule = auto_enroll_rule_set(actor=actor, campaign_id=campaign.id, filters=RULE)
    new, elsewhere = make_target(workspace, province="Fars"), make_target(workspace, province="Kerman")
    stats = auto_enroll_check(rule_id=rule.id)
    assert _enrolled(campaign) == {new.id}
    assert existing.id not in _enrolled(campaign) and elsewhere.id not in _enrolled(campaign)
    assert stats["enrolled"] == 1 and not stats["waiting"]
    event = ExecutionEvent.objects.get(campaign=campaign, subject_id=new.id, type=EventType.ENROLLED)
    assert event.data["source"] == "auto" and "خودکار" in event.message
    rule.refresh_from_db()
    assert rule.cursor == new.id and rule.day_count == 1 and rule.last_check["enrolled"] == 1
    assert auto_enroll_check(rule_id=rule.id)["enrolled"] == 0  # each target once


@pytest.mark.django_db
def test_existing_targets_only_after_their_count_is_confirmed(actor, workspace, campaign):
    existing = _targets(workspace, 3)
    with pytest.raises(ValidationFailed) as exc:
        auto_enroll_rule_set(actor=actor, campaign_id=campaign.id, filters=RULE, include_existing=True)
    assert exc.value.details["existing_count"] == 3
    rule = auto_enroll_rule_set(
        actor=actor, campaign_id=campaign.id, filters=RULE, include_existing=True, confirmed_existing_count=3
    )
    assert rule.since is None and rule.cursor == 0
    auto_enroll_check(rule_id=rule.id)
    assert _enrolled(campaign) == {t.id for t in existing}


@pytest.mark.django_db
def test_conflicts_blacklisted_and_invalid_are_skipped_with_counts(actor, workspace, campaign):
    other = journey(actor, GRAPH)
    rule = auto_enroll_rule_set(actor=actor, campaign_id=campaign.id, filters=RULE)
    ready, in_other, blocked = _targets(workspace, 3)
    landline = make_target(workspace, landline="+982188776655", province="Fars")
    enroll_subjects(actor=actor, campaign_id=other.id, target_ids=[in_other.id])
    blacklist_add(actor=actor, number=blocked.mobile)
    stats = auto_enroll_check(rule_id=rule.id)
    assert _enrolled(campaign) == {ready.id}
    assert (stats["enrolled"], stats["conflicts"], stats["blacklisted"], stats["invalid"]) == (1, 1, 1, 1)
    rule.refresh_from_db()
    assert rule.cursor == landline.id  # skipped ones are passed, never added later on their own
    assert rule.last_check["conflicts"] == 1


@pytest.mark.django_db
def test_per_check_cap_leaves_the_surplus_for_the_next_check(actor, workspace, campaign):
    rule = auto_enroll_rule_set(actor=actor, campaign_id=campaign.id, filters=RULE, daily_cap=5000)
    targets = sorted(t.id for t in _targets(workspace, 230))
    first = auto_enroll_check(rule_id=rule.id)
    assert first["enrolled"] == 200 and first["waiting"] and first["capped_by"] == "per_check"
    assert _enrolled(campaign) == set(targets[:200])
    rule.refresh_from_db()
    assert rule.cursor == targets[199]
    second = auto_enroll_check(rule_id=rule.id)
    assert second["enrolled"] == 30 and not second["waiting"]
    assert _enrolled(campaign) == set(targets)


@pytest.mark.django_db
def test_daily_cap_counts_the_workspace_day_not_the_utc_day(actor, workspace, campaign):
    assert workspace.time_zone == "Asia/Tehran"  # UTC+03:30
    start = datetime(2025, 3, 10, 19, 0, tzinfo=UTC)  # 22:30 in Tehran
    with time_machine.travel(start, tick=False):
        rule = auto_enroll_rule_set(actor=actor, campaign_id=campaign.id, filters=RULE, daily_cap=3)
    with time_machine.travel(start + timedelta(minutes=5), tick=False):
        targets = sorted(t.id for t in _targets(workspace, 5))
    with time_machine.travel(datetime(2025, 3, 10, 20, 0, tzinfo=UTC), tick=False):  # 23:30 Tehran, 10 March
        assert auto_enroll_check(rule_id=rule.id)["enrolled"] == 3
    with time_machine.travel(datetime(2025, 3, 10, 20, 20, tzinfo=UTC), tick=False):  # 23:50, same day: capped
        stats = auto_enroll_check(rule_id=rule.id)
        assert stats["enrolled"] == 0 and stats["waiting"] and stats["capped_by"] == "daily_cap"
    # 00:05 on 11 March in Tehran — still 10 March in UTC: a new workspace day, the rest is added.
    with time_machine.travel(datetime(2025, 3, 10, 20, 35, tzinfo=UTC), tick=False):
        assert auto_enroll_check(rule_id=rule.id)["enrolled"] == 2
    assert _enrolled(campaign) == set(targets)
    rule.refresh_from_db()
    assert rule.day.isoformat() == "2025-03-11" and rule.day_count == 2


@pytest.mark.django_db
def test_cursor_kept_while_filter_unchanged_and_reset_when_changed(actor, workspace, campaign):
    rule = auto_enroll_rule_set(actor=actor, campaign_id=campaign.id, filters=RULE)
    target = make_target(workspace, province="Fars")
    auto_enroll_check(rule_id=rule.id)
    rule = auto_enroll_rule_set(actor=actor, campaign_id=campaign.id, filters=dict(RULE), daily_cap=50)
    assert rule.cursor == target.id and rule.daily_cap == 50
    rule = auto_enroll_rule_set(actor=actor, campaign_id=campaign.id, filters={"province": "Kerman"})
    assert rule.cursor == 0 and rule.filters == {"province": "Kerman"}


@pytest.mark.django_db
def test_rule_change_writes_only_the_changed_columns(actor, workspace, campaign):
    rule = auto_enroll_rule_set(actor=actor, campaign_id=campaign.id, filters=RULE)
    auto_enroll_check(rule_id=rule.id)
    with CaptureQueriesContext(connection) as unchanged:
        auto_enroll_rule_set(actor=actor, campaign_id=campaign.id, filters=dict(RULE))
    assert not [q for q in unchanged.captured_queries if q["sql"].startswith("UPDATE")]
    with CaptureQueriesContext(connection) as changed:
        auto_enroll_rule_set(actor=actor, campaign_id=campaign.id, filters=dict(RULE), daily_cap=50)
    [update] = [q["sql"] for q in changed.captured_queries if q["sql"].startswith("UPDATE")]
    assert '"daily_cap"' in update
    assert not any(column in update for column in ('"day_count"', '"last_check"', '"cursor"', '"filters"'))
    rule.refresh_from_db()
    assert rule.daily_cap == 50 and rule.last_check_at is not None


@pytest.mark.django_db
def test_paused_or_disabled_rule_adds_nobody(actor, workspace, campaign):
    from automation.services.campaigns import journey_campaign_transition

    rule = auto_enroll_rule_set(actor=actor, campaign_id=campaign.id, filters=RULE)
    make_target(workspace, province="Fars")
    journey_campaign_transition(actor=actor, campaign_id=campaign.id, action="pause")
    assert auto_enroll_check_all()["rules"] == 0
    assert auto_enroll_check(rule_id=rule.id) == {"skipped": "not_running"}
    journey_campaign_transition(actor=actor, campaign_id=campaign.id, action="resume")
    auto_enroll_rule_set(actor=actor, campaign_id=campaign.id, filters=RULE, enabled=False)
    assert auto_enroll_check(rule_id=rule.id) == {"skipped": "not_running"}
    assert _enrolled(campaign) == set()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_two_checks_at_once_one_skips(actor, workspace):
    assert connection.vendor == "postgresql"
    setup_sms(workspace)
    campaign = journey(actor, GRAPH)
    rule = auto_enroll_rule_set(actor=actor, campaign_id=campaign.id, filters=RULE)
    target = make_target(workspace, province="Fars")
    holding, release = threading.Event(), threading.Event()
    results: dict = {}

    def first():  # a check in progress: holds the rule's row lock
        try:
            with transaction.atomic():
                AutoEnrollRule.objects.select_for_update().get(pk=rule.id)
                holding.set()
                release.wait(30)
        finally:
            connections.close_all()

    t1 = threading.Thread(target=first)
    t1.start()
    assert holding.wait(30)
    try:
        results["second"] = auto_enroll_check(rule_id=rule.id)
        results["all"] = auto_enroll_check_all()
    finally:
        release.set()
        t1.join()
    assert results["second"] == {"skipped": "busy"}
    assert results["all"]["busy"] == 1 and results["all"]["rules"] == 0
    assert _enrolled(campaign) == set()
    assert auto_enroll_check(rule_id=rule.id)["enrolled"] == 1  # the next check does the work
    assert _enrolled(campaign) == {target.id}


# --------------------------------------------------------------------------- API
@pytest.mark.django_db
def test_api_rule_round_trip_and_existing_count(workspace, owner, campaign):
    client = api_client_for(owner, workspace)
    url = f"/api/v1/campaigns/{campaign.id}/auto-enroll"
    body = client.get(url).json()
    assert body["exists"] is False and body["enabled"] is False
    _targets(workspace, 2)
    count = client.post(f"{url}/existing-count", {"filters": RULE}, format="json")
    assert count.status_code == 200 and count.json() == {"existing_count": 2}
    refused = client.put(url, {"filters": RULE, "include_existing": True}, format="json")
    assert refused.status_code == 400 and refused.json()["error"]["details"]["existing_count"] == 2
    assert client.put(url, {"filters": {}}, format="json").status_code == 400
    assert client.put(url, {"filters": RULE, "daily_cap": 5001}, format="json").status_code == 400
    saved = client.put(url, {"filters": RULE, "daily_cap": 20}, format="json")
    assert saved.status_code == 200, saved.content
    assert saved.json()["exists"] and saved.json()["daily_cap"] == 20 and saved.json()["since"]
    assert client.get(url).json()["filters"] == RULE


@pytest.mark.django_db
def test_api_filters_of_the_wrong_type_or_key_are_a_400_naming_them(workspace, owner, campaign):
    """A filter the targets list cannot read (an object for a city, text for a list id, an unknown key) was
    stored and answered as it was sent: now a 400 naming it, on every endpoint that takes the filter."""
    client = api_client_for(owner, workspace)
    url = f"/api/v1/campaigns/{campaign.id}/auto-enroll"
    cases = (
        ({"city": {"": None}, "list": [""]}, {"city", "list"}),
        ({"colour": "red"}, {"colour"}),
        # a number for a text or a text for a number: stored as sent, it was answered in a type the schema denies
        (
            {"city": 0, "province": 1, "q": 2, "list": "5", "owner": "1", "priority_min": "3"},
            {"city", "province", "q", "list", "owner", "priority_min"},
        ),
        ({"created_after": 20260101}, {"created_after"}),
    )
    for bad, named in cases:
        for response in (
            client.put(url, {"filters": bad}, format="json"),
            client.post(f"{url}/existing-count", {"filters": bad}, format="json"),
            client.post(f"/api/v1/campaigns/{campaign.id}/enrollments/preview", {"filters": bad}, format="json"),
        ):
            assert response.status_code == 400, response.content
            assert set(response.json()["error"]["details"]["filters"]) == named
    assert not AutoEnrollRule.objects.exists()


@pytest.mark.django_db
def test_api_viewer_reads_but_cannot_set_rule(workspace, campaign):
    viewer = api_client_for(make_member(workspace, Role.VIEWER), workspace)
    url = f"/api/v1/campaigns/{campaign.id}/auto-enroll"
    assert viewer.get(url).status_code == 200
    assert viewer.put(url, {"filters": RULE}, format="json").status_code == 403
    assert viewer.post(f"{url}/existing-count", {"filters": RULE}, format="json").status_code == 403
    assert not AutoEnrollRule.objects.exists()


class TestAutoEnrollIsolation(TenantIsolationCases):
    detail_url = "/api/v1/campaigns/{id}/auto-enroll"
    update_payload = {"filters": RULE}
    update_method = "put"
    can_delete = False

    def make(self, workspace):
        actor = make_actor(workspace)
        setup_sms(workspace)
        return journey(actor, GRAPH)

    def test_rule_of_other_workspace_is_not_created_or_counted(self, setup):
        client, _, foreign = setup
        url = f"/api/v1/campaigns/{foreign.id}/auto-enroll"
        assert client.put(url, {"filters": RULE}, format="json").status_code == 404
        assert client.post(f"{url}/existing-count", {"filters": RULE}, format="json").status_code == 404
        assert not AutoEnrollRule.objects.filter(campaign=foreign).exists()


@pytest.mark.django_db
def test_a_check_that_finds_nobody_new_keeps_the_last_useful_numbers(actor, workspace, campaign, client):
    rule = auto_enroll_rule_set(actor=actor, campaign_id=campaign.id, filters=RULE)
    _targets(workspace, 2)
    useful_at = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)
    assert auto_enroll_check(rule_id=rule.id, now=useful_at)["enrolled"] == 2
    empty_at = useful_at + timedelta(minutes=5)
    assert auto_enroll_check(rule_id=rule.id, now=empty_at)["examined"] == 0

    rule.refresh_from_db()
    assert rule.last_check_at == empty_at  # the latest check is recorded…
    assert rule.last_check["enrolled"] == 2 and rule.last_useful_at == useful_at  # …without erasing the numbers
    client.force_login(actor.user)
    page = client.get(f"/automation/campaigns/{campaign.id}/auto-enroll/").content.decode()
    assert "مخاطب تازه‌ای نبود" in page and "آخرین بررسی با مخاطب تازه" in page and "۲ افزوده" in page


@pytest.mark.django_db
def test_the_live_count_reads_a_lists_members_and_the_page_caps_it(actor, workspace, campaign, client, monkeypatch):
    """A rule on a list is counted along the list's members (exact for the API); the page's live count stops
    past ``COUNT_CAP`` and says «بیش از …» (docs/benchmarks.md "The five live counts")."""
    from automation import auto_enroll_views
    from campaigns.choices import TargetStatus
    from tests.conftest import make_list

    members = make_list(workspace, "فارس")
    for target in _targets(workspace, 4):
        target.lists.add(members)
    make_target(workspace, status=TargetStatus.CONVERTED).lists.add(members)
    _targets(workspace, 2)  # new, not in the list
    rule = {"list": members.id, "status": [TargetStatus.NEW]}
    client.force_login(actor.user)
    url = f"/api/v1/campaigns/{campaign.id}/auto-enroll/existing-count"
    assert api_client_for(actor.user, workspace).post(url, {"filters": rule}, format="json").json() == {
        "existing_count": 4
    }
    page = f"/automation/campaigns/{campaign.id}/auto-enroll/count/"
    shown = client.post(page, {"list": members.id, "status": ["new"]}).content.decode()
    assert "<strong>۴</strong>" in shown and "بیش از" not in shown
    monkeypatch.setattr(auto_enroll_views, "COUNT_CAP", 3)
    shown = client.post(page, {"list": members.id, "status": ["new"]}).content.decode()
    assert "<strong>بیش از ۳</strong> مخاطب موجود" in shown
