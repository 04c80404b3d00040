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


@pytest.mark.parametrize("url", ["/api/v1/targets", "/api/v1/target-lists", "/targets/", "/targets/?q=98912"])
def test_list_query_count_does_not_grow_with_rows(api, staff, workspace, url):
    client = api if url.startswith("/api/") else staff
    lists = [make_list(workspace) for _ in range(2)]

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
