"""Safety rules of browser tasks (spec: browser-tasks.md → "Safety rules"): bounded work, at most once per
click, secrets in transit. One regression test per finding of the review."""

import json
import os
import signal
import threading
import uuid
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest
import time_machine
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import before_task_publish
from django.conf import settings as django_settings
from django.db import connection
from django.utils import timezone
from kombu import Connection

from workers import dispatch as messaging
from workers import tasks, worker
from workers.choices import BrowserEventType, ErrorCode, PlatformStatus, TaskStatus
from workers.errors import TooManyTasks
from workers.models import BrowserAccount, BrowserEvent, BrowserTask, CampaignPlatform, CampaignStatistics
from workers.services import creation
from workers.services.dispatch import dispatch_due_tasks
from workers.services.results import result_apply

from ..conftest import make_actor, make_workspace
from .conftest import LIKE_STEPS, LOGIN_CHECK, make_account, make_browser_campaign, make_proxy

LINK = "http://127.0.0.1:9/post/1"


def links(n: int) -> list[str]:
    return [f"http://127.0.0.1:9/post/{i}" for i in range(n)]


def dispatch(capture, **kwargs) -> int:
    with capture(execute=True):
        return dispatch_due_tasks(**kwargs)


def result_for(payload: dict, status: str = "completed", **extra) -> dict:
    return {
        "task_id": payload["task_id"],
        "attempt": payload["attempt"],
        "lease_id": payload["lease_id"],
        "status": status,
        "result_data": extra.pop("result_data", {}),
        **extra,
    }


@pytest.fixture
def worker_settings(settings):
    """Browser worker settings of these tests (a fresh per-process browser, short limits)."""

    def apply(**values):
        settings.BROWSER_TASKS = {**settings.BROWSER_TASKS, **values}

    settings.PLAYWRIGHT_CHROMIUM_PATH = os.environ.get("PLAYWRIGHT_CHROMIUM_PATH", "/usr/bin/chromium")
    yield apply
    worker.stop()


# --- bounded work -------------------------------------------------------------------------------
@pytest.mark.django_db
def test_creation_over_the_cap_is_refused(actor, workspace, api, settings):
    settings.BROWSER_TASKS = {**settings.BROWSER_TASKS, "MAX_TASKS_PER_PLATFORM": 6}
    accounts = [make_account(workspace) for _ in range(3)]
    with pytest.raises(TooManyTasks) as info:
        make_browser_campaign(actor, accounts=accounts, links=links(3))  # 9 > 6
    assert info.value.code == "TOO_MANY_TASKS" and "6" in info.value.message
    body = {
        "kind": "browser",
        "name": "بیش از سقف",
        "platform": "demo",
        "accounts": [a.pk for a in accounts],
        "target_links": links(3),
        "action": "like",
        "steps": LIKE_STEPS,
        "login_check": LOGIN_CHECK,
    }
    response = api.post("/api/v1/campaigns", body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "TOO_MANY_TASKS"
    assert not CampaignPlatform.objects.exists()
    make_browser_campaign(actor, accounts=accounts, links=links(2))  # 6: at the cap is fine


@pytest.mark.django_db
def test_creation_in_chunks_ends_with_all_tasks_and_no_duplicate(actor, workspace, settings):
    settings.BROWSER_TASKS = {**settings.BROWSER_TASKS, "CREATION_CHUNK": 7, "CREATION_ROWS_PER_RUN": 12}
    big = make_browser_campaign(actor, accounts=[make_account(workspace) for _ in range(5)], links=links(6))
    other_workspace = make_workspace()
    small = make_browser_campaign(
        make_actor(other_workspace), accounts=[make_account(other_workspace) for _ in range(2)], links=[LINK]
    )
    # one run is bounded; the other workspace's small platform is served in the same run, not after the big one
    assert creation.due_platforms_create_tasks() == 12
    assert BrowserTask.objects.filter(campaign=small).count() == 2
    platform = big.browser_platforms.get()
    assert platform.status == PlatformStatus.PENDING and not platform.is_tasks_created
    assert BrowserTask.objects.filter(campaign=big).count() == 10
    # a run that lost its progress marker (crash after inserting) redoes a chunk without duplicating it
    CampaignPlatform.objects.filter(pk=platform.pk).update(creation_cursor=3)
    for _ in range(5):
        creation.due_platforms_create_tasks()
    platform.refresh_from_db()
    assert platform.status == PlatformStatus.RUNNING and platform.is_tasks_created
    assert platform.creation_cursor == 30
    tasks_of_big = BrowserTask.objects.filter(campaign=big)
    assert tasks_of_big.count() == 30
    assert tasks_of_big.values("account_id", "link_hash").distinct().count() == 30
    assert CampaignStatistics.objects.get(campaign=big).total == 30


@pytest.mark.django_db
def test_a_long_non_ascii_link_is_stored_on_postgresql(actor, workspace):
    if connection.vendor != "postgresql":
        pytest.skip("the btree limit of a unique index is PostgreSQL's")
    long_link = "http://127.0.0.1:9/post/" + "لایک-پست-" * 333  # 3,021 characters, ≈ 5,300 bytes
    assert len(long_link) >= 3000
    same_link_other_spelling = long_link.replace("http://127.0.0.1:9/", "HTTP://127.0.0.1:9/")
    campaign = make_browser_campaign(
        actor, accounts=[make_account(workspace) for _ in range(2)], links=[long_link, same_link_other_spelling]
    )
    assert creation.due_platforms_create_tasks() == 2  # one slot per normalised link
    stored = BrowserTask.objects.filter(campaign=campaign)
    assert {t.link for t in stored} == {long_link}
    assert len({t.link_hash for t in stored}) == 1


@pytest.mark.django_db(transaction=True)
def test_one_failing_platform_does_not_block_another(settings):
    if connection.vendor != "postgresql":
        pytest.skip("the foreign key is checked at commit on PostgreSQL")
    settings.BROWSER_TASKS = {**settings.BROWSER_TASKS, "CREATION_BATCH": 1, "CREATION_BACKOFF_SECONDS": 60}
    first_ws, second_ws = make_workspace(), make_workspace()
    start = timezone.now() - timedelta(minutes=5)
    broken = make_browser_campaign(
        make_actor(first_ws), accounts=[make_account(first_ws)], links=[LINK], start_date=start
    )
    healthy = make_browser_campaign(make_actor(second_ws), accounts=[make_account(second_ws)], links=[LINK])
    broken_platform = broken.browser_platforms.get()
    gone = make_account(first_ws)  # its row is deleted after the campaign was saved: the insert fails
    broken_platform.metadata["account_ids"].append(gone.pk)
    CampaignPlatform.objects.filter(pk=broken_platform.pk).update(metadata=broken_platform.metadata)
    BrowserAccount.objects.filter(pk=gone.pk).delete()

    creation.due_platforms_create_tasks()  # the broken platform is the oldest: it fails, its error is kept
    broken_platform.refresh_from_db()
    assert broken_platform.creation_failures == 1 and "IntegrityError" in broken_platform.creation_error
    assert broken_platform.creation_due_at > timezone.now()
    assert BrowserEvent.objects.filter(type=BrowserEventType.CREATION_FAILED).count() == 1
    assert not BrowserTask.objects.filter(campaign=broken).exists()

    creation.due_platforms_create_tasks()  # next minute: the other workspace goes, the broken one backs off
    assert BrowserTask.objects.filter(campaign=healthy).count() == 1
    broken_platform.refresh_from_db()
    assert broken_platform.creation_failures == 1

    with time_machine.travel(timezone.now() + timedelta(seconds=61), tick=False):
        creation.due_platforms_create_tasks()  # retried after its backoff, fails again, waits twice as long
    broken_platform.refresh_from_db()
    assert broken_platform.creation_failures == 2
    assert broken_platform.creation_due_at - broken_platform.updated_at >= timedelta(seconds=120)


# --- secrets in transit and the server-chosen queue ------------------------------------------------
@pytest.mark.django_db
def test_headers_of_a_published_message_hold_no_cookie_or_password(
    actor, workspace, settings, django_capture_on_commit_callbacks
):
    queue = f"browser-test-{uuid.uuid4().hex[:8]}"
    settings.BROWSER_TASKS = {**settings.BROWSER_TASKS, "QUEUE": queue}
    make_proxy(workspace, port=8080, username="pu", password="proxy-secret-pw")
    account = make_account(workspace, cookies="session=valid-cookie-secret", use_proxy_pool=True)
    make_browser_campaign(actor, accounts=[account], links=[LINK])
    creation.due_platforms_create_tasks()
    sent = []

    def capture(sender=None, headers=None, body=None, routing_key=None, **kwargs):
        sent.append({"task": sender, "headers": dict(headers or {}), "body": body, "routing_key": routing_key})

    before_task_publish.connect(capture)
    try:
        assert dispatch(django_capture_on_commit_callbacks) == 1  # through the real producer and broker
        messaging.publish_result({"task_id": 1, "attempt": 1, "lease_id": "x", "status": "completed"})
    finally:
        before_task_publish.disconnect(capture)
        with Connection(django_settings.CELERY_BROKER_URL) as conn:
            for name in (queue, django_settings.BROWSER_TASKS.get("RESULTS_QUEUE", "default")):
                try:
                    conn.SimpleQueue(name).clear()
                except Exception:  # nothing to clear
                    pass
    run = next(m for m in sent if m["task"] == "workers.browser.run_task")
    assert "valid-cookie-secret" in json.dumps(run["body"])  # the payload itself needs them
    headers = json.dumps(run["headers"], default=str)
    assert "valid-cookie-secret" not in headers and "proxy-secret-pw" not in headers
    assert "'task_id'" in run["headers"]["argsrepr"]
    assert run["routing_key"] == queue  # the server's queue, not a tenant's
    assert all("secret" not in json.dumps(m["headers"], default=str) for m in sent)


@pytest.mark.django_db
def test_the_browser_queue_is_chosen_by_the_server(api, workspace, published, django_capture_on_commit_callbacks):
    account = make_account(workspace)
    body = {
        "kind": "browser",
        "name": "صف",
        "platform": "demo",
        "accounts": [account.pk],
        "target_links": [LINK],
        "action": "like",
        "steps": LIKE_STEPS,
    }
    refused = api.post("/api/v1/campaigns", {**body, "server": "browser-tenant-queue"}, format="json")
    assert refused.status_code == 400 and "server" in refused.json()["error"]["details"]  # not the client's choice
    response = api.post("/api/v1/campaigns", body, format="json")
    assert response.status_code == 201, response.content
    creation.due_platforms_create_tasks()
    dispatch(django_capture_on_commit_callbacks)
    assert [p["server"] for p in published] == ["browser"]
    assert BrowserTask.objects.get().server == "browser"


@pytest.mark.django_db
def test_results_are_accepted_only_for_the_lease_the_database_holds(
    actor, workspace, published, django_capture_on_commit_callbacks
):
    make_browser_campaign(actor, accounts=[make_account(workspace)], links=[LINK])
    creation.due_platforms_create_tasks()
    now = timezone.now()
    dispatch(django_capture_on_commit_callbacks, now=now)
    (first,) = published
    assert result_apply(message=result_for(first, lease_id=None)) == "ignored"
    assert result_apply(message=result_for(first, lease_id=str(uuid.uuid4()))) == "ignored"
    dispatch(django_capture_on_commit_callbacks, now=now + timedelta(minutes=11))  # lease over: redispatched
    second = published[-1]
    assert second["lease_id"] != first["lease_id"]
    assert result_apply(message=result_for(first)) == "ignored"  # the old lease
    assert BrowserTask.objects.get().status == TaskStatus.DISPATCHED
    assert result_apply(message=result_for(second)) == "completed"


# --- at most once per click -----------------------------------------------------------------------
class OncePage:
    """A post page that shows "liked" when this session has liked it; the Like click's own UI update
    never comes (a slow site), so the first attempt fails its verification after the click landed."""

    def __init__(self) -> None:
        self.likes: dict[str, int] = {}
        self.lock = threading.Lock()
        page = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def _send(self, body: str, ctype: str = "text/html; charset=utf-8") -> None:
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                post = urlsplit(self.path).path.rsplit("/", 1)[1]
                liked = page.likes.get(post, 0) > 0
                state = '<p class="liked">liked</p>' if liked else ""
                self._send(
                    f'<!doctype html><html><body><div id="me">me</div>{state}'
                    f"<button id=\"like\" onclick=\"fetch('/like/{post}',{{method:'POST'}})\">Like</button>"
                    "</body></html>"
                )

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                post = urlsplit(self.path).path.rsplit("/", 1)[1]
                with page.lock:
                    page.likes[post] = page.likes.get(post, 0) + 1
                self._send("{}", "application/json")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.browser
@pytest.mark.django_db
def test_a_retry_after_a_click_verifies_instead_of_clicking_again(
    actor, workspace, browser, published, settings, django_capture_on_commit_callbacks
):
    with OncePage() as page:
        host = urlsplit(page.url("/")).netloc
        settings.BROWSER_ALLOWED_PRIVATE_HOSTS = [*getattr(settings, "BROWSER_ALLOWED_PRIVATE_HOSTS", []), host]
        steps = [
            {"action": "goto"},
            {"action": "click", "selector": "#like"},
            {"action": "verify", "selector": ".liked", "timeout_ms": 1500},
        ]
        make_browser_campaign(
            actor, accounts=[make_account(workspace)], links=[page.url("/post/once")], steps=steps, backoff_seconds=0
        )
        creation.due_platforms_create_tasks()
        dispatch(django_capture_on_commit_callbacks)
        first = browser.run(published[-1])
        assert first["error_code"] == ErrorCode.VERIFY_FAILED and first["result_data"]["mutated"] is True
        assert page.likes["once"] == 1
        assert result_apply(message=first) == "retry"
        assert BrowserTask.objects.get().needs_verification

        dispatch(django_capture_on_commit_callbacks)
        retry = published[-1]
        assert retry["verify_first"] is True and retry["attempt"] == 2
        second = browser.run(retry)
        assert second["status"] == "completed", second
        assert second["result_data"]["already_done"] is True
        assert page.likes["once"] == 1  # verified, never clicked again
        assert result_apply(message=second) == "completed"
        assert not BrowserTask.objects.get().needs_verification


def payload_for(site, post: str, **extra) -> dict:
    n = uuid.uuid4().int % 1_000_000
    return {
        "task_id": n,
        "attempt": 1,
        "lease_id": str(uuid.uuid4()),
        "link": site.url(f"/post/{post}"),
        "content": "",
        "action_type": "like",
        "steps": LIKE_STEPS,
        "login_check": LOGIN_CHECK,
        "server": "browser",
        "account": {
            "id": n,
            "label": f"acc-{n}",
            "cookies": f"session=valid-{n}",
            "cookie_domain": "127.0.0.1",
            "user_agent": "",
            "viewport": {},
        },
        "proxy": None,
        **extra,
    }


@pytest.mark.browser
def test_a_task_whose_lease_expired_is_dropped_before_start(site, worker_settings, monkeypatch):
    sent = []
    monkeypatch.setattr(messaging, "publish_result", sent.append)
    expired = (timezone.now() - timedelta(seconds=1)).isoformat()
    tasks.run_browser_task.run(payload_for(site, "lease-expired", lease_expires_at=expired))
    assert sent == []  # no result: the lease reclaim requeues it
    assert site.state.paths["/post/lease-expired"] == 0  # the page was never opened
    assert worker._state["host"] is None  # not even a browser was started for it


@pytest.mark.browser
def test_a_payload_delivered_twice_runs_once(site, worker_settings, monkeypatch):
    """The broker may hand out one message twice; one lease is one chance to click."""
    sent = []
    monkeypatch.setattr(messaging, "publish_result", sent.append)
    lease_end = (timezone.now() + timedelta(minutes=10)).isoformat()
    payload = payload_for(site, "twice", lease_expires_at=lease_end)
    tasks.run_browser_task.run(dict(payload))
    tasks.run_browser_task.run(dict(payload))  # the same message again
    assert [r["status"] for r in sent] == ["completed"]
    assert site.state.like_count("twice") == 1
    retry = {**payload, "attempt": 2, "lease_id": str(uuid.uuid4())}  # a new lease is a new chance
    tasks.run_browser_task.run(retry)
    assert [r["status"] for r in sent] == ["completed", "completed"]


@pytest.mark.browser
def test_a_runner_deadline_closes_the_browser_and_publishes_once(site, worker_settings, monkeypatch):
    # soft limit 12 s, margin 8 s: the runner has 4 s; the page hangs for 30 s, navigation may take 20 s
    worker_settings(TASK_SOFT_TIME_LIMIT=12, DEADLINE_MARGIN_SECONDS=8, NAVIGATION_TIMEOUT_MS=20000)
    sent = []
    monkeypatch.setattr(messaging, "publish_result", sent.append)
    lease_end = (timezone.now() + timedelta(minutes=10)).isoformat()
    site.state.hold.add("deadline")
    try:
        tasks.run_browser_task.run(payload_for(site, "deadline", lease_expires_at=lease_end))
    finally:
        site.state.hold.discard("deadline")
    (result,) = sent
    assert result["status"] == "failed" and result["error_code"] == ErrorCode.TIMEOUT, result
    assert result["result_data"]["duration_ms"] < 12_000  # ended inside the soft limit, by itself
    assert result["result_data"]["mutated"] is False  # it stopped before any click
    thread = worker._state["host"]
    assert thread is not None and thread.host.warm_sessions() == 0  # the task's context was closed
    # the same browser thread is free at once (nothing abandoned in it) and the hung page never got a like
    tasks.run_browser_task.run(payload_for(site, "after-deadline", lease_expires_at=lease_end))
    assert [r["status"] for r in sent] == ["failed", "completed"]
    assert site.state.like_count("deadline") == 0


@pytest.mark.browser
def test_a_soft_time_limit_kills_the_browser_before_the_result_is_published(site, worker_settings, monkeypatch):
    """Celery raises SoftTimeLimitExceeded in the task's thread from a signal handler, while the browser
    thread is still inside a Playwright call; the browser must be gone before the one result goes out."""
    worker_settings(TASK_SOFT_TIME_LIMIT=120, DEADLINE_MARGIN_SECONDS=15, NAVIGATION_TIMEOUT_MS=60000)
    events = []
    thread = worker.host()
    pids = list(thread.browser_pids)
    assert pids

    def publish(result):
        alive = [p for p in pids if worker._running(p)]
        events.append(("published", result, alive))

    monkeypatch.setattr(messaging, "publish_result", publish)

    def soft_limit(signum, frame):
        raise SoftTimeLimitExceeded()

    previous = signal.signal(signal.SIGALRM, soft_limit)
    site.state.hold.add("soft-limit")
    lease_end = (timezone.now() + timedelta(minutes=10)).isoformat()
    try:
        signal.setitimer(signal.ITIMER_REAL, 2.0)
        tasks.run_browser_task.run(payload_for(site, "soft-limit", lease_expires_at=lease_end))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        site.state.hold.discard("soft-limit")
    ((_, result, alive),) = events
    assert result["error_code"] == ErrorCode.TIMEOUT and result["result_data"]["mutated"] is True
    assert alive == []  # driver and Chromium were killed before the result was published
    assert worker._state["host"] is None  # the next task starts a fresh browser
    assert site.state.like_count("soft-limit") == 0
