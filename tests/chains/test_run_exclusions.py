"""Members a chain run's dispatch leaves out (blacklisted, opted out by a reply word, no mobile): counted by reason
on the run (API and runs page) and each written on the person's timeline with the reason (API and target page)."""

from __future__ import annotations

import pytest
import time_machine
from django.test import Client

from campaigns.models import Target
from sms.choices import BlacklistReason, BlacklistSource
from sms.services import blacklist_add

from .conftest import make_group
from .runs_helpers import approved_chain, at, root_run, tick

pytestmark = pytest.mark.django_db


@pytest.fixture
def left_out_run(actor):
    """A root run of five where one number is on the staff's blacklist, one opted out by a reply word and one
    has no mobile: two get a message."""
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, people = approved_chain(actor, shape="A>B", targets=5)
    blacklist_add(actor=actor, number=people[0].mobile)
    blacklist_add(actor=actor, number=people[1].mobile, reason=BlacklistReason.OPT_OUT, source=BlacklistSource.REPLY)
    Target.objects.filter(pk=people[2].pk).update(mobile=None, landline="+982188776655")  # a landline only
    tick(at(2026, 10, 1, 9, 0))
    return root_run(nodes["A"], at(2026, 10, 1)), people


def test_the_run_counts_the_members_it_left_out_by_reason(api, left_out_run):
    run, _ = left_out_run
    run.refresh_from_db()
    assert (run.audience_count, run.expected_execution_count, run.refused_count) == (5, 2, 3)
    assert run.refused_reasons == {"blacklisted": 1, "opt_out": 1, "no_valid_mobile": 1}
    body = api.get(f"/api/v1/campaign-runs/{run.id}").json()
    assert body["refused_count"] == 3
    assert body["refused_reasons"] == {"blacklisted": 1, "opt_out": 1, "no_valid_mobile": 1}
    listed = api.get(f"/api/v1/campaign/{run.campaign_id}/runs").json()["results"]
    assert [r["refused_reasons"] for r in listed if r["id"] == run.id] == [run.refused_reasons]


def test_each_left_out_member_has_the_reason_on_their_timeline(api, left_out_run):
    run, people = left_out_run
    expected = {people[0].id: "blacklisted", people[1].id: "opt_out", people[2].id: "no_valid_mobile"}
    for target_id, reason in expected.items():
        body = api.get(f"/api/v1/targets/{target_id}/timeline").json()
        (row,) = body["left_out"]
        assert (row["why_not_sent"], row["campaign_id"], row["run_id"]) == (reason, run.campaign_id, run.id)
    sent = api.get(f"/api/v1/targets/{people[3].id}/timeline").json()
    assert sent["left_out"] == [] and sent["results"]  # a member who got the message has its journey instead


def test_the_runs_page_and_the_target_page_say_who_was_left_out_and_why(owner, left_out_run):
    run, people = left_out_run
    client = Client()
    client.force_login(owner)
    page = client.get(f"/chains/campaigns/{run.campaign_id}/runs/").content.decode()
    assert "کنار گذاشته: ۳ نفر" in page and "پیام برای ۲ نفر" in page
    assert "گیرنده لغو کرده است (کلمه لغو): ۱" in page and "موبایل معتبر ندارد: ۱" in page
    target_page = client.get(f"/targets/{people[1].id}/edit/").content.decode()
    assert "کنار گذاشته شد" in target_page and "چرا فرستاده نشد: گیرنده لغو کرده است (کلمه لغو)" in target_page


def test_members_a_send_left_out_when_it_came_are_counted_on_the_run_by_reason(api, actor, workspace):
    """Dispatched, then left out at send time: one number blacklisted after the dispatch (the engine's guard
    ends that execution) and one send the frequency cap skipped — the run counts both by reason (API, list)."""
    from django.contrib.contenttypes.models import ContentType
    from django.utils import timezone

    from automation.choices import EventType, ExecutionStatus
    from automation.models import Execution, ExecutionEvent
    from campaigns.chains.run_models import RunExecution
    from tests.automation.helpers import Driver, setup_sms

    setup_sms(workspace)
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, people = approved_chain(actor, shape="A>B", targets=4)
    tick(at(2026, 10, 1, 9, 0))
    run = root_run(nodes["A"], at(2026, 10, 1))
    links = dict(RunExecution.objects.filter(run=run).values_list("target_id", "execution_id"))
    blacklist_add(actor=actor, number=people[0].mobile)  # after the dispatch: the send's guard stops it
    capped = Execution.objects.get(pk=links[people[1].id])
    ExecutionEvent.objects.create(  # what the SMS step writes when the frequency cap skips a send
        workspace_id=capped.workspace_id,
        execution=capped,
        campaign_id=capped.campaign_id,
        subject_type=ContentType.objects.get_for_model(Target),
        subject_id=capped.subject_id,
        type=EventType.SKIPPED,
        message="frequency cap",
        data={"error": "frequency_cap", "result": "skipped"},
        occurred_at=timezone.now(),
    )
    Execution.objects.filter(pk=capped.pk).update(status=ExecutionStatus.COMPLETED, completed_at=timezone.now())
    driver = Driver()
    for minute in (1, 2, 3):
        with time_machine.travel(at(2026, 10, 1, 9, minute), tick=False):
            driver.tick(timezone.now())
    assert Execution.objects.get(pk=links[people[0].id]).status == ExecutionStatus.BLACKLISTED
    tick(at(2026, 10, 1, 9, 10))
    run.refresh_from_db()
    assert run.excluded_reasons == {"blacklisted": 1, "frequency_cap": 1}
    assert run.expected_execution_count == 4 and run.refused_reasons == {}
    body = api.get(f"/api/v1/campaign-runs/{run.id}").json()
    assert body["excluded_reasons"] == {"blacklisted": 1, "frequency_cap": 1}
    listed = api.get(f"/api/v1/campaign/{run.campaign_id}/runs").json()["results"]
    assert [r["excluded_reasons"] for r in listed if r["id"] == run.id] == [run.excluded_reasons]


def test_the_runs_page_and_the_campaign_form_name_the_effect_in_persian(owner, workspace, left_out_run):
    """The control group's effect is «اثر پیام», not the English «lift», on the runs page and the chain form."""
    run, _ = left_out_run
    client = Client()
    client.force_login(owner)
    runs = client.get(f"/chains/campaigns/{run.campaign_id}/runs/").content.decode()
    assert "<th>اثر پیام</th>" in runs
    form = client.get(f"/chains/groups/{make_group(workspace).id}/campaigns/new/").content.decode()
    assert "اثر واقعی پیام (در برابر گروه کنترل)" in form
    for html in (runs, form):
        assert "(lift)" not in html
