"""Replies inside journeys (journeys.md "Facts"): wait until a reply, branch on it, its text as a variable,
stop when the target replies, «لغو» from the reply itself — driven by ticks at simulated times."""

from datetime import timedelta

import pytest
import time_machine

from automation.choices import EndReason, EventType, ExecutionStatus
from automation.models import Execution, ExecutionEvent
from automation.services.workflows import workflow_create, workflow_graph_save, workflow_validate
from sms.inbound.services import inbound_store
from sms.models import SmsAttempt, SmsProviderAccount
from tests.conftest import make_target
from tests.sms.inbound_helpers import received

from .helpers import T0, Driver, end_node, enroll, journey, linear_graph, setup_sms, sms_node, wait_node

REPLIED = {"field": "reply.received", "operator": "is_true", "value": None}


def _condition(key, *rules, logic="all"):
    return {"node_key": key, "type": "condition", "subtype": "field_rules", "config": {"logic": logic, "rules": rules}}


def _wait_for_reply(key="w", amount=2, unit="days"):
    node = wait_node(key, amount=amount, unit=unit)
    node["config"]["until_fact"] = "reply.received"
    return node


def _ask_then_branch_graph():
    """Ask, wait up to two days or until a reply; replied «بله» → thanks quoting the reply, replied otherwise →
    «باشد», no reply → a reminder."""
    nodes = [
        {"node_key": "start", "type": "start", "subtype": "manual", "config": {}},
        sms_node("ask", body="فردا می‌آیید؟"),
        _wait_for_reply(),
        _condition("replied", REPLIED),
        _condition("yes_words", {"field": "reply.text", "operator": "has_word", "value": ["بله", "آره"]}),
        sms_node("thanks", body="ممنون از پاسخ «{reply.text}»"),
        sms_node("ok", body="باشد"),
        sms_node("remind", body="یادآوری: فردا می‌آیید؟"),
        end_node("e1"),
        end_node("e2"),
        end_node("e3"),
    ]
    edges = [
        {"from": "start", "to": "ask", "port": "default"},
        {"from": "ask", "to": "w", "port": "default"},
        {"from": "w", "to": "replied", "port": "default"},
        {"from": "replied", "to": "yes_words", "port": "yes"},
        {"from": "replied", "to": "remind", "port": "no"},
        {"from": "yes_words", "to": "thanks", "port": "yes"},
        {"from": "yes_words", "to": "ok", "port": "no"},
        {"from": "thanks", "to": "e1", "port": "default"},
        {"from": "ok", "to": "e2", "port": "default"},
        {"from": "remind", "to": "e3", "port": "default"},
    ]
    return {"nodes": nodes, "edges": edges, "settings": {}}


def _reply(workspace, target, text, at):
    account = SmsProviderAccount.objects.get(workspace=workspace)
    return inbound_store(account=account, messages=[received(text, target.mobile, line="3000", at=at)])


def _ticks(driver, at):
    """A tick at ``at`` and one a minute later: a send after a wait goes back to the scheduler first."""
    driver.tick(at)
    driver.tick(at + timedelta(minutes=1))


def _texts(campaign, target):
    attempts = SmsAttempt.objects.filter(campaign=campaign, subject_id=target.id).order_by("id")
    return list(attempts.values_list("message", flat=True))


@pytest.mark.django_db
def test_wait_until_reply_takes_both_branches_and_wakes_early(actor, workspace):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, _ask_then_branch_graph())
        yes, other, silent = make_target(workspace), make_target(workspace), make_target(workspace)
        enroll(actor, campaign, [yes, other, silent])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    assert {len(_texts(campaign, t)) for t in (yes, other, silent)} == {1}

    # A reply an hour later wakes its journey at the next tick, a day and more before the wait ends.
    with time_machine.travel(T0 + timedelta(hours=1), tick=False):
        _reply(workspace, yes, "بله، حتما", T0 + timedelta(hours=1))
        _reply(workspace, other, "نه ممنون", T0 + timedelta(hours=1))
    driver.tick(T0 + timedelta(hours=1, minutes=1))
    driver.tick(T0 + timedelta(hours=1, minutes=2))
    assert _texts(campaign, yes) == ["فردا می‌آیید؟", "ممنون از پاسخ «بله، حتما»"]
    assert _texts(campaign, other) == ["فردا می‌آیید؟", "باشد"]
    assert _texts(campaign, silent) == ["فردا می‌آیید؟"]
    assert Execution.objects.get(campaign=campaign, subject_id=silent.id).status == ExecutionStatus.WAITING
    early = ExecutionEvent.objects.filter(campaign_id=campaign.id, type=EventType.WAIT_FINISHED)
    assert sorted(e.data.get("early") for e in early) == ["reply.received", "reply.received"]

    # The one who never answered gets the reminder when the two days are over.
    driver.tick(T0 + timedelta(days=2, minutes=2))
    _ticks(driver, T0 + timedelta(days=2, minutes=3))
    assert _texts(campaign, silent) == ["فردا می‌آیید؟", "یادآوری: فردا می‌آیید؟"]
    statuses = set(Execution.objects.filter(campaign=campaign).values_list("status", flat=True))
    assert statuses == {ExecutionStatus.COMPLETED}


@pytest.mark.django_db
def test_a_reply_in_whole_seconds_answers_the_send_of_that_same_second(actor, workspace):
    """Kavenegar dates a reply in whole seconds: 10:01:00 answers a send made at 10:01:00.600, so the wait ends."""
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, _ask_then_branch_graph())
        quick, before = make_target(workspace), make_target(workspace)
        _reply(workspace, before, "بله", T0 + timedelta(seconds=59))  # the second before the send's
        enroll(actor, campaign, [quick, before])
    driver = Driver()
    sent_at = T0 + timedelta(minutes=1, milliseconds=600)
    driver.tick(sent_at)
    with time_machine.travel(sent_at + timedelta(seconds=2), tick=False):
        _reply(workspace, quick, "بله", T0 + timedelta(minutes=1))  # stamped in whole seconds
    driver.tick(T0 + timedelta(minutes=2))
    driver.tick(T0 + timedelta(minutes=3))
    assert _texts(campaign, quick) == ["فردا می‌آیید؟", "ممنون از پاسخ «بله»"]
    assert _texts(campaign, before) == ["فردا می‌آیید؟"]


@pytest.mark.django_db
def test_reply_before_the_send_is_not_a_reply_to_it(actor, workspace):
    """A reply received before the journey's send (to some earlier message) answers nothing of this journey."""
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, _ask_then_branch_graph())
        early = make_target(workspace)
        _reply(workspace, early, "بله", T0 - timedelta(hours=3))
        enroll(actor, campaign, [early])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    driver.tick(T0 + timedelta(days=2, minutes=2))
    _ticks(driver, T0 + timedelta(days=2, minutes=3))
    assert _texts(campaign, early) == ["فردا می‌آیید؟", "یادآوری: فردا می‌آیید؟"]


@pytest.mark.django_db
def test_a_wait_without_end_early_ignores_replies(actor, workspace):
    setup_sms(workspace)
    graph = linear_graph(sms_node("a", body="اول"), wait_node("w", amount=1), sms_node("b", body="دوم"), end_node())
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, graph)
        target = make_target(workspace)
        enroll(actor, campaign, [target])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    with time_machine.travel(T0 + timedelta(hours=1), tick=False):
        _reply(workspace, target, "سلام", T0 + timedelta(hours=1))
    driver.tick(T0 + timedelta(hours=1, minutes=1))
    assert _texts(campaign, target) == ["اول"]
    _ticks(driver, T0 + timedelta(days=1, minutes=2))
    assert _texts(campaign, target) == ["اول", "دوم"]


@pytest.mark.django_db
@pytest.mark.parametrize("word", ["لغو۱۱", "لغو 11", "لغو‌۱۱", "لغو١١"])
def test_opt_out_reply_stops_the_next_send(actor, workspace, word):
    setup_sms(workspace)
    graph = linear_graph(sms_node("a", body="اول"), wait_node("w", amount=1), sms_node("b", body="دوم"), end_node())
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, graph)
        leaving, staying = make_target(workspace), make_target(workspace)
        enroll(actor, campaign, [leaving, staying])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    with time_machine.travel(T0 + timedelta(hours=2), tick=False):
        _reply(workspace, leaving, word, T0 + timedelta(hours=2))
    _ticks(driver, T0 + timedelta(days=1, minutes=2))
    assert _texts(campaign, leaving) == ["اول"]
    assert _texts(campaign, staying) == ["اول", "دوم"]
    ex = Execution.objects.get(campaign=campaign, subject_id=leaving.id)
    assert (ex.status, ex.end_reason) == (ExecutionStatus.BLACKLISTED, EndReason.BLACKLISTED)


@pytest.mark.django_db
def test_stop_when_the_target_replies(actor, workspace, owner, client):
    setup_sms(workspace)
    graph = linear_graph(
        sms_node("a", body="اول"),
        wait_node("w1", amount=1),
        sms_node("b", body="دوم"),
        wait_node("w2", amount=1),
        sms_node("c", body="سوم"),
        end_node(),
    )
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, graph, settings={"stop_when_facts": ["reply.in_journey"]})
        answering, silent = make_target(workspace), make_target(workspace)
        enroll(actor, campaign, [answering, silent])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    _ticks(driver, T0 + timedelta(days=1, minutes=2))
    # Replied to the first message after the second went: still "during this journey".
    with time_machine.travel(T0 + timedelta(days=1, hours=1), tick=False):
        _reply(workspace, answering, "کی تماس می‌گیرید؟", T0 + timedelta(days=1, hours=1))
    # The reply wakes the journey: it ends at the next tick, not when its wait would have ended.
    driver.tick(T0 + timedelta(days=1, hours=1, minutes=1))
    ex = Execution.objects.get(campaign=campaign, subject_id=answering.id)
    assert (ex.status, ex.end_reason) == (ExecutionStatus.CANCELLED, EndReason.TARGET_RESPONDED)
    assert Execution.objects.get(campaign=campaign, subject_id=silent.id).status == ExecutionStatus.WAITING
    _ticks(driver, T0 + timedelta(days=2, minutes=3))
    assert _texts(campaign, answering) == ["اول", "دوم"]
    assert _texts(campaign, silent) == ["اول", "دوم", "سوم"]
    client.force_login(owner)
    timeline = client.get(f"/targets/{answering.id}/edit/").content.decode()
    assert "پاسخ مخاطب" in timeline and "target_responded" not in timeline


@pytest.mark.django_db
def test_reply_rules_are_validated(actor):
    workflow = workflow_create(actor=actor, name="اعتبارسنجی")
    unknown_fact = _wait_for_reply()
    unknown_fact["config"]["until_fact"] = "reply.text"  # a text, not a yes/no fact
    graph = {
        "nodes": [
            {"node_key": "start", "type": "start", "subtype": "manual", "config": {}},
            unknown_fact,
            _condition("c1", {"field": "reply.text", "operator": "is_true", "value": None}),
            _condition("c2", {"field": "reply.text", "operator": "has_word", "value": ["  "]}),
            _condition("c3", {"field": "reply.received", "operator": "in", "value": ["x"]}),
            *[end_node(f"e{i}") for i in range(1, 5)],
        ],
        "edges": [
            {"from": "start", "to": "w", "port": "default"},
            {"from": "w", "to": "c1", "port": "default"},
            {"from": "c1", "to": "c2", "port": "yes"},
            {"from": "c1", "to": "e1", "port": "no"},
            {"from": "c2", "to": "c3", "port": "yes"},
            {"from": "c2", "to": "e2", "port": "no"},
            {"from": "c3", "to": "e3", "port": "yes"},
            {"from": "c3", "to": "e4", "port": "no"},
        ],
        "settings": {},
    }
    workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=graph)
    errors = {(e.node_key, e.code) for e in workflow_validate(actor=actor, workflow_id=workflow.id)}
    assert {("w", "INVALID_WAIT"), ("c1", "INVALID_CONDITION"), ("c2", "INVALID_CONDITION")} <= errors
    assert ("c3", "INVALID_CONDITION") in errors


@pytest.mark.django_db
def test_stop_setting_names_only_offered_facts(actor, workspace):
    from campaigns.platform.errors import ValidationFailed

    setup_sms(workspace)
    with pytest.raises(ValidationFailed):
        journey(actor, linear_graph(sms_node(), end_node()), settings={"stop_when_facts": ["reply.text"]})


@pytest.mark.django_db
def test_a_batch_reads_its_targets_replies_in_one_query(actor, workspace):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, _ask_then_branch_graph())
        people = [make_target(workspace) for _ in range(6)]
        enroll(actor, campaign, people)
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    for person in people[:2]:
        with time_machine.travel(T0 + timedelta(hours=1), tick=False):
            _reply(workspace, person, "بله", T0 + timedelta(hours=1))
    Execution.objects.filter(campaign=campaign).update(next_run_at=T0 + timedelta(hours=1))  # all due together
    with CaptureQueriesContext(connection) as queries:
        driver.tick(T0 + timedelta(hours=1, minutes=1))
    assert sum("sms_inbound" in q["sql"] for q in queries.captured_queries) == 1
    driver.tick(T0 + timedelta(hours=1, minutes=2))
    thanked = [p for p in people if len(_texts(campaign, p)) == 2]
    assert thanked == people[:2] and all(_texts(campaign, p)[1] == "ممنون از پاسخ «بله»" for p in thanked)
