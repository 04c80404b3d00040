"""``bulk_insert``: the hot paths' set-based INSERT (PostgreSQL) writes what ``bulk_create`` would."""

import pytest
from django.db import IntegrityError, connection

from campaigns.models import Target
from campaigns.platform.bulk import bulk_insert

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
