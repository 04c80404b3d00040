"""Task creation, dispatch, results and statistics (services, PostgreSQL, no browser)."""

import threading
from datetime import timedelta

import pytest
import time_machine
from django.core.cache import cache
from django.db import connection, transaction
from django.utils import timezone

from campaigns.choices import CampaignStatus
from campaigns.platform.errors import ValidationFailed
from workers import selectors
from workers.choices import BrowserEventType, ErrorCode, PlatformStatus, SessionStatus, TaskStatus
from workers.claims import run_claim_key
from workers.errors import AccountInactive, AccountNotFound, ActionConfigNotFound, InvalidSteps, TaskNotRetryable
from workers.models import ActionConfig, BrowserAccount, BrowserEvent, BrowserTask, CampaignStatistics, Proxy
from workers.services import creation, statistics
from workers.services.dispatch import dispatch_due_tasks, leases_reclaim
from workers.services.results import result_apply, task_retry

from ..conftest import make_workspace
from .conftest import LIKE_STEPS, make_account, make_browser_campaign, make_proxy

LINK = "http://127.0.0.1:9/post/1"


def ok(payload, **extra):
    return {
        "task_id": payload["task_id"],
        "attempt": payload["attempt"],
        "lease_id": payload["lease_id"],
        "status": "completed",
        "result_data": {"url": payload["link"]},
        **extra,
    }


def failed(payload, code, reason="x"):
    return {
        "task_id": payload["task_id"],
        "attempt": payload["attempt"],
        "lease_id": payload["lease_id"],
        "status": "failed",
        "error_code": code,
        "error_reason": reason,
        "result_data": {"failed_step": "goto"},
    }


def dispatch(django_capture_on_commit_callbacks, **kwargs):
    with django_capture_on_commit_callbacks(execute=True):
        return dispatch_due_tasks(**kwargs)


# --- campaign creation (service) -------------------------------------------------
@pytest.mark.django_db
class TestCampaignCreate:
    def test_creates_campaign_platform_metadata_and_statistics(self, actor, workspace):
        accounts = [make_account(workspace) for _ in range(3)]
        spare = make_account(workspace)
        campaign = make_browser_campaign(
            actor, accounts=accounts, links=[LINK, LINK], spare_accounts=[spare.pk], content_template="سلام {account}"
        )
        platform = campaign.browser_platforms.get()
        assert campaign.kind == "browser" and campaign.status == CampaignStatus.ACTIVE
        assert platform.status == PlatformStatus.PENDING and not platform.is_tasks_created
        assert platform.metadata["account_ids"] == [a.pk for a in accounts]
        assert platform.metadata["spare_account_ids"] == [spare.pk]
        assert platform.metadata["target_links"] == [LINK]
        assert platform.metadata["steps"] == LIKE_STEPS
        assert CampaignStatistics.objects.get(campaign=campaign).total == 0

    def test_future_start_is_scheduled_and_activated_by_the_job(self, actor, workspace):
        start = timezone.now() + timedelta(hours=1)
        campaign = make_browser_campaign(actor, accounts=[make_account(workspace)], links=[LINK], start_date=start)
        campaign.refresh_from_db()
        assert campaign.status == CampaignStatus.SCHEDULED
        assert creation.due_platforms_create_tasks() == 0
        with time_machine.travel(start + timedelta(seconds=5), tick=False):
            assert creation.due_platforms_create_tasks() == 1
        campaign.refresh_from_db()
        assert campaign.status == CampaignStatus.ACTIVE

    def test_foreign_missing_wrong_platform_or_expired_accounts_are_rejected(self, actor, workspace):
        foreign = make_account(make_workspace())
        with pytest.raises(AccountNotFound) as info:
            make_browser_campaign(actor, accounts=[foreign], links=[LINK])
        assert info.value.code == "ACCOUNT_NOT_FOUND"
        with pytest.raises(AccountNotFound):
            make_browser_campaign(actor, accounts=[make_account(workspace, platform="other")], links=[LINK])
        expired = make_account(workspace, session_status=SessionStatus.EXPIRED)
        with pytest.raises(AccountInactive):
            make_browser_campaign(actor, accounts=[expired], links=[LINK])

    def test_steps_come_from_the_body_or_the_action_config(self, actor, workspace):
        from workers.services.campaigns import browser_campaign_create

        account = make_account(workspace)
        kwargs = dict(actor=actor, name="c", platform="demo", accounts=[account.pk], target_links=[LINK], action="like")
        with pytest.raises(ActionConfigNotFound):
            browser_campaign_create(**kwargs)
        ActionConfig.objects.create(workspace=workspace, platform="demo", action_type="like", steps=LIKE_STEPS)
        campaign = browser_campaign_create(**kwargs)
        assert campaign.browser_platforms.get().metadata["steps"] == LIKE_STEPS
        with pytest.raises(InvalidSteps):
            browser_campaign_create(**kwargs, steps=[{"action": "eval", "script": "alert(1)"}])
        with pytest.raises(ValidationFailed):
            browser_campaign_create(**{**kwargs, "action": "comment"}, steps=LIKE_STEPS)


# --- phase 1: task creation --------------------------------------------------------
@pytest.mark.django_db
def test_creation_makes_one_task_per_account_and_link_and_is_idempotent(actor, workspace):
    accounts = [make_account(workspace) for _ in range(5)]
    campaign = make_browser_campaign(actor, accounts=accounts, links=[LINK, "http://127.0.0.1:9/post/2"])
    assert creation.due_platforms_create_tasks() == 10
    assert creation.due_platforms_create_tasks() == 0
    platform = campaign.browser_platforms.get()
    assert platform.status == PlatformStatus.RUNNING and platform.is_tasks_created
    assert BrowserTask.objects.filter(campaign=campaign, status=TaskStatus.PENDING).count() == 10
    assert CampaignStatistics.objects.get(campaign=campaign).total == 10


@pytest.mark.django_db
def test_creation_after_a_crash_half_way_inserts_only_missing_tasks(actor, workspace):
    accounts = [make_account(workspace) for _ in range(4)]
    campaign = make_browser_campaign(actor, accounts=accounts, links=[LINK])
    platform = campaign.browser_platforms.get()
    # a previous run inserted one task and crashed before flagging (in real life its transaction rolls back)
    BrowserTask.objects.create(
        workspace=workspace,
        campaign=campaign,
        platform=platform,
        account=accounts[0],
        link=LINK,
        action_type="like",
        start_date=timezone.now(),
    )
    creation.due_platforms_create_tasks()
    assert BrowserTask.objects.filter(campaign=campaign).count() == 4


@pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent writers need PostgreSQL's row locks")
@pytest.mark.django_db(transaction=True)
def test_concurrent_creation_runs_never_duplicate(workspace, actor):
    accounts = [make_account(workspace) for _ in range(30)]
    campaign = make_browser_campaign(actor, accounts=accounts, links=[LINK, "http://127.0.0.1:9/post/2"])
    barrier = threading.Barrier(4)
    errors = []

    def run():
        try:
            barrier.wait()
            creation.due_platforms_create_tasks()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    creation.due_platforms_create_tasks()
    assert BrowserTask.objects.filter(campaign=campaign).count() == 60
    assert CampaignStatistics.objects.get(campaign=campaign).total == 60


# --- phase 2: dispatch --------------------------------------------------------------
@pytest.mark.django_db
class TestDispatch:
    def test_bounded_batch_ordered_by_priority_then_age_with_full_payload(
        self, actor, workspace, published, django_capture_on_commit_callbacks
    ):
        proxy = make_proxy(workspace, port=8080, username="pu", password="pp")
        pooled = [make_account(workspace, use_proxy_pool=True) for _ in range(4)]  # accounts that chose the pool
        low = make_browser_campaign(actor, accounts=pooled, links=[LINK])
        high_account = make_account(
            workspace, cookies="session=valid-high", user_agent="UA/1", viewport_width=390, use_proxy_pool=True
        )
        high = make_browser_campaign(
            actor,
            accounts=[high_account],
            links=[LINK],
            priority=5,
            content_template="درود {account}",
        )
        creation.due_platforms_create_tasks()
        assert dispatch(django_capture_on_commit_callbacks, batch_size=3) == 3
        assert len(published) == 3
        first = published[0]
        assert first["campaign_id"] == high.pk
        assert first["account"]["cookies"] == "session=valid-high"
        assert first["account"]["user_agent"] == "UA/1"
        assert first["account"]["viewport"]["width"] == 390
        assert first["proxy"] == {"id": proxy.pk, "server": "http://127.0.0.1:8080", "username": "pu", "password": "pp"}
        assert first["content"] == f"درود {high_account.label}"
        assert first["steps"] == LIKE_STEPS and first["link"] == LINK and first["attempt"] == 1
        low_ids = list(BrowserTask.objects.filter(campaign=low).order_by("id").values_list("id", flat=True))
        assert [p["task_id"] for p in published[1:]] == low_ids[:2]
        assert BrowserTask.objects.filter(status=TaskStatus.DISPATCHED).count() == 3
        assert all(t.lease_expires_at for t in BrowserTask.objects.filter(status=TaskStatus.DISPATCHED))

    def test_nothing_is_published_when_the_claim_rolls_back(self, actor, workspace, published):
        make_browser_campaign(actor, accounts=[make_account(workspace)], links=[LINK])
        creation.due_platforms_create_tasks()
        with pytest.raises(RuntimeError), transaction.atomic():
            dispatch_due_tasks()
            raise RuntimeError("crash before commit")
        assert published == []
        assert BrowserTask.objects.get().status == TaskStatus.PENDING

    def test_future_tasks_paused_platforms_and_expired_accounts_wait(
        self, actor, workspace, published, django_capture_on_commit_callbacks
    ):
        from workers.services.campaigns import platform_transition

        expired = make_account(workspace)
        campaign = make_browser_campaign(actor, accounts=[expired, make_account(workspace)], links=[LINK])
        creation.due_platforms_create_tasks()
        BrowserAccount.objects.filter(pk=expired.pk).update(session_status=SessionStatus.EXPIRED)
        platform = campaign.browser_platforms.get()
        platform_transition(actor=actor, platform_id=platform.pk, transition="pause")
        assert dispatch(django_capture_on_commit_callbacks) == 0
        platform_transition(actor=actor, platform_id=platform.pk, transition="resume")
        BrowserTask.objects.update(start_date=timezone.now() + timedelta(minutes=5))
        assert dispatch(django_capture_on_commit_callbacks) == 0
        with time_machine.travel(timezone.now() + timedelta(minutes=6), tick=False):
            assert dispatch(django_capture_on_commit_callbacks) == 1
        assert published[0]["account"]["id"] != expired.pk

    def test_per_account_pacing(self, actor, workspace, published, django_capture_on_commit_callbacks):
        account = make_account(workspace)
        make_browser_campaign(
            actor,
            accounts=[account],
            links=[LINK, "http://127.0.0.1:9/post/2", "http://127.0.0.1:9/post/3"],
            pacing_seconds=60,
        )
        creation.due_platforms_create_tasks()
        start = timezone.now()
        assert dispatch(django_capture_on_commit_callbacks, now=start) == 1
        assert dispatch(django_capture_on_commit_callbacks, now=start + timedelta(seconds=30)) == 0
        assert dispatch(django_capture_on_commit_callbacks, now=start + timedelta(seconds=61)) == 1

    def test_per_campaign_concurrency_cap(self, actor, workspace, published, django_capture_on_commit_callbacks):
        make_browser_campaign(
            actor, accounts=[make_account(workspace) for _ in range(10)], links=[LINK], concurrency_cap=4
        )
        creation.due_platforms_create_tasks()
        assert dispatch(django_capture_on_commit_callbacks) == 4
        assert dispatch(django_capture_on_commit_callbacks) == 0
        result_apply(message=ok(published[0]))
        assert dispatch(django_capture_on_commit_callbacks) == 1

    def test_in_flight_tasks_are_bounded_across_platforms(
        self, actor, workspace, published, django_capture_on_commit_callbacks, settings
    ):
        """Payloads the workers could not start within their lease would only expire in the broker."""
        settings.BROWSER_TASKS = {**settings.BROWSER_TASKS, "MAX_IN_FLIGHT": 5}
        for _ in range(2):  # two campaigns (platforms), each under its own cap
            make_browser_campaign(actor, accounts=[make_account(workspace) for _ in range(4)], links=[LINK])
        creation.due_platforms_create_tasks()
        assert dispatch(django_capture_on_commit_callbacks) == 5
        assert dispatch(django_capture_on_commit_callbacks) == 0
        result_apply(message=ok(published[0]))
        result_apply(message=ok(published[1]))
        assert dispatch(django_capture_on_commit_callbacks) == 2
        assert BrowserTask.objects.filter(status=TaskStatus.DISPATCHED).count() == 5
        assert BrowserTask.objects.filter(status=TaskStatus.PENDING).count() == 1

    def test_proxies_spread_and_unavailable_ones_are_skipped(
        self, actor, workspace, published, django_capture_on_commit_callbacks
    ):
        good = [make_proxy(workspace, port=p) for p in (8001, 8002)]
        make_proxy(workspace, port=8003, is_available=False)
        make_proxy(workspace, port=8004, cooldown_until=timezone.now() + timedelta(minutes=5))
        accounts = [make_account(workspace, use_proxy_pool=True) for _ in range(6)]
        make_browser_campaign(actor, accounts=accounts, links=[LINK])
        creation.due_platforms_create_tasks()
        dispatch(django_capture_on_commit_callbacks)
        used = [p["proxy"]["id"] for p in published]
        assert sorted(set(used)) == sorted(p.pk for p in good)
        assert used.count(good[0].pk) == 3

    def test_proxies_configured_but_none_usable_means_wait(
        self, actor, workspace, published, django_capture_on_commit_callbacks
    ):
        make_proxy(workspace, is_available=False)
        make_browser_campaign(actor, accounts=[make_account(workspace, use_proxy_pool=True)], links=[LINK])
        creation.due_platforms_create_tasks()
        assert dispatch(django_capture_on_commit_callbacks) == 0

    def test_expired_lease_is_reclaimed_then_failed_when_out_of_attempts(
        self, actor, workspace, published, django_capture_on_commit_callbacks
    ):
        make_browser_campaign(actor, accounts=[make_account(workspace)], links=[LINK], max_attempts=2)
        creation.due_platforms_create_tasks()
        now = timezone.now()
        dispatch(django_capture_on_commit_callbacks, now=now)
        cache.add(run_claim_key(published[-1]["lease_id"]), 1)  # a worker started it, then vanished
        assert leases_reclaim(now=now + timedelta(seconds=30)) == 0
        later = now + timedelta(hours=1)
        assert dispatch(django_capture_on_commit_callbacks, now=later) == 1  # reclaimed and dispatched again
        assert published[-1]["attempt"] == 2
        cache.add(run_claim_key(published[-1]["lease_id"]), 1)
        assert leases_reclaim(now=later + timedelta(hours=1)) == 1
        task = BrowserTask.objects.get()
        assert task.status == TaskStatus.FAILED and task.error_code == ErrorCode.WORKER_LOST
        assert BrowserEvent.objects.filter(type=BrowserEventType.TASK_RECLAIMED).count() == 2

    def test_a_lease_no_worker_started_gives_its_attempt_back(
        self, actor, workspace, published, shared_claims, django_capture_on_commit_callbacks
    ):
        """A payload that waited in the broker until its lease was over (the worker had more queued than it
        could start within a lease) was dropped unstarted: the task goes back to PENDING with its attempt,
        however often that happens, and is checked on the page first; it never fails as WORKER_LOST."""
        make_browser_campaign(actor, accounts=[make_account(workspace)], links=[LINK], max_attempts=2)
        creation.due_platforms_create_tasks()
        now = timezone.now()
        for n in range(4):
            at = now + timedelta(hours=n)
            assert dispatch(django_capture_on_commit_callbacks, now=at) == 1
            assert published[-1]["attempt"] == 1  # the same first attempt every time
            assert leases_reclaim(now=at + timedelta(minutes=30)) == 1
            task = BrowserTask.objects.get()
            assert task.status == TaskStatus.PENDING and task.attempt_count == 0 and task.needs_verification
        cache.add(run_claim_key(published[-1]["lease_id"]), 1)  # reclaimed already: a claim now changes nothing
        assert leases_reclaim(now=now + timedelta(hours=9)) == 0
        assert BrowserTask.objects.get().status == TaskStatus.PENDING

    def test_without_a_shared_cache_an_expired_lease_spends_its_attempt(
        self, actor, workspace, published, settings, django_capture_on_commit_callbacks
    ):
        """The embedded default: each process's cache is its own, so the reclaim cannot see a worker's run claim
        and counts every expired lease as started — a killed worker's task comes back as attempt 2, checked on
        the page first, and fails WORKER_LOST when out of attempts instead of getting its attempt back forever."""
        settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
        make_browser_campaign(actor, accounts=[make_account(workspace)], links=[LINK], max_attempts=2)
        creation.due_platforms_create_tasks()
        now = timezone.now()
        dispatch(django_capture_on_commit_callbacks, now=now)
        later = now + timedelta(hours=1)
        assert dispatch(django_capture_on_commit_callbacks, now=later) == 1
        assert published[-1]["attempt"] == 2 and BrowserTask.objects.get().needs_verification
        assert leases_reclaim(now=later + timedelta(hours=1)) == 1
        task = BrowserTask.objects.get()
        assert task.status == TaskStatus.FAILED and task.error_code == ErrorCode.WORKER_LOST


# --- phase 3: results ----------------------------------------------------------------
@pytest.fixture
def one_dispatched(actor, workspace, published, django_capture_on_commit_callbacks):
    def build(n_accounts=1, spares=0, **kwargs):
        accounts = [make_account(workspace, use_proxy_pool=True) for _ in range(n_accounts)]  # the pool: chosen
        spare_accounts = [make_account(workspace, use_proxy_pool=True) for _ in range(spares)]
        campaign = make_browser_campaign(
            actor, accounts=accounts, links=[LINK], spare_accounts=[a.pk for a in spare_accounts], **kwargs
        )
        creation.due_platforms_create_tasks()
        dispatch(django_capture_on_commit_callbacks)
        return campaign, list(published)

    return build


@pytest.mark.django_db
class TestResults:
    def test_completed_result_is_applied_once(self, one_dispatched):
        campaign, payloads = one_dispatched()
        assert result_apply(message=ok(payloads[0])) == "completed"
        assert result_apply(message=ok(payloads[0])) == "ignored"
        assert result_apply(message=failed(payloads[0], ErrorCode.TIMEOUT)) == "ignored"
        task = BrowserTask.objects.get()
        assert task.status == TaskStatus.COMPLETED and task.result_data["url"] == LINK
        stats = CampaignStatistics.objects.get(campaign=campaign)
        assert (stats.completed, stats.failed, stats.pending) == (1, 0, 0)

    def test_repeated_results_apply_once(self, one_dispatched):
        _campaign, payloads = one_dispatched()
        outcomes = [result_apply(message=ok(payloads[0])) for _ in range(3)]
        assert sorted(outcomes) == ["completed", "ignored", "ignored"]

    def test_cookie_expired_expires_account_and_replaces_with_a_spare(
        self, one_dispatched, django_capture_on_commit_callbacks, published
    ):
        campaign, payloads = one_dispatched(n_accounts=1, spares=1)
        assert result_apply(message=failed(payloads[0], ErrorCode.COOKIE_EXPIRED)) == "replaced"
        assert result_apply(message=failed(payloads[0], ErrorCode.COOKIE_EXPIRED)) == "ignored"
        old = BrowserTask.objects.get(pk=payloads[0]["task_id"])
        assert old.status == TaskStatus.FAILED and old.error_code == ErrorCode.COOKIE_EXPIRED
        assert BrowserAccount.objects.get(pk=old.account_id).session_status == SessionStatus.EXPIRED
        new = old.replaced_by
        assert new.status == TaskStatus.PENDING and new.account_id != old.account_id and new.link == old.link
        # the live count leaves the replaced task out (selectors.campaign_counts)
        assert selectors.campaign_counts(campaign.pk) == {"total": 1, "completed": 0, "failed": 0, "pending": 1}
        dispatch(django_capture_on_commit_callbacks)
        assert result_apply(message=ok(published[-1])) == "completed"
        statistics.statistics_refresh()
        stats = CampaignStatistics.objects.get(campaign=campaign)
        assert (stats.total, stats.completed, stats.failed) == (1, 1, 0)

    def test_cookie_expired_without_spare_is_recorded(self, one_dispatched):
        campaign, payloads = one_dispatched(n_accounts=2)
        # the other account already has a task for this link: not a spare
        assert result_apply(message=failed(payloads[0], ErrorCode.COOKIE_EXPIRED)) == "failed"
        task = BrowserTask.objects.get(pk=payloads[0]["task_id"])
        assert task.result_data["replacement"] == "none"
        assert BrowserEvent.objects.filter(type=BrowserEventType.NO_SPARE_ACCOUNT, task=task).exists()
        assert CampaignStatistics.objects.get(campaign=campaign).failed == 1

    def test_proxy_error_scores_cooldown_threshold_and_reroute(self, actor, workspace, one_dispatched):
        bad = make_proxy(workspace, port=9001)
        _campaign, payloads = one_dispatched(n_accounts=3)
        assert {p["proxy"]["id"] for p in payloads} == {bad.pk}
        assert (
            result_apply(message=failed(payloads[0], ErrorCode.PROXY_ERROR, "net::ERR_PROXY_CONNECTION_FAILED"))
            == "retry"
        )
        bad.refresh_from_db()
        assert bad.error_score == 1 and bad.is_available and bad.cooldown_until > timezone.now()
        task = BrowserTask.objects.get(pk=payloads[0]["task_id"])
        assert task.status == TaskStatus.PENDING and task.proxy_id is None and task.proxy_failures == 1
        result_apply(message=failed(payloads[1], ErrorCode.PROXY_ERROR))
        bad.refresh_from_db()
        assert bad.is_available
        result_apply(message=failed(payloads[2], ErrorCode.PROXY_ERROR, "ERR_TUNNEL_CONNECTION_FAILED"))
        bad.refresh_from_db()
        assert not bad.is_available and bad.error_score == 3 and "TUNNEL" in bad.last_error
        event = BrowserEvent.objects.get(type=BrowserEventType.PROXY_DISABLED)
        assert event.proxy_id == bad.pk and "TUNNEL" in event.message

    def test_success_lowers_the_proxy_score(self, workspace, one_dispatched):
        proxy = make_proxy(workspace, error_score=2)
        _, payloads = one_dispatched()
        result_apply(message=ok(payloads[0]))
        proxy.refresh_from_db()
        assert proxy.error_score == 1.5 and proxy.success_count == 1

    def test_other_errors_retry_with_backoff_then_give_up(
        self, one_dispatched, published, django_capture_on_commit_callbacks
    ):
        campaign, payloads = one_dispatched(max_attempts=2, backoff_seconds=120)
        assert result_apply(message=failed(payloads[0], ErrorCode.TIMEOUT)) == "retry"
        task = BrowserTask.objects.get()
        assert task.status == TaskStatus.PENDING and task.start_date > timezone.now() + timedelta(seconds=100)
        assert dispatch(django_capture_on_commit_callbacks) == 0
        dispatch(django_capture_on_commit_callbacks, now=timezone.now() + timedelta(seconds=130))
        assert result_apply(message=failed(published[-1], ErrorCode.ELEMENT_NOT_FOUND, "no #like")) == "failed"
        task.refresh_from_db()
        assert task.status == TaskStatus.FAILED and task.error_reason == "no #like"
        assert CampaignStatistics.objects.get(campaign=campaign).failed == 1

    def test_stale_attempt_failure_is_ignored(self, one_dispatched):
        _, payloads = one_dispatched()
        stale = dict(failed(payloads[0], ErrorCode.TIMEOUT), attempt=0)
        assert result_apply(message=stale) == "ignored"
        assert BrowserTask.objects.get().status == TaskStatus.DISPATCHED

    def test_failure_screenshot_is_kept(self, one_dispatched):
        import base64

        _, payloads = one_dispatched(max_attempts=1)
        message = dict(
            failed(payloads[0], ErrorCode.VERIFY_FAILED), screenshot_b64=base64.b64encode(b"\x89PNG").decode()
        )
        result_apply(message=message)
        assert bytes(BrowserTask.objects.get().screenshot.png) == b"\x89PNG"

    def test_staff_retry_of_a_failed_task(self, actor, one_dispatched):
        _campaign, payloads = one_dispatched(max_attempts=1)
        result_apply(message=failed(payloads[0], ErrorCode.VERIFY_FAILED))
        task = task_retry(actor=actor, task_id=payloads[0]["task_id"])
        assert task.status == TaskStatus.PENDING and task.attempt_count == 0
        with pytest.raises(TaskNotRetryable):
            task_retry(actor=actor, task_id=task.pk)


@pytest.mark.django_db
def test_statistics_recount_and_platform_completion(actor, workspace, published, django_capture_on_commit_callbacks):
    campaign = make_browser_campaign(
        actor, accounts=[make_account(workspace) for _ in range(4)], links=[LINK], max_attempts=1
    )
    creation.due_platforms_create_tasks()
    dispatch(django_capture_on_commit_callbacks)
    for payload in published[:3]:
        result_apply(message=ok(payload))
    result_apply(message=failed(published[3], ErrorCode.VERIFY_FAILED))
    CampaignStatistics.objects.filter(campaign=campaign).update(completed=0, failed=0, total=0)  # drift
    statistics.statistics_refresh()
    stats = CampaignStatistics.objects.get(campaign=campaign)
    assert (stats.total, stats.completed, stats.failed, stats.pending) == (4, 3, 1, 0)
    assert campaign.browser_platforms.get().status == PlatformStatus.COMPLETED


@pytest.mark.django_db
def test_campaign_finishes_with_its_platforms_and_runs_again_on_retry(
    actor, workspace, published, django_capture_on_commit_callbacks
):
    from campaigns.models import CampaignEvent

    campaign = make_browser_campaign(
        actor, accounts=[make_account(workspace) for _ in range(2)], links=[LINK], max_attempts=1
    )
    creation.due_platforms_create_tasks()
    dispatch(django_capture_on_commit_callbacks)
    result_apply(message=ok(published[0]))
    result_apply(message=failed(published[1], ErrorCode.VERIFY_FAILED))
    statistics.statistics_refresh()
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.COMPLETED  # not "active" forever
    assert CampaignEvent.objects.filter(campaign=campaign, to_status=CampaignStatus.COMPLETED).exists()
    task_retry(actor=actor, task_id=published[1]["task_id"])
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.ACTIVE
    assert campaign.browser_platforms.get().status == PlatformStatus.RUNNING


@pytest.mark.django_db
def test_a_campaign_completed_by_hand_is_not_reopened_by_the_refresh(actor, workspace):
    from campaigns.services.campaigns import campaign_transition

    campaign = make_browser_campaign(actor, accounts=[make_account(workspace)], links=[LINK])
    creation.due_platforms_create_tasks()
    campaign_transition(actor=actor, campaign_id=campaign.pk, transition="complete")
    statistics.statistics_refresh()
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.COMPLETED


@pytest.mark.django_db
def test_migration_finishes_campaigns_whose_platforms_all_completed(actor, workspace):
    from importlib import import_module

    from django.apps import apps

    done = make_browser_campaign(actor, accounts=[make_account(workspace)], links=[LINK])
    running = make_browser_campaign(actor, accounts=[make_account(workspace)], links=[LINK])
    done.browser_platforms.update(status=PlatformStatus.COMPLETED)
    migration = import_module("workers.migrations.0005_campaigns_follow_their_platforms")
    migration.finish_campaigns_of_finished_platforms(apps, None)
    done.refresh_from_db()
    running.refresh_from_db()
    assert (done.status, running.status) == (CampaignStatus.COMPLETED, CampaignStatus.ACTIVE)


@pytest.mark.django_db
def test_proxy_error_without_proxy_id_still_reroutes(actor, workspace, one_dispatched):
    _, payloads = one_dispatched()
    assert result_apply(message=failed(payloads[0], ErrorCode.PROXY_ERROR)) == "retry"
    assert not Proxy.objects.exists()
    task = BrowserTask.objects.get(pk=payloads[0]["task_id"])
    assert task.status == TaskStatus.PENDING and task.proxy_id is None and task.proxy_failures == 1


@pytest.mark.django_db
def test_platform_paused_before_creation_resumes_to_pending(actor, workspace):
    from workers.services.campaigns import platform_transition

    campaign = make_browser_campaign(actor, accounts=[make_account(workspace)], links=[LINK])
    platform = campaign.browser_platforms.get()
    platform_transition(actor=actor, platform_id=platform.pk, transition="pause")
    assert creation.due_platforms_create_tasks() == 0
    platform = platform_transition(actor=actor, platform_id=platform.pk, transition="resume")
    assert platform.status == PlatformStatus.PENDING
    assert creation.due_platforms_create_tasks() == 1
    platform.refresh_from_db()
    assert platform.status == PlatformStatus.RUNNING
    events = BrowserEvent.objects.filter(type=BrowserEventType.PLATFORM_STATUS).order_by("id")
    assert [e.message for e in events] == ["pending → paused", "paused → pending", "pending → running"]


def test_browser_task_reports_a_broken_browser_as_a_failed_result(monkeypatch):
    from workers import dispatch as messaging
    from workers import tasks, worker

    class Broken:
        def submit(self, payload, deadline=None):
            raise RuntimeError("chromium crashed")

    sent, restarted = [], []
    monkeypatch.setattr(worker, "host", lambda: Broken())
    monkeypatch.setattr(worker, "restart", lambda: restarted.append(True))
    monkeypatch.setattr(messaging, "publish_result", sent.append)
    tasks.run_browser_task.run({"task_id": 7, "attempt": 2, "lease_id": "l-7"})
    assert sent == [
        {
            "task_id": 7,
            "attempt": 2,
            "lease_id": "l-7",
            "status": "failed",
            "error_code": "UNKNOWN",
            "error_reason": "worker error: RuntimeError",
            "result_data": {"mutated": True},  # the worker cannot tell: the retry verifies first
        }
    ]
    assert restarted == [True]


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="concurrent writers need PostgreSQL (SQLite locks tables)"
)
def test_concurrent_duplicate_results_are_applied_once(actor, workspace, published):
    make_browser_campaign(actor, accounts=[make_account(workspace)], links=[LINK], spare_accounts=[])
    creation.due_platforms_create_tasks()
    dispatch_due_tasks()  # outside a test transaction: on_commit publishes at once
    (payload,) = published
    barrier = threading.Barrier(4)
    outcomes, errors = [], []

    def deliver(message):
        try:
            barrier.wait()
            outcomes.append(result_apply(message=message))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    messages = [ok(payload), ok(payload), failed(payload, ErrorCode.COOKIE_EXPIRED), ok(payload)]
    threads = [threading.Thread(target=deliver, args=(m,)) for m in messages]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sum(o != "ignored" for o in outcomes) == 1
    task = BrowserTask.objects.get(pk=payload["task_id"])
    stats = CampaignStatistics.objects.get(campaign_id=task.campaign_id)
    if task.status == TaskStatus.COMPLETED:
        assert (stats.completed, stats.failed, stats.pending) == (1, 0, 0)
    else:  # the failure won the race: account expired, no spare left
        assert (stats.completed, stats.failed, stats.pending) == (0, 1, 0)


@pytest.mark.django_db
@pytest.mark.parametrize("transition", ["cancel", "complete"])
def test_a_cancelled_or_finished_campaign_stops_its_platforms(actor, workspace, transition):
    """The browser kind's lifecycle effect: every platform not completed stops with its campaign (each with its
    event), whether its tasks were made (running), not yet (pending) or it was paused; waiting tasks are never
    dispatched."""
    from campaigns.services.campaigns import campaign_transition
    from workers.services.campaigns import platform_transition

    made = make_browser_campaign(actor, accounts=[make_account(workspace)], links=[LINK])
    creation.due_platforms_create_tasks()
    paused = make_browser_campaign(actor, accounts=[make_account(workspace)], links=[LINK])
    platform_transition(actor=actor, platform_id=paused.browser_platforms.get().pk, transition="pause")
    unmade = make_browser_campaign(actor, accounts=[make_account(workspace)], links=[LINK])
    for campaign in (made, paused, unmade):
        campaign_transition(actor=actor, campaign_id=campaign.pk, transition=transition)
        platform = campaign.browser_platforms.get()
        assert platform.status == PlatformStatus.COMPLETED
        assert BrowserEvent.objects.filter(
            campaign=campaign, type=BrowserEventType.PLATFORM_STATUS, message__endswith="→ completed"
        ).exists()
    assert creation.due_platforms_create_tasks() == 0  # the unmade one's tasks are never made
    assert dispatch_due_tasks() == 0
    assert BrowserTask.objects.get(campaign=made).status == TaskStatus.PENDING


@pytest.mark.django_db
def test_a_failed_task_of_a_cancelled_campaign_is_not_retried(actor, one_dispatched):
    from campaigns.services.campaigns import campaign_transition

    campaign, payloads = one_dispatched(max_attempts=1)
    result_apply(message=failed(payloads[0], ErrorCode.VERIFY_FAILED))
    campaign_transition(actor=actor, campaign_id=campaign.pk, transition="cancel")
    with pytest.raises(TaskNotRetryable, match="لغو"):
        task_retry(actor=actor, task_id=payloads[0]["task_id"])
    assert BrowserTask.objects.get(pk=payloads[0]["task_id"]).status == TaskStatus.FAILED
