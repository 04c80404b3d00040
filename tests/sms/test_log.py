"""The SMS log's rows: attempts and SMS steps that ended without one, merged newest first across pages."""

from datetime import timedelta

import pytest
from django.utils import timezone

from automation.models import ExecutionEvent
from automation.services.enrollment import enroll_subjects
from campaigns.platform.pagination import CappedPaginator
from sms.log import sms_log_queryset, sms_log_rows
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
    steps = list(sms_log_queryset(actor=actor, status="skipped")[0:10]) + list(
        sms_log_queryset(actor=actor, status="blacklisted")[0:10]
    )
    for i, (_, pk, _) in enumerate(steps):
        ExecutionEvent.objects.filter(pk=pk).update(occurred_at=base - timedelta(minutes=2 * i + 1))

    log = sms_log_queryset(actor=actor)
    assert len(log) == 6
    pager = CappedPaginator(log, 2)
    seen = [row for n in pager.page_range for row in pager.page(n)]
    assert len(seen) == len(set(seen)) == 6
    times = [at for _, _, at in seen]
    assert times == sorted(times, reverse=True)
    assert [kind for kind, _, _ in seen] == ["attempt", "step", "attempt", "step", "attempt", "step"]
    rows = sms_log_rows(actor=actor, page=pager.page(2))
    assert [r.kind for r in rows] == ["attempt", "step"]  # the page's rows, hydrated in its order
    assert rows[0].attempt is not None and rows[1].reason
    statuses = {r.status for n in pager.page_range for r in sms_log_rows(actor=actor, page=pager.page(n))}
    assert {"skipped", "blacklisted"} <= statuses


def test_another_workspaces_rows_never_show(actor, workspace):
    from ..conftest import make_actor, make_workspace

    other = make_workspace("other")
    setup_sms(other)
    theirs = make_actor(other)
    campaign = journey(theirs, linear_graph(sms_node("a"), end_node()))
    enroll_subjects(actor=theirs, campaign_id=campaign.id, target_ids=[make_target(other).id])
    Driver().tick(timezone.now())
    assert len(sms_log_queryset(actor=theirs)) == 1
    assert len(sms_log_queryset(actor=actor)) == 0
