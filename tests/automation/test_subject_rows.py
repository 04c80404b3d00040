"""Subjects read for a batch as column values: columns without a query, anything else from the instance."""

import pytest

from automation.engine.subjects import model_instance, subject_rows
from campaigns.models import Target
from tests.conftest import make_member, make_target

pytestmark = pytest.mark.django_db


def test_columns_come_from_the_row_and_relations_from_the_instance(workspace, django_assert_num_queries):
    owner = make_member(workspace)
    target = make_target(workspace, name="علی", owner=owner)
    other = make_target(workspace, name="رضا")
    with django_assert_num_queries(1):
        rows = subject_rows(Target, [target.id, other.id, 10**9])
    assert set(rows) == {target.id, other.id}  # a missing id is simply absent
    row = rows[target.id]
    with django_assert_num_queries(0):
        assert (row.pk, row.name, row.mobile, row.owner_id) == (target.id, "علی", target.mobile, owner.id)
        assert row.attributes == {} and row.deleted_at is None
    with django_assert_num_queries(2):  # the instance once, then its owner
        assert row.owner == owner
        assert row.display_first_name == "علی"
    assert model_instance(row) == target and model_instance(target) is target
    with pytest.raises(AttributeError):
        row.no_such_field  # noqa: B018
