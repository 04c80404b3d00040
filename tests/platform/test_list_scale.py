"""Lists stay cheap however big the workspace: a pager counts at most COUNT_CAP rows and says "بیش از …" past
it, and a list's query count does not grow with its rows (no N+1)."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from campaigns.platform.pagination import CappedPaginator
from tests.conftest import make_list, make_target

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_cap(monkeypatch):
    monkeypatch.setattr(CappedPaginator, "cap", 3)


@pytest.fixture
def staff(owner):
    client = Client()
    client.force_login(owner)
    return client


def test_the_api_count_stops_at_the_cap_and_says_so(api, workspace, small_cap):
    for _ in range(2):
        make_target(workspace)
    body = api.get("/api/v1/targets").json()
    assert (body["count"], body["count_capped"]) == (2, False)
    for _ in range(3):
        make_target(workspace)
    with CaptureQueriesContext(connection) as captured:
        body = api.get("/api/v1/targets", {"size": 2, "page": 2}).json()
    assert (body["count"], body["count_capped"], len(body["results"])) == (3, True, 1)  # pages reach the cap
    counts = [q["sql"] for q in captured if "COUNT(" in q["sql"].upper()]
    assert counts and all("LIMIT 4" in sql for sql in counts), counts  # a bounded count, never the whole table


def test_the_target_page_shows_more_than_the_cap_honestly(staff, workspace, small_cap):
    for _ in range(5):
        make_target(workspace)
    html = staff.get("/targets/").content.decode()
    assert "بیش از ۳" in html


def query_count(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
        assert response.status_code == 200, response.content[:500]
    return len(captured)


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/targets",
        "/api/v1/target-lists",
        "/targets/",
        "/targets/?q=98912",
        "/targets/?list=L",
        "/api/v1/targets?list=L",
    ],
)
def test_list_query_count_does_not_grow_with_rows(api, staff, workspace, url):
    client = api if url.startswith("/api/") else staff
    lists = [make_list(workspace) for _ in range(2)]
    url = url.replace("=L", f"={lists[0].id}")

    def add(n: int) -> None:
        for _ in range(n):
            make_target(workspace, mobile=None).lists.add(*lists)

    add(2)
    query_count(client, url)  # the first request of a session writes it
    few = query_count(client, url)
    add(8)
    assert query_count(client, url) == few


def plan_of(qs) -> str:
    sql, params = qs.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # tiny tables: the planner would scan them anyway
        cursor.execute("SET LOCAL enable_sort = off")
        cursor.execute("EXPLAIN " + sql, params)
        return "\n".join(row[0] for row in cursor.fetchall())


@pytest.mark.skipif(connection.vendor != "postgresql", reason="query plans of PostgreSQL")
def test_the_big_logs_read_newest_first_through_their_indexes(workspace, owner):
    from automation.campaign_selectors import campaign_events
    from campaigns.models import Campaign
    from sms.selectors import attempt_queryset
    from tests.conftest import make_actor

    actor = make_actor(workspace, user=owner)
    assert "smslog_ws_time" in plan_of(attempt_queryset(actor=actor)[:50])
    campaign = Campaign.objects.create(workspace=workspace, name="c")
    assert "exevent_campaign_time" in plan_of(campaign_events(actor=actor, campaign=campaign)[:50])


def test_a_lists_pages_hold_its_live_visible_members_newest_first(api, staff, workspace, other_workspace, small_cap):
    """A list's pager walks its members (PostgreSQL) or joins them (SQLite): the same rows either way, with the
    other filters applied and the count capped."""
    from django.utils import timezone

    from campaigns.models import Target

    tl, other = make_list(workspace), make_list(workspace)
    members = [make_target(workspace, status="new") for _ in range(6)]
    tl.targets.add(*members)
    other.targets.add(make_target(workspace))  # another list's member
    Target.objects.filter(pk=members[2].pk).update(deleted_at=timezone.now())
    Target.objects.filter(pk=members[4].pk).update(status="contacted")
    make_list(other_workspace).targets.add(make_target(other_workspace))
    newest_first = [t.id for t in reversed(members) if t.id != members[2].id]

    first = api.get("/api/v1/targets", {"list": tl.id, "size": 2}).json()
    second = api.get("/api/v1/targets", {"list": tl.id, "size": 2, "page": 2}).json()
    assert [r["id"] for r in first["results"] + second["results"]] == newest_first[:3]  # pages reach the cap
    assert (first["count"], first["count_capped"]) == (3, True)
    new_only = api.get("/api/v1/targets", {"list": tl.id, "status": "new"}).json()
    assert [r["id"] for r in new_only["results"]] == [i for i in newest_first if i != members[4].id][:3]
    assert all(r["list_ids"] == [tl.id] for r in new_only["results"])
    html = staff.get(f"/targets/?list={tl.id}").content.decode()
    assert "بیش از ۳" in html and members[5].name in html
    assert api.get("/api/v1/targets", {"list": "x"}).status_code == 400


@pytest.mark.skipif(connection.vendor != "postgresql", reason="query plans of PostgreSQL")
def test_every_sms_log_filter_and_a_deep_cursor_read_through_an_index(workspace, owner):
    from datetime import UTC, datetime

    from campaigns.models import Campaign
    from campaigns.platform.keyset import _after
    from sms.models import SmsAttempt
    from sms.selectors import attempt_queryset
    from tests.conftest import make_actor
    from tests.platform.test_keyset import _attempt_copies

    actor = make_actor(workspace, user=owner)
    campaign = Campaign.objects.create(workspace=workspace, name="c")
    # A log of some size — 3,000 attempts of 30 campaigns to 300 numbers — and its statistics, so the planner
    # weighs the indexes as on a real workspace (on a near-empty table any index is as cheap as another).
    ids = _attempt_copies(workspace, 3000)
    campaigns = [campaign, *(Campaign.objects.create(workspace=workspace, name=f"c{i}") for i in range(29))]
    for i, campaign_of in enumerate(campaigns):
        SmsAttempt.objects.filter(pk__in=ids[i::30]).update(campaign=campaign_of)
    for i in range(300):
        SmsAttempt.objects.filter(pk__in=ids[i::300]).update(phone=f"+98912{i:07d}")
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {SmsAttempt._meta.db_table}")
    log = attempt_queryset(actor=actor).order_by("-request_at", "-id")
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    assert "smslog_ws_time" in plan_of(log.filter(_after("request_at", True, moment, 10))[:51])
    assert "smslog_campaign_time" in plan_of(attempt_queryset(actor=actor, campaign_id=campaign.id)[:51])
    assert "smslog_ws_phone_time" in plan_of(attempt_queryset(actor=actor, number="09121234567")[:51])


@pytest.mark.parametrize("path", ["/sms/log/", "/api/v1/sms/attempts", "/automation/campaigns/{campaign}/logs/"])
def test_history_pages_run_the_same_queries_for_3_or_60_rows_and_on_a_later_page(api, staff, workspace, path):
    from campaigns.platform.keyset import encode_cursor
    from sms.models import SmsAttempt
    from tests.platform.test_keyset import _attempt_copies

    ids = _attempt_copies(workspace, 3)
    first = SmsAttempt.objects.get(pk=ids[0])
    url = path.format(campaign=first.campaign_id)
    client = api if url.startswith("/api/") else staff
    query_count(client, url)  # the first request of a session writes it
    few = query_count(client, url)
    _attempt_copies(workspace, 60)
    if "logs" in url:  # the campaign's own log grows
        from automation.models import ExecutionEvent

        event = ExecutionEvent.objects.filter(campaign_id=first.campaign_id).first()
        fields = {
            f.attname: getattr(event, f.attname) for f in ExecutionEvent._meta.concrete_fields if not f.primary_key
        }
        ExecutionEvent.objects.bulk_create([ExecutionEvent(**fields) for _ in range(60)])
    assert query_count(client, url) <= few  # (a page of rows may reuse what the first rows looked up)
    later = f"{url}?cursor={encode_cursor(first.request_at, first.pk, 'n')}"
    assert query_count(client, later) <= few


def test_a_short_list_is_read_by_its_filter_and_sorted_a_long_one_walks_the_sort_index(api, workspace, small_cap):
    """A search that matches few targets (the count stayed under the cap) is not read by walking the newest-first
    index — PostgreSQL would check half a million rows for a rare fragment — but by its own index, then sorted:
    its first sort key is an expression no index matches. The rows and their order are those of the list's own
    ordering (newest first, ties by id); past the cap the page keeps the index walk."""
    from django.utils import timezone

    from campaigns.models import Target

    same_moment = timezone.now()
    found = [make_target(workspace, name=f"رضایی {i}") for i in range(3)]
    Target.objects.filter(pk__in=[t.pk for t in found[:2]]).update(created_at=same_moment)  # a tie, broken by id
    make_target(workspace, name="دیگری")

    def page(params):
        with CaptureQueriesContext(connection) as captured:
            body = api.get("/api/v1/targets", params).json()
        sql = next(q["sql"] for q in captured if "ORDER BY" in q["sql"] and 'FROM "campaigns_target"' in q["sql"])
        return body, sql.split("ORDER BY", 1)[1]

    body, order = page({"q": "رضایی"})
    assert [r["id"] for r in body["results"]] == [found[2].id, found[1].id, found[0].id]
    assert order.lstrip().startswith("(") and "+" in order.split(",")[0], order  # sorted, not walked
    for _ in range(2):
        make_target(workspace, name="رضایی بیشتر")
    body, order = page({"q": "رضایی", "size": 2})
    assert body["count_capped"] and order.lstrip().startswith('"campaigns_target"."created_at" DESC'), order


@pytest.mark.skipif(connection.vendor != "postgresql", reason="query plans of PostgreSQL")
def test_an_accounts_latest_failure_reads_one_entry_of_its_partial_index(workspace, owner):
    """The accounts list and the campaign form's picker show each account's latest failure: an index walk of that
    account's failed tasks, not a sort of every failed task of the workspace per account."""
    from tests.conftest import make_actor
    from workers.page_selectors import live_accounts

    plan = plan_of(live_accounts(actor=make_actor(workspace, user=owner))[:50])
    assert "browsertask_account_failed" in plan


@pytest.mark.django_db
def test_a_history_admin_list_joins_one_level_and_reads_no_distinct_of_its_table(workspace, django_user_model):
    """The events admin: newest first by id, its filters' choices not a DISTINCT over the events, the references it
    shows joined once (Django's default joined every reference of every reference)."""
    from django.test import Client

    from automation.admin import ExecutionEventAdmin

    user = django_user_model.objects.create_superuser("root", "r@example.com", "pw-123456")
    client = Client()
    client.force_login(user)
    with CaptureQueriesContext(connection) as captured:
        assert client.get("/admin/automation/executionevent/").status_code == 200
    events = [q["sql"] for q in captured if 'FROM "automation_executionevent"' in q["sql"]]
    assert events and not [sql for sql in events if "DISTINCT" in sql.upper()], events
    listed = next(sql for sql in events if "ORDER BY" in sql and "COUNT(" not in sql.upper())
    assert listed.count(" JOIN ") <= len(ExecutionEventAdmin.list_display), listed
    assert 'ORDER BY "automation_executionevent"."id" DESC' in listed


@pytest.mark.skipif(connection.vendor != "postgresql", reason="query plans of PostgreSQL")
def test_the_polled_counts_and_the_activity_list_read_their_indexes(workspace, owner):
    """docs/benchmarks.md "The five live counts": the follow-up list's first page walks its order's index (not a sort
    of every activity of the workspace), a browser campaign's replaced tasks and a journey's executions ended with
    the campaign are counted on partial indexes of those few rows."""
    from automation.choices import EndReason, ExecutionStatus
    from automation.models import Execution
    from campaigns.notifications.selectors import activity_queryset
    from tests.conftest import make_actor
    from workers.models import BrowserTask

    actor = make_actor(workspace, user=owner)
    page = activity_queryset(actor=actor).order_by("status", "due_at", "id")[:20]
    assert "activity_workspace_order" in plan_of(page)
    replaced = BrowserTask.objects.filter(campaign_id=1, replaces__isnull=False).order_by().values("replaces__status")
    assert "browsertask_campaign_replaces" in plan_of(replaced)
    ended = Execution.objects.filter(
        workspace=workspace, campaign_id=1, status=ExecutionStatus.CANCELLED, end_reason=EndReason.CAMPAIGN_ENDED
    ).order_by()
    assert "exec_campaign_ended" in plan_of(ended.values("campaign_id"))
