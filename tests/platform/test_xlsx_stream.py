"""The streamed workbook: readable by a spreadsheet library, typed cells, formula-like text kept as text, and
its first bytes out after one batch of rows (the memory holds a batch, not the sheet)."""

import io
from itertools import count

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


def test_the_first_bytes_leave_after_one_batch_of_rows():
    consumed = count()

    def rows():
        for i in range(ROWS_PER_CHUNK * 4):
            next(consumed)
            yield [f"ردیف {i}", i]

    stream = xlsx_stream(rows(), sheet_name="s")
    first = next(stream)
    assert first.startswith(b"PK") and next(consumed) <= ROWS_PER_CHUNK + 1
    rest = b"".join(stream)
    sheet = load_workbook(io.BytesIO(first + rest)).active
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
