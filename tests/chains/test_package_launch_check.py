"""The launch check of a chain approval package (docs/journeys.md "Launch check"): every member's check on the
root's audience as submitted, through the engine's registered hook; a dry run over the API; the package page
shows it."""

from django.apps import apps
from django.utils import timezone

from automation.launch_check import package_launch_check
from campaigns.chains.choices import PackageStatus
from campaigns.chains.services.approval import campaign_submit
from campaigns.choices import CampaignStatus
from campaigns.models import Campaign
from campaigns.platform.registry import package_check
from sms.choices import LineKind
from sms.models import SmsProviderAccount
from sms.services import blacklist_add
from tests.automation.helpers import setup_sms
from tests.conftest import api_client_for, make_list, make_member, make_target, make_workspace

from .conftest import make_chain


def _row_counts() -> dict[str, int]:
    return {m._meta.label: m._default_manager.count() for m in apps.get_models() if not m._meta.proxy}


def _submitted(actor, workspace, people=4):
    lst = make_list(workspace)
    targets = [make_target(workspace) for _ in range(people)]
    for person in targets:
        person.lists.add(lst)
    nodes = make_chain(workspace, shape="A>B", source_target_list=lst)
    _, package = campaign_submit(
        actor=actor, campaign_id=nodes["A"].id, expected_chain_revision=nodes["A"].chain_revision
    )
    return package, nodes, targets


def test_every_member_is_checked_on_the_roots_audience(actor, workspace):
    settings = setup_sms(workspace)
    SmsProviderAccount.objects.filter(pk=settings.primary_account_id).update(
        line_kind=LineKind.ADVERTISING, price_mci=1000, credit=10**6
    )
    package, nodes, people = _submitted(actor, workspace)
    blacklist_add(actor=actor, number=people[0].mobile)
    before = _row_counts()
    check = package_check(actor=actor, package_id=package.id)  # the hook the chain pages call
    assert _row_counts() == before
    assert [m["campaign_id"] for m in check["members"]] == [nodes["A"].id, nodes["B"].id]
    root = check["members"][0]
    assert root["audience"] == 4 and root["receivers"] == 3
    assert {r["reason"]: r["count"] for r in root["exclusions"]}["blacklisted"] == 1
    assert root["channels"][0]["cost"] == 3 * 1000  # «سلام»: one part, MCI numbers
    # an advertising line to several numbers without the opt-out line: each member says so
    assert [b["code"] for b in check["blockers"]] == ["opt_out_missing", "opt_out_missing"]
    assert check["blockers"][0]["message"].startswith(f"«{nodes['A'].name}»")


def test_the_api_dry_run_and_the_package_page(actor, workspace, api, client, owner):
    client.force_login(owner)
    setup_sms(workspace)
    package, nodes, _ = _submitted(actor, workspace, people=2)
    before = _row_counts()
    response = api.get(f"/api/v1/campaign-chain-approvals/{package.id}/launch-check")
    assert response.status_code == 200 and _row_counts() == before
    assert response.json()["ok"] is True and len(response.json()["members"]) == 2
    assert package_launch_check(actor=actor, package_id=package.id)["members"][1]["receivers"] == 2
    stranger_ws = make_workspace("x")
    stranger = api_client_for(make_member(stranger_ws), stranger_ws)
    assert stranger.get(f"/api/v1/campaign-chain-approvals/{package.id}/launch-check").status_code == 404
    page = client.get(f"/chains/approvals/{package.id}/").content.decode()
    assert 'data-testid="launch-check"' in page and "بررسی پیش از تأیید" in page and nodes["B"].name in page


def test_approve_is_refused_while_a_blocker_stands_then_approves_once_fixed(actor, workspace, api):
    settings = setup_sms(workspace)
    SmsProviderAccount.objects.filter(pk=settings.primary_account_id).update(line_kind=LineKind.ADVERTISING)
    package, nodes, _ = _submitted(actor, workspace)
    url = f"/api/v1/campaign-chain-approvals/{package.id}/approve"
    body = {"expected_submitted_revision": package.submitted_revision}
    response = api.post(url, body, format="json")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "LAUNCH_BLOCKED"
    assert [b["code"] for b in error["details"]["blockers"]] == ["opt_out_missing", "opt_out_missing"]
    assert error["details"]["blockers"][1]["message"].startswith(f"«{nodes['B'].name}»")
    package.refresh_from_db()
    assert package.status == PackageStatus.SUBMITTED
    assert {c.status for c in Campaign.objects.filter(pk__in=[n.id for n in nodes.values()])} == {
        CampaignStatus.SUBMITTED
    }

    SmsProviderAccount.objects.filter(pk=settings.primary_account_id).update(line_kind=LineKind.SERVICE)
    response = api.post(url, body, format="json")
    assert response.status_code == 200 and response.json()["status"] == "APPROVED"


def test_a_count_links_to_the_people_behind_it(actor, workspace, client, owner):
    setup_sms(workspace)
    package, nodes, people = _submitted(actor, workspace, people=3)
    blacklist_add(actor=actor, number=people[1].mobile)
    client.force_login(owner)
    url = f"/automation/chain-approvals/{package.id}/campaigns/{nodes['B'].id}/excluded/?reason=blacklisted"
    page = client.get(f"/chains/approvals/{package.id}/").content.decode()
    assert url.replace("&", "&amp;") in page  # the member's count of that reason links to them
    listed = client.get(url)
    assert listed.status_code == 200
    assert people[1].name in listed.content.decode()
    assert people[0].name not in listed.content.decode() and people[2].name not in listed.content.decode()
    assert client.get(url.replace("blacklisted", "nonsense")).status_code == 404
    other = make_chain(workspace, shape="A")["A"]  # not a member of this package
    assert client.get(url.replace(f"/{nodes['B'].id}/", f"/{other.id}/")).status_code == 404
    stranger_ws = make_workspace("x")
    client.force_login(make_member(stranger_ws))
    assert client.get(url).status_code in (403, 404)


def test_members_share_the_audiences_reads(actor, workspace):
    """Each member of a package is checked on the same audience: its counts and numbers are read once, a further
    member adds only its own reads (its campaign's other journeys, its settings), not another pass over them."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    setup_sms(workspace)
    reads = {}
    for shape in ("A>B", "A>B>C"):
        lst = make_list(workspace)
        for _ in range(3):
            make_target(workspace).lists.add(lst)
        nodes = make_chain(workspace, shape=shape, source_target_list=lst)
        _, package = campaign_submit(
            actor=actor, campaign_id=nodes["A"].id, expected_chain_revision=nodes["A"].chain_revision
        )
        with CaptureQueriesContext(connection) as ctx:
            package_launch_check(actor=actor, package_id=package.id)
        reads[shape] = [q["sql"] for q in ctx.captured_queries]
    extra = len(reads["A>B>C"]) - len(reads["A>B"])
    counted = [sql for sql in reads["A>B>C"] if "campaigns_target_lists" in sql]
    assert len(counted) == len(set(counted)), "a read over the audience ran twice"
    assert extra <= 6, reads["A>B>C"]


def test_a_large_audience_is_sampled_once_and_its_people_are_looked_for_among_the_sample(
    actor, workspace, client, owner, monkeypatch
):
    """Past ``SAMPLE`` members the package's counts are estimated among members spread over the list (ids along the
    list's index, read by id; the whole list's size is the kept one), and the people behind a count are looked
    for among those same members, said on the page."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from campaigns.platform import counts
    from sms import launch as sms_launch

    setup_sms(workspace)
    package, nodes, people = _submitted(actor, workspace, people=6)
    first, last = sorted(people, key=lambda t: t.id)[0], sorted(people, key=lambda t: t.id)[-1]
    blacklist_add(actor=actor, number=first.mobile)
    blacklist_add(actor=actor, number=last.mobile)
    monkeypatch.setattr(counts, "SAMPLE", 3)  # the audience (6) is "large": 3 of its members are looked at
    monkeypatch.setattr(sms_launch, "PROBE", 0)  # the blacklist is not driven from (see the journey's test)
    with CaptureQueriesContext(connection) as ctx:
        check = package_launch_check(actor=actor, package_id=package.id)
    root = check["members"][0]
    rows = {r["reason"]: r for r in root["exclusions"]}
    assert root["audience"] == 6 and not root["audience_text"].startswith("بیش از")  # the list's kept size
    assert rows["blacklisted"]["estimated"] and rows["blacklisted"]["count"] == 2  # 1 of 3 looked at → 2 of 6
    assert rows["blacklisted"]["text"] == "حدود ۲" and root["receivers_estimated"]
    sampled = [q["sql"] for q in ctx.captured_queries if "campaigns_target_lists" in q["sql"]]
    assert len(sampled) == 3, (
        sampled
    )  # ids along the list's index (its ends, then its ranges), those targets by id: once

    client.force_login(owner)
    url = f"/automation/chain-approvals/{package.id}/campaigns/{nodes['A'].id}/excluded/?reason=blacklisted"
    page = client.get(url).content.decode()
    assert first.name in page and last.name not in page  # the last is not among the 3 looked at
    assert 'data-testid="excluded-sample"' in page and "نمونه‌ای از ۳ مخاطب" in page


def test_a_small_blacklist_is_counted_exactly_against_a_large_package_audience(
    actor, workspace, client, owner, monkeypatch
):
    from campaigns.platform import counts

    setup_sms(workspace)
    package, nodes, people = _submitted(actor, workspace, people=6)
    listed = sorted(people, key=lambda t: t.id)[-2:]  # beyond the sample's first 3
    for person in listed:
        blacklist_add(actor=actor, number=person.mobile)
    monkeypatch.setattr(counts, "SAMPLE", 3)
    check = package_launch_check(actor=actor, package_id=package.id)
    for member in check["members"]:
        row = {r["reason"]: r for r in member["exclusions"]}["blacklisted"]
        assert row["count"] == 2 and not row["estimated"] and row["text"] == "۲"
    # the people behind it: both, though neither is among the sample's first 3, and no "among the first" note
    client.force_login(owner)
    url = f"/automation/chain-approvals/{package.id}/campaigns/{nodes['A'].id}/excluded/?reason=blacklisted"
    page = client.get(url).content.decode()
    assert all(p.name in page for p in listed) and 'data-testid="excluded-sample"' not in page
    assert not any(p.name in page for p in people if p not in listed)


def test_a_list_imported_in_batches_is_estimated_across_its_members(actor, workspace, client, owner):
    """A package's sample is spread over its list (ids along the list's index), not its first members: 10,000
    members whose first 5,000 have no mobile → «no mobile» near 5,000; the people behind the count are the
    sample's, consistently with it."""
    from campaigns.models import Target

    setup_sms(workspace)
    lst = make_list(workspace)
    old = Target.objects.bulk_create(
        Target(workspace=workspace, name=f"قدیمی {i}", landline=f"+98218{i:07d}") for i in range(5_000)
    )
    new = Target.objects.bulk_create(
        Target(workspace=workspace, name=f"تازه {i}", mobile=f"+98935{i:07d}") for i in range(5_000)
    )
    Target.lists.through.objects.bulk_create(
        Target.lists.through(target_id=t.id, targetlist_id=lst.id) for t in old + new
    )
    nodes = make_chain(workspace, shape="A>B", source_target_list=lst)
    _, package = campaign_submit(
        actor=actor, campaign_id=nodes["A"].id, expected_chain_revision=nodes["A"].chain_revision
    )
    root = package_launch_check(actor=actor, package_id=package.id)["members"][0]
    row = {r["reason"]: r for r in root["exclusions"]}["no_mobile"]
    assert root["audience"] == 10_000 and row["estimated"]
    assert abs(row["count"] - 5_000) <= 250, row  # within 5 % (the first 2,000 members said 10,000)
    from automation.launch_check import package_excluded_subject_ids

    ids, looked_at = package_excluded_subject_ids(
        actor=actor, package_id=package.id, campaign_id=nodes["A"].id, reason="no_mobile"
    )
    assert looked_at and round(Target.objects.filter(pk__in=ids).count() * 10_000 / looked_at) == row["count"]


def test_a_follow_ups_finish_is_estimated_from_its_own_planned_run(actor, workspace):
    """A follow-up sends at its parent's run + its own timing (docs/chains.md "Schedule maths"), so its finish
    estimate starts there, level by level: B two days after the root's run, C two days after B's."""
    from datetime import timedelta

    from campaigns.chains import schedule as sched

    setup_sms(workspace)
    lst = make_list(workspace)
    for _ in range(2):
        make_target(workspace).lists.add(lst)
    nodes = make_chain(workspace, shape="A>B>C", source_target_list=lst)  # monthly on the 1st; +2 days each
    _, package = campaign_submit(
        actor=actor, campaign_id=nodes["A"].id, expected_chain_revision=nodes["A"].chain_revision
    )
    tz = sched.workspace_zone(workspace)
    root_run = next(sched.root_occurrences(sched.parse_root_schedule(nodes["A"].root_schedule), tz, timezone.now()))
    check = package_launch_check(actor=actor, package_id=package.id)
    finish = {m["campaign_id"]: m["finish"]["at"] for m in check["members"]}
    assert root_run <= finish[nodes["A"].id] < root_run + timedelta(days=1)
    assert root_run + timedelta(days=2) <= finish[nodes["B"].id] < root_run + timedelta(days=3)
    assert root_run + timedelta(days=4) <= finish[nodes["C"].id] < root_run + timedelta(days=5)
    assert check["members"][2]["finish"]["at_text"] != check["members"][1]["finish"]["at_text"]
