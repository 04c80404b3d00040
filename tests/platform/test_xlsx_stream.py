"""The streamed workbook: readable by a spreadsheet library, typed cells, formula-like text kept as text, its
fixed parts out before the first row is read and the rows after each batch (the memory holds a batch, not the
sheet); a list's export walks the list."""

import io

import pytest
from openpyxl import load_workbook

from campaigns.platform.xlsx_stream import ROWS_PER_CHUNK, xlsx_stream


def test_cells_keep_their_types_and_text_that_looks_like_a_formula_stays_text():
    rows = [["نام", "عدد", "خالی"], ["=HYPERLINK(1)", 7, None], ["علی\x07 <&>", 2.5, ""], [True, -3, "@x"]]
    sheet = load_workbook(io.BytesIO(b"".join(xlsx_stream(rows, sheet_name="مخاطبان")))).active
    assert sheet.title == "مخاطبان" and sheet.sheet_view.rightToLeft
    values = list(sheet.iter_rows(values_only=True))
    assert values == [("نام", "عدد", "خالی"), ("=HYPERLINK(1)", 7, None), ("علی <&>", 2.5, None), (True, -3, "@x")]
    formula = sheet["A2"]
    assert formula.data_type == "s" and formula.quotePrefix
    assert not sheet["A1"].quotePrefix


def test_the_first_bytes_leave_before_any_row_is_read_and_the_rest_after_each_batch():
    consumed = []

    def rows():
        for i in range(ROWS_PER_CHUNK * 4):
            consumed.append(i)
            yield [f"ردیف {i}", i]

    stream = xlsx_stream(rows(), sheet_name="s")
    first = next(stream)
    assert first.startswith(b"PK") and consumed == []  # the download starts before the rows' query runs
    second = next(stream)
    assert len(consumed) <= ROWS_PER_CHUNK + 1
    rest = b"".join(stream)
    sheet = load_workbook(io.BytesIO(first + second + rest)).active
    assert sheet.max_row == ROWS_PER_CHUNK * 4 and sheet.cell(row=1500, column=2).value == 1499


@pytest.mark.django_db
def test_the_target_export_streams_its_lists_with_the_same_queries_for_3_or_30_targets():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.conftest import api_client_for, make_list, make_member, make_target, make_workspace

    ws = make_workspace()
    api = api_client_for(make_member(ws), ws)
    b, a = make_list(ws, "ب"), make_list(ws, "الف")
    queries = []
    api.get("/api/v1/targets/export").getvalue()  # the first request of a token also records its use
    for total in (3, 30):
        while len(ws.targets.all()) < total:
            make_target(ws).lists.add(b, a)
        with CaptureQueriesContext(connection) as captured:
            response = api.get("/api/v1/targets/export")
            assert response.streaming
            sheet = load_workbook(io.BytesIO(response.getvalue())).active
        queries.append(len(captured))
        rows = list(sheet.iter_rows(min_row=2, values_only=True))
        assert len(rows) == total and {row[9] for row in rows} == {"الف، ب"}
    assert queries[0] == queries[1]


@pytest.mark.django_db
def test_a_lists_export_holds_its_live_filtered_members_newest_first_in_chunks(monkeypatch):
    """The export of a list walks the list's members by keyset, a chunk at a time (PostgreSQL), or joins them:
    the same rows either way — deleted targets, other statuses and another list's members left out — and the
    bound counts what the filters keep."""
    from django.utils import timezone

    from campaigns import exports
    from campaigns.models import Target
    from tests.conftest import api_client_for, make_list, make_member, make_target, make_workspace

    monkeypatch.setattr(exports, "CHUNK", 2)
    ws = make_workspace()
    api = api_client_for(make_member(ws), ws)
    tl, other = make_list(ws, "فهرست"), make_list(ws, "دیگر")
    members = [make_target(ws, status="new") for _ in range(6)]
    tl.targets.add(*members)
    other.targets.add(make_target(ws, status="new"))
    Target.objects.filter(pk=members[1].pk).update(deleted_at=timezone.now())
    Target.objects.filter(pk=members[3].pk).update(status="following")
    response = api.get("/api/v1/targets/export", {"list": tl.id, "status": "new"})
    assert response.status_code == 200
    rows = list(load_workbook(io.BytesIO(response.getvalue())).active.iter_rows(min_row=2, values_only=True))
    assert [row[0] for row in rows] == [t.name for t in reversed(members) if t not in (members[1], members[3])]
    monkeypatch.setattr("django.conf.settings.TARGETS_EXPORT_MAX_ROWS", 3)
    assert api.get("/api/v1/targets/export", {"list": tl.id, "status": "new"}).status_code == 400  # 4 kept
    assert api.get("/api/v1/targets/export", {"list": tl.id, "status": "following"}).status_code == 200
