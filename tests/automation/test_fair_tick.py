"""The tick's claim budget is shared fairly between workspaces: one workspace's big campaigns never take every
claim, and the engine queue gets the workspaces' batches in turn."""

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.test import TestCase

from automation.choices import ExecutionStatus
from automation.engine.scheduler import tick
from automation.models import Execution
from automation.services.enrollment import enroll_subjects
from campaigns.platform.fairness import fair_rounds
from sms.models import SmsAttempt
from tests.conftest import make_actor, make_target, make_workspace

from .helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)  # 10:30 Tehran

pytestmark = pytest.mark.django_db


def sms_journey(actor, targets: int):
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
    ids = [make_target(actor.workspace).id for _ in range(targets)]
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=ids)
    return campaign


@pytest.fixture
def flood_and_quiet(actor, workspace, settings):
    """Workspace A: two journey campaigns of 20 targets each; workspace B: one of 6; 8 claims per tick."""
    settings.AUTOMATION_TICK_MAX_CLAIMS = 8
    quiet_workspace = make_workspace("quiet")
    quiet_actor = make_actor(quiet_workspace)
    setup_sms(workspace)
    setup_sms(quiet_workspace)
    with time_machine.travel(T0, tick=False):
        flood = [sms_journey(actor, 20), sms_journey(actor, 20)]
        quiet = sms_journey(quiet_actor, 6)
    return flood, quiet


def completed(campaigns) -> int:
    return Execution.objects.filter(campaign__in=campaigns, status=ExecutionStatus.COMPLETED).count()


def test_the_quiet_workspace_moves_every_tick(flood_and_quiet):
    flood, quiet = flood_and_quiet
    driver = Driver()
    report, _ = driver.tick(T0 + timedelta(minutes=1))
    assert report.claimed == 8  # the whole budget is used ...
    assert (completed([quiet]), completed(flood)) == (4, 4)  # ... half of it by each workspace
    report, _ = driver.tick(T0 + timedelta(minutes=2))
    assert report.claimed == 8
    assert (completed([quiet]), completed(flood)) == (6, 10)  # the quiet one's last two; its unused share to A
    assert SmsAttempt.objects.filter(campaign=quiet).count() == 6
    report, _ = driver.tick(T0 + timedelta(minutes=3))
    assert (report.claimed, completed(flood)) == (8, 18)  # A alone: every claim is A's


def test_batches_reach_the_engine_queue_one_workspace_at_a_time(flood_and_quiet, settings):
    flood, quiet = flood_and_quiet
    settings.AUTOMATION_TICK_MAX_CLAIMS = 40
    settings.AUTOMATION_DISPATCH_BATCH = 2
    chunks: list[list] = []
    with TestCase.captureOnCommitCallbacks(execute=True):
        tick(now=T0 + timedelta(minutes=1), send=chunks.append)
    workspace_of = dict(Execution.objects.values_list("id", "workspace_id"))
    order = [workspace_of[chunk[0][0]] for chunk in chunks]
    assert Counter(order) == {flood[0].workspace_id: 17, quiet.workspace_id: 3}
    # one batch of each workspace in turn: all of B's three are among the first six, not after A's seventeen
    assert max(i for i, ws in enumerate(order) if ws == quiet.workspace_id) < 6


def test_fair_rounds_share_by_workspace_and_pass_on_what_is_left():
    # workspace 1: two campaigns with 50 due each; workspace 2: one with 3; workspace 3: one with 30
    due = {"a1": 50, "a2": 50, "b": 3, "c": 30}
    groups = {1: ["a1", "a2"], 2: ["b"], 3: ["c"]}
    claimed: Counter = Counter()

    def claim(campaign, limit):
        n = min(limit, due[campaign] - claimed[campaign])
        claimed[campaign] += n
        return n

    assert fair_rounds(groups, 60, claim, out_of_time=lambda: False) == 60
    # 20 each; B needs 3, so its 17 are shared by A and C in the next round (8 and 8, then the last 1)
    per_workspace = {1: claimed["a1"] + claimed["a2"], 2: claimed["b"], 3: claimed["c"]}
    assert per_workspace == {1: 29, 2: 3, 3: 28}


def test_a_big_campaign_does_not_take_the_turn_of_the_other_campaigns_of_its_workspace(actor, workspace, settings):
    """One workspace: a journey with 30 due sends created first, then one with 3 (a chain run's small
    audience, say). Each tick's claims are shared between the two, so the small one is sent in the first
    tick, not after the big one has run out of due work."""
    settings.AUTOMATION_TICK_MAX_CLAIMS = 8
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        big = sms_journey(actor, 30)
        small = sms_journey(actor, 3)
    driver = Driver()
    report, _ = driver.tick(T0 + timedelta(minutes=1))
    assert report.claimed == 8
    assert (completed([small]), completed([big])) == (3, 5)  # what the small one did not need went to the big one
    assert SmsAttempt.objects.filter(campaign=small).count() == 3


def test_fair_rounds_share_a_key_between_its_claimers():
    due = {"big": 100, "small": 3, "other": 100}
    claimed: Counter = Counter()

    def claim(campaign, limit):
        n = min(limit, due[campaign] - claimed[campaign])
        claimed[campaign] += n
        return n

    assert fair_rounds({1: ["big", "small", "other"]}, 30, claim) == 30
    # 10 each; what the small one did not need goes to the one after it (before, "big" took all 30)
    assert claimed == {"big": 10, "small": 3, "other": 17}
