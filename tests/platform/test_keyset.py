"""Keyset pages of the history lists: every row once, in order, both ways, whatever ties the times have."""

from datetime import UTC, datetime, timedelta

import pytest

from campaigns.models import Target
from campaigns.platform.keyset import BadCursor, encode_cursor, keyset_page
from sms.models import SmsAttempt
from tests.conftest import api_client_for, make_actor, make_target, make_workspace
from tests.sms.test_api import _sent_attempt

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)


def _walk(qs, *, descending: bool, size: int) -> tuple[list[int], list[list[int]]]:
    """Every page from the first by next_cursor, then back by previous_cursor: (ids forward, pages back)."""
    forward, pages, cursors = [], [], []
    page = keyset_page(qs, time_field="created_at", descending=descending, size=size, cursor=None)
    while True:
        pages.append([t.id for t in page])
        forward += pages[-1]
        if not page.has_next:
            break
        cursors.append(page.next_cursor)
        page = keyset_page(qs, time_field="created_at", descending=descending, size=size, cursor=page.next_cursor)
    back = [[t.id for t in page]]
    while page.has_previous:
        page = keyset_page(qs, time_field="created_at", descending=descending, size=size, cursor=page.previous_cursor)
        back.append([t.id for t in page])
    assert back[::-1] == pages, "walking back shows the same pages"
    return forward, pages


@pytest.mark.django_db
@pytest.mark.parametrize("descending", [True, False])
def test_pages_hold_every_row_once_in_time_then_id_order_with_ties(descending):
    ws = make_workspace()
    targets = [make_target(ws) for _ in range(23)]
    for i, t in enumerate(targets):  # groups of three share a moment: the id breaks the tie
        Target.objects.filter(pk=t.pk).update(created_at=T0 + timedelta(minutes=(i * 7 % 23) // 3))
    qs = Target.objects.filter(workspace=ws)
    forward, pages = _walk(qs, descending=descending, size=5)
    expected = [t.id for t in qs.order_by(*(["-created_at", "-id"] if descending else ["created_at", "id"]))]
    assert forward == expected
    assert [len(p) for p in pages] == [5, 5, 5, 5, 3]


@pytest.mark.django_db
def test_a_cursor_that_is_not_ours_is_refused_and_an_exhausted_one_offers_the_way_back():
    ws = make_workspace()
    make_target(ws)
    qs = Target.objects.filter(workspace=ws)
    for bad in ("nope", encode_cursor(T0, 1, "x"), "W10", encode_cursor(T0.replace(tzinfo=None), 1, "n")):
        with pytest.raises(BadCursor):
            keyset_page(qs, time_field="created_at", descending=True, size=5, cursor=bad)
    past = keyset_page(qs, time_field="created_at", descending=True, size=5, cursor=encode_cursor(T0, 0, "n"))
    assert list(past) == [] and past.has_previous and not past.has_next


def _attempt_copies(workspace, count: int) -> list[int]:
    """``count`` attempts of one campaign; pairs share a request time."""
    attempt = _sent_attempt(make_actor(workspace), workspace)
    fields = {f.attname: getattr(attempt, f.attname) for f in SmsAttempt._meta.concrete_fields if not f.primary_key}
    copies = [
        SmsAttempt(
            **(fields | {"idempotency_key": f"copy:{attempt.pk}:{i}", "request_at": T0 + timedelta(minutes=i // 2)})
        )
        for i in range(count - 1)
    ]
    SmsAttempt.objects.bulk_create(copies)
    return list(
        SmsAttempt.objects.filter(workspace=workspace).order_by("-request_at", "-id").values_list("id", flat=True)
    )


@pytest.mark.django_db
def test_the_attempt_api_walks_by_cursor_and_keeps_the_page_convention(django_assert_max_num_queries):
    ws = make_workspace()
    expected = _attempt_copies(ws, 25)
    api = api_client_for(make_actor(ws).user, ws)
    first = api.get("/api/v1/sms/attempts", {"size": 10}).json()
    assert first["count"] == 25 and first["page"] == 1 and first["previous_cursor"] is None
    seen, body = [r["id"] for r in first["results"]], first
    while body["next_cursor"]:
        with django_assert_max_num_queries(6):  # session/token, actor, page: no count, no per-row query
            body = api.get("/api/v1/sms/attempts", {"size": 10, "cursor": body["next_cursor"]}).json()
        assert body["count"] is None and body["page"] is None
        seen += [r["id"] for r in body["results"]]
    assert seen == expected
    back = api.get("/api/v1/sms/attempts", {"size": 10, "cursor": body["previous_cursor"]}).json()
    assert [r["id"] for r in back["results"]] == expected[10:20]
    refused = api.get("/api/v1/sms/attempts", {"cursor": "nope"})
    assert refused.status_code == 400 and "cursor" in refused.json()["error"]["details"]


@pytest.mark.django_db
def test_a_cursor_of_another_workspace_shows_only_this_workspaces_rows():
    mine, theirs = make_workspace(), make_workspace()
    ours = _attempt_copies(mine, 3)
    foreign = _attempt_copies(theirs, 3)
    api = api_client_for(make_actor(mine).user, mine)
    foreign_first = SmsAttempt.objects.get(pk=foreign[0])
    cursor = encode_cursor(foreign_first.request_at + timedelta(days=1), foreign_first.pk, "n")
    assert [r["id"] for r in api.get("/api/v1/sms/attempts", {"cursor": cursor}).json()["results"]] == ours


@pytest.mark.django_db
def test_the_history_endpoints_document_the_cursor_in_the_schema():
    ws = make_workspace()
    schema = api_client_for(make_actor(ws).user, ws).get("/api/schema/?format=json").json()
    paths = ("/api/v1/sms/attempts", "/api/v1/executions/{execution_id}/events", "/api/v1/targets/{target_id}/timeline")
    for path in paths:
        operation = schema["paths"][path]["get"]
        assert "cursor" in [p["name"] for p in operation["parameters"]], path


@pytest.mark.django_db
def test_the_timeline_and_the_execution_events_walk_by_cursor():
    from automation.models import ExecutionEvent

    ws = make_workspace()
    attempt = _sent_attempt(make_actor(ws), ws)
    api = api_client_for(make_actor(ws).user, ws)
    events = ExecutionEvent.objects.filter(execution_id=attempt.execution_id)
    assert events.count() >= 3
    for url, order in (
        (f"/api/v1/targets/{attempt.subject_id}/timeline", ["-occurred_at", "-id"]),
        (f"/api/v1/executions/{attempt.execution_id}/events", ["occurred_at", "id"]),
    ):
        body = api.get(url, {"size": 1}).json()
        seen = [r["id"] for r in body["results"]]
        while body["next_cursor"]:
            body = api.get(url, {"size": 1, "cursor": body["next_cursor"]}).json()
            seen += [r["id"] for r in body["results"]]
        assert seen == list(events.order_by(*order).values_list("id", flat=True)), url
