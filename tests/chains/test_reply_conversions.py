"""A chain's conversion "replied" (docs/chains.md "Replied as a conversion"): a follow-up child inherits those who
did not answer (or did not answer with one of the goal's words)."""

from __future__ import annotations

import pytest
import time_machine

from campaigns.chains.run_models import ConversionEvent, RunExecution
from campaigns.chains.runs.choices import ConversionSource, RunStatus
from campaigns.chains.services.inputs import parse_goal
from campaigns.platform.errors import ValidationFailed
from sms.inbound.services import inbound_store
from tests.sms.inbound_helpers import make_account, received

from .runs_helpers import approved_chain, at, root_run, runs_of, settle, tick

pytestmark = pytest.mark.django_db
ONLY_B = {"B": {"type": "NOT_CONVERTED", "schedule": {"type": "AFTER_INTERVAL", "offset_days": 2, "run_time": "09:00"}}}


def _reply(account, target, text, when):
    with time_machine.travel(when, tick=False):
        return inbound_store(account=account, messages=[received(text, target.mobile, at=when)])


def _child_audience(actor, goal, replies):
    """Run A (all sent), store the replies (person index, text, time), then build B; B's target ids."""
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, people = approved_chain(actor, shape="A>B", child_schedules=ONLY_B, goal=goal)
    account = make_account(actor.workspace)
    tick(at(2026, 10, 1, 9, 0))
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    settle(a10)
    for index, text, when in replies:
        _reply(account, people[index], text, when)
    tick(at(2026, 10, 1, 10, 0))
    tick(at(2026, 10, 3, 9, 0))
    b10 = runs_of(nodes["B"])[0]
    b10.refresh_from_db()
    assert b10.status == RunStatus.DISPATCHED
    return people, set(RunExecution.objects.filter(run=b10).values_list("target_id", flat=True))


def test_child_reaches_only_those_who_did_not_reply(actor):
    people, audience = _child_audience(
        actor,
        {"type": "REPLIED"},
        [
            (0, "باشه ممنون", at(2026, 10, 1, 12, 0)),
            (1, "لغو", at(2026, 10, 2, 8, 0)),  # an opt-out is a reply too (and blacklists the number)
            (2, "سلام", at(2026, 9, 30, 8, 0)),  # before the run started: answers nothing of it
        ],
    )
    assert audience == {people[2].id, people[3].id}
    events = ConversionEvent.objects.filter(name="reply").order_by("target_id")
    assert [(e.target_id, e.source) for e in events] == [
        (people[0].id, ConversionSource.REPLY),
        (people[1].id, ConversionSource.REPLY),
    ]


def test_words_goal_counts_only_matching_replies(actor):
    people, audience = _child_audience(
        actor,
        {"type": "REPLIED", "words": ["بله", "آره"]},
        [(0, "بله، حتما", at(2026, 10, 1, 12, 0)), (1, "نه ممنون", at(2026, 10, 1, 13, 0))],
    )
    assert audience == {people[1].id, people[2].id, people[3].id}


def test_a_reply_stored_twice_is_one_conversion(actor):
    with time_machine.travel(at(2026, 9, 20), tick=False):
        _nodes, people = approved_chain(actor, shape="A>B", child_schedules=ONLY_B, goal={"type": "REPLIED"})
    account = make_account(actor.workspace)
    tick(at(2026, 10, 1, 9, 0))
    message = received("بله", people[0].mobile, message_id="77", at=at(2026, 10, 1, 11))
    with time_machine.travel(at(2026, 10, 1, 11), tick=False):
        assert len(inbound_store(account=account, messages=[message, message])) == 1
        assert inbound_store(account=account, messages=[message]) == []
    assert ConversionEvent.objects.filter(target=people[0], name="reply").count() == 1


def test_goal_input_is_checked():
    assert parse_goal({"type": "replied"}) == {"type": "REPLIED"}
    assert parse_goal({"type": "REPLIED", "words": [" بله  حتما "]}) == {"type": "REPLIED", "words": ["بله حتما"]}
    with pytest.raises(ValidationFailed):
        parse_goal({"type": "REPLIED", "words": ["…"]})
    with pytest.raises(ValidationFailed):
        parse_goal({"type": "REPLIED", "words": ["x" * 41]})


def test_a_failing_reply_listener_never_fails_the_store(actor, monkeypatch, caplog):
    """The push answers OK only after the store: a broken wake or conversion is logged, the reply is kept."""
    import campaigns.chains.runs.conversions as conversions
    import sms.inbound.services as services
    from campaigns.chains.runs.receivers import record_conversion_on_reply
    from sms.inbound.models import InboundSms

    def broken(**kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(conversions, "conversion_on_reply", broken)
    monkeypatch.setattr(services, "executions_wake", broken)
    with time_machine.travel(at(2026, 9, 20), tick=False):
        _nodes, people = approved_chain(actor, shape="A>B", child_schedules=ONLY_B, goal={"type": "REPLIED"})
    account = make_account(actor.workspace)
    stored = _reply(account, people[0], "بله", at(2026, 10, 1, 11))
    assert [m.text for m in stored] == ["بله"] and InboundSms.objects.filter(target=people[0]).count() == 1
    messages = [r.getMessage() for r in caplog.records]
    assert any("waking journeys" in m for m in messages)
    assert any(record_conversion_on_reply.__name__ in m for m in messages)
