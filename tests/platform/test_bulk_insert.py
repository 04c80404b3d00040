"""The hot paths' set-based statements (PostgreSQL): ``bulk_insert`` writes what ``bulk_create`` would,
``values_rows`` reads what the ORM reads, ``texts_match`` finds every value however it is quoted."""

from datetime import UTC, datetime

import pytest
from django.db import IntegrityError, connection
from django.utils import timezone

from campaigns.models import Target
from campaigns.platform.bulk import bulk_insert, texts_match, values_rows

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("bulk_insert is the PostgreSQL path")


def test_rows_get_defaults_timestamps_and_json(workspace):
    rows = [
        {"workspace_id": workspace.id, "name": "الف", "mobile": "+989121110001", "attributes": {"tier": "gold"}},
        {"workspace_id": workspace.id, "name": "ب", "mobile": "+989121110002", "attributes": {}},
    ]
    written = dict(bulk_insert(Target, rows, returning=("mobile", "id")))
    assert set(written) == {"+989121110001", "+989121110002"}
    first = Target.objects.get(pk=written["+989121110001"])
    assert first.attributes == {"tier": "gold"}  # stored as jsonb, read back as data
    assert first.status == Target._meta.get_field("status").default and first.priority == 0
    assert first.first_name == "" and first.landline is None and first.deleted_at is None
    assert first.created_at is not None and first.created_at == first.updated_at


def test_conflicts_are_skipped_only_when_asked(workspace):
    row = {"workspace_id": workspace.id, "name": "الف", "mobile": "+989121110003"}
    assert len(bulk_insert(Target, [row])) == 1
    again = [row, {**row, "mobile": "+989121110004"}]
    assert [m for (m,) in bulk_insert(Target, again, returning=("mobile",), conflict_do_nothing=True)] == [
        "+989121110004"
    ]
    with pytest.raises(IntegrityError):
        bulk_insert(Target, [{**row, "name": "تکراری"}])


def test_a_missing_required_value_is_refused(workspace):
    with pytest.raises(IntegrityError):  # name has no default and no value: never written as NULL silently
        bulk_insert(Target, [{"workspace_id": workspace.id, "mobile": "+989121110005", "name": None}])
    assert bulk_insert(Target, []) == []


def test_values_rows_read_what_the_orm_reads(workspace):
    gone = datetime(2026, 3, 20, 23, 45, 1, 123456, tzinfo=UTC)
    Target.objects.create(workspace=workspace, name="الف", mobile="+989121110005", attributes={"tier": ["gold", 2]})
    Target.objects.create(workspace=workspace, name="ب", mobile="+989121110006", deleted_at=gone)
    names = [f.attname for f in Target._meta.concrete_fields]
    query = Target.objects.filter(workspace=workspace).order_by("id").values_list(*names)
    rows = values_rows(query)
    assert rows == [tuple(row) for row in query]
    first, second = (dict(zip(names, row, strict=True)) for row in rows)
    assert first["attributes"] == {"tier": ["gold", 2]} and first["deleted_at"] is None
    assert second["deleted_at"] == gone and second["deleted_at"].utcoffset() == timezone.timedelta(0)


def test_texts_match_finds_values_with_quotes_commas_and_braces(workspace):
    odd = ['a"b', "c,d", "e\\f", "{g}", "NULL", " h "]
    for n, name in enumerate([*odd, "other"]):
        Target.objects.create(workspace=workspace, name=name, mobile=f"+98912111002{n}")
    found = Target.objects.filter(texts_match("name", odd), workspace=workspace).values_list("name", flat=True)
    assert sorted(found) == sorted(odd)


def test_values_shared_by_every_row_are_written_on_every_row(workspace):
    joined = timezone.now()
    rows = [
        {
            "workspace_id": workspace.id,
            "name": "هم‌نام",
            "mobile": f"+98912111001{i}",
            "attributes": {"tier": "gold"},
            "landline": None,
            "deleted_at": joined if i else None,
        }
        for i in range(3)
    ]
    written = dict(bulk_insert(Target, rows, returning=("mobile", "id")))
    assert len(written) == 3
    stored = Target.objects.filter(pk__in=written.values()).order_by("mobile")
    assert [(t.name, t.attributes, t.landline) for t in stored] == [("هم‌نام", {"tier": "gold"}, None)] * 3
    assert [t.deleted_at for t in stored] == [None, joined, joined]  # a column that differs stays per row
