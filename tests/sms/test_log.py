"""The SMS log's rows: attempts and SMS steps that ended without one, merged newest first across pages."""

from datetime import timedelta

import pytest
from django.utils import timezone

from automation.models import ExecutionEvent
from automation.services.enrollment import enroll_subjects
from sms.log import sms_log_page, sms_log_rows
from sms.models import SmsAttempt
from sms.services import blacklist_add
from tests.automation.helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node

from ..conftest import make_target

pytestmark = pytest.mark.django_db


def test_pages_merge_attempts_and_step_outcomes_by_time_without_gaps_or_repeats(actor, workspace):
    setup_sms(workspace)
    campaign = journey(actor, linear_graph(sms_node("a", body="{target.city}", on_missing_variable="skip"), end_node()))
    cities = [make_target(workspace, city=f"c{i}") for i in range(3)]
    blank = [make_target(workspace) for _ in range(2)]  # no city: skipped
    blocked = make_target(workspace, city="q", mobile="+989120000909")
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in [*cities, *blank, blocked]])
    blacklist_add(actor=actor, number="09120000909")  # after enrolment: the journey stops at its SMS step
    Driver().tick(timezone.now())
    assert SmsAttempt.objects.filter(campaign=campaign).count() == 3
    # spread the times so the two sources interleave
    base = timezone.now()
    for i, a in enumerate(SmsAttempt.objects.filter(campaign=campaign).order_by("id")):
        SmsAttempt.objects.filter(pk=a.pk).update(request_at=base - timedelta(minutes=2 * i))
    steps = list(sms_log_page(actor=actor, size=10, cursor=None, status="skipped")) + list(
        sms_log_page(actor=actor, size=10, cursor=None, status="blacklisted")
    )
    for i, (_, pk, _) in enumerate(steps):
        ExecutionEvent.objects.filter(pk=pk).update(occurred_at=base - timedelta(minutes=2 * i + 1))

    pages = _walk(actor, size=2)
    assert [len(p) for p in pages] == [2, 2, 2]
    seen = [row for p in pages for row in p]
    assert len(seen) == len(set(seen)) == 6
    times = [at for _, _, at in seen]
    assert times == sorted(times, reverse=True)
    assert [kind for kind, _, _ in seen] == ["attempt", "step", "attempt", "step", "attempt", "step"]
    rows = sms_log_rows(actor=actor, page=pages[1])
    assert [r.kind for r in rows] == ["attempt", "step"]  # the page's rows, hydrated in its order
    assert rows[0].attempt is not None and rows[1].reason
    statuses = {r.status for p in pages for r in sms_log_rows(actor=actor, page=p)}
    assert {"skipped", "blacklisted"} <= statuses
    back = sms_log_page(actor=actor, size=2, cursor=pages[2].previous_cursor)
    assert list(back) == list(pages[1]) and back.has_next and back.has_previous


def _walk(actor, *, size: int, **filters) -> list:
    """Every page of the log from the first, following the older-rows cursor."""
    pages = [sms_log_page(actor=actor, size=size, cursor=None, **filters)]
    while pages[-1].has_next:
        pages.append(sms_log_page(actor=actor, size=size, cursor=pages[-1].next_cursor, **filters))
        assert len(pages) < 50
    return pages


def test_rows_at_one_moment_in_both_sources_are_each_shown_once_across_pages(actor, workspace):
    setup_sms(workspace)
    campaign = journey(actor, linear_graph(sms_node("a", body="{target.city}", on_missing_variable="skip"), end_node()))
    targets = [make_target(workspace, city="c" if i % 2 else "") for i in range(6)]  # half skipped
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets])
    Driver().tick(timezone.now())
    moment = timezone.now().replace(microsecond=0)
    SmsAttempt.objects.filter(campaign=campaign).update(request_at=moment)
    skipped = [pk for _, pk, _ in sms_log_page(actor=actor, size=10, cursor=None, status="skipped")]
    ExecutionEvent.objects.filter(pk__in=skipped).update(occurred_at=moment)

    for size in (1, 2, 4):
        seen = [row for p in _walk(actor, size=size) for row in p]
        assert len(seen) == len(set(seen)) == 6  # 3 attempts + 3 skipped steps, all at one moment
        assert [kind for kind, _, _ in seen] == ["step"] * 3 + ["attempt"] * 3


def test_a_cursor_of_the_attempts_only_log_and_a_bad_cursor_still_page(actor, workspace):
    from campaigns.platform.keyset import encode_cursor

    setup_sms(workspace)
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id for _ in range(3)])
    Driver().tick(timezone.now())
    first = sms_log_page(actor=actor, size=10, cursor=None)
    newest = SmsAttempt.objects.get(pk=first.rows[0][1])
    older = sms_log_page(actor=actor, size=10, cursor=encode_cursor(newest.request_at, newest.pk, "n"))
    assert list(older) == first.rows[1:]
    assert list(sms_log_page(actor=actor, size=10, cursor="nope")) == first.rows


def test_another_workspaces_rows_never_show(actor, workspace):
    from ..conftest import make_actor, make_workspace

    other = make_workspace("other")
    setup_sms(other)
    theirs = make_actor(other)
    campaign = journey(theirs, linear_graph(sms_node("a"), end_node()))
    enroll_subjects(actor=theirs, campaign_id=campaign.id, target_ids=[make_target(other).id])
    Driver().tick(timezone.now())
    assert len(sms_log_page(actor=theirs, size=10, cursor=None)) == 1
    assert len(sms_log_page(actor=actor, size=10, cursor=None)) == 0


def test_the_status_filter_names_every_status_once():
    """A provider's refusal («ردشده») and a skipped step are two statuses of the log: the filter must not offer
    two options that read the same, and the campaign dashboard's send labels say the same."""
    from automation.campaign_selectors import SEND_STATUS_LABELS
    from sms.choices import LOG_STATUS_CHOICES, STEP_OUTCOMES

    labels = [label for _, label in LOG_STATUS_CHOICES]
    assert len(labels) == len(set(labels)), labels
    assert STEP_OUTCOMES["skipped"] == SEND_STATUS_LABELS["skipped"] == "رد شدن از گام"
    assert SEND_STATUS_LABELS["rejected"] != SEND_STATUS_LABELS["skipped"]


def test_a_send_reads_the_same_on_a_targets_history_as_in_the_sms_log():
    """The history of a target (and a campaign's events) names a send's status as the SMS log and the target's SMS
    thread do: «تحویل پنل», never «تحویل سرویس‌دهنده» beside it."""
    from automation.campaign_selectors import SEND_STATUS_LABELS
    from sms.choices import LOG_STATUS_CHOICES

    log = dict(LOG_STATUS_CHOICES)
    assert {k: SEND_STATUS_LABELS[k] for k in log if k in SEND_STATUS_LABELS} == {
        k: v for k, v in log.items() if k in SEND_STATUS_LABELS
    }
    assert SEND_STATUS_LABELS["submitted"] == "تحویل پنل"
