"""End to end with real Chromium on 127.0.0.1: creation → dispatch → worker → results → statistics.

The worker code runs in a dedicated thread with the real browser (the
browser side never touches the database, like a browser worker process);
``test_e2e_celery.py`` runs the same pipeline through a real Celery worker.
"""

import pytest
from django.core.cache import cache
from django.utils import timezone

from workers.choices import BrowserEventType, ErrorCode, SessionStatus, TaskStatus
from workers.claims import run_claim_key
from workers.localsite import dead_port
from workers.models import BrowserAccount, BrowserEvent, BrowserTask, CampaignStatistics, Proxy
from workers.services import creation, statistics
from workers.services.dispatch import dispatch_due_tasks
from workers.services.results import result_apply

from .conftest import COMMENT_STEPS, make_account, make_browser_campaign, make_proxy

pytestmark = pytest.mark.browser


class Pipeline:
    """Beat's jobs called in order; the browser runs what was published and results are applied."""

    def __init__(self, browser, published, capture):
        self.browser, self.published, self.capture = browser, published, capture
        self.batches: list[int] = []
        self.results: list[dict] = []

    def dispatch(self, **kwargs) -> list[dict]:
        start = len(self.published)
        with self.capture(execute=True):
            dispatch_due_tasks(**kwargs)
        batch = self.published[start:]
        if batch:
            self.batches.append(len(batch))
        return batch

    def work(self, payloads) -> list[dict]:
        results = self.browser.run_all(payloads)
        self.results.extend(results)
        return results

    def run_until_idle(self, max_rounds: int = 20, **kwargs) -> None:
        creation.due_platforms_create_tasks()
        for _ in range(max_rounds):
            batch = self.dispatch(**kwargs)
            if not batch:
                return
            for result in self.work(batch):
                result_apply(message=result)


@pytest.fixture
def pipeline(browser, published, django_capture_on_commit_callbacks):
    return Pipeline(browser, published, django_capture_on_commit_callbacks)


@pytest.mark.django_db
def test_hundred_accounts_one_link_in_batches(actor, workspace, site, pipeline):
    accounts = [make_account(workspace) for _ in range(100)]
    link = site.url("/post/e2e-100")
    campaign = make_browser_campaign(actor, accounts=accounts, links=[link])
    assert creation.due_platforms_create_tasks() == 100
    assert BrowserTask.objects.filter(campaign=campaign, status=TaskStatus.PENDING).count() == 100
    pipeline.run_until_idle(batch_size=50)
    assert pipeline.batches == [50, 50]
    statistics.statistics_refresh()
    stats = CampaignStatistics.objects.get(campaign=campaign)
    assert (stats.total, stats.completed, stats.failed) == (100, 100, 0)
    assert site.state.like_count("e2e-100") == 100
    assert campaign.browser_platforms.get().status == "completed"


@pytest.mark.django_db
def test_comment_action_posts_the_rendered_template(actor, workspace, site, pipeline):
    accounts = [make_account(workspace, label=f"کاربر{i}") for i in range(3)]
    make_browser_campaign(
        actor,
        accounts=accounts,
        links=[site.url("/post/e2e-comment")],
        action="comment",
        steps=COMMENT_STEPS,
        content_template="عالی بود، {account}!",
    )
    pipeline.run_until_idle()
    posted = {body for post, _, body in site.state.comments if post == "e2e-comment"}
    assert posted == {f"عالی بود، کاربر{i}!" for i in range(3)}


@pytest.mark.django_db
def test_expired_cookie_expires_the_account_and_a_replacement_succeeds(actor, workspace, site, pipeline):
    good = [make_account(workspace) for _ in range(3)]
    stale = make_account(workspace, cookies="session=expired-e2e")
    spare = make_account(workspace)
    link = site.url("/post/e2e-expired")
    campaign = make_browser_campaign(actor, accounts=[*good, stale], links=[link], spare_accounts=[spare.pk])
    pipeline.run_until_idle()
    stale.refresh_from_db()
    assert stale.session_status == SessionStatus.EXPIRED
    failed = BrowserTask.objects.get(account=stale)
    assert failed.status == TaskStatus.FAILED and failed.error_code == ErrorCode.COOKIE_EXPIRED
    assert failed.screenshot.png  # the login page as the worker saw it
    replacement = failed.replaced_by
    assert replacement.account_id == spare.pk and replacement.status == TaskStatus.COMPLETED
    statistics.statistics_refresh()
    stats = CampaignStatistics.objects.get(campaign=campaign)
    assert (stats.total, stats.completed, stats.failed) == (4, 4, 0)
    assert site.state.like_count("e2e-expired") == 4


@pytest.mark.django_db
def test_dead_proxy_is_disabled_past_the_threshold_and_tasks_go_elsewhere(
    actor, workspace, site, local_proxy, pipeline, allow_private
):
    dead = make_proxy(workspace, port=dead_port(), label="dead")
    allow_private(f"127.0.0.1:{dead.port}")
    alive = make_proxy(workspace, port=local_proxy.port, label="alive")
    accounts = [make_account(workspace, use_proxy_pool=True) for _ in range(6)]  # the pool, chosen
    link = site.url("/post/e2e-proxy")
    campaign = make_browser_campaign(actor, accounts=accounts, links=[link])
    before = local_proxy.requests
    creation.due_platforms_create_tasks()
    first = pipeline.dispatch()
    assert {p["proxy"]["id"] for p in first} == {dead.pk, alive.pk}
    for result in pipeline.work(first):
        result_apply(message=result)
    dead.refresh_from_db()
    assert not dead.is_available and dead.error_score >= 3
    assert "ERR_PROXY_CONNECTION_FAILED" in dead.last_error
    assert BrowserEvent.objects.filter(type=BrowserEventType.PROXY_DISABLED, proxy=dead).exists()
    rerouted = pipeline.dispatch()
    assert rerouted and {p["proxy"]["id"] for p in rerouted} == {alive.pk}
    for result in pipeline.work(rerouted):
        result_apply(message=result)
    assert BrowserTask.objects.filter(campaign=campaign, status=TaskStatus.COMPLETED).count() == 6
    assert local_proxy.requests > before
    assert Proxy.objects.get(pk=alive.pk).is_available


@pytest.mark.django_db
def test_duplicate_result_is_applied_once(actor, workspace, site, pipeline):
    make_browser_campaign(actor, accounts=[make_account(workspace)], links=[site.url("/post/e2e-dup")])
    creation.due_platforms_create_tasks()
    (payload,) = pipeline.dispatch()
    (result,) = pipeline.work([payload])
    assert [result_apply(message=result) for _ in range(3)] == ["completed", "ignored", "ignored"]
    task = BrowserTask.objects.get()
    assert task.status == TaskStatus.COMPLETED and task.attempt_count == 1
    assert CampaignStatistics.objects.get(campaign=task.campaign).completed == 1


@pytest.mark.django_db
def test_lost_worker_lease_is_reclaimed_and_done_once(actor, workspace, site, pipeline):
    account = make_account(workspace)
    make_browser_campaign(actor, accounts=[account], links=[site.url("/post/e2e-lost")])
    creation.due_platforms_create_tasks()
    now = timezone.now()
    (lost,) = pipeline.dispatch(now=now)  # published, then the worker died: no result ever comes
    cache.add(run_claim_key(lost["lease_id"]), 1)  # it had started (its run claim): the attempt is spent
    assert pipeline.dispatch(now=now + timezone.timedelta(minutes=5)) == []  # lease still running
    (again,) = pipeline.dispatch(now=now + timezone.timedelta(minutes=11))
    assert again["task_id"] == lost["task_id"] and again["attempt"] == 2
    (result,) = pipeline.work([again])
    assert result_apply(message=result) == "completed"
    late = dict(result, attempt=1)
    assert result_apply(message=late) == "ignored"
    task = BrowserTask.objects.get()
    assert task.status == TaskStatus.COMPLETED
    assert site.state.like_count("e2e-lost") == 1
    assert BrowserAccount.objects.get(pk=account.pk).session_status == SessionStatus.ACTIVE
