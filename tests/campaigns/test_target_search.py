"""Target search reads one folded column (names and numbers) kept on every write; PostgreSQL finds fragments
through its pg_trgm index instead of scanning every target of the workspace."""

import importlib

import pytest
from django.db import connection

from campaigns.models import Target
from campaigns.services.targets import target_create, target_update
from tests.conftest import make_actor, make_target

pytestmark = pytest.mark.django_db


def names(api, q: str) -> list[str]:
    response = api.get("/api/v1/targets", {"q": q})
    assert response.status_code == 200, response.content
    return sorted(r["name"] for r in response.json()["results"])


def test_arabic_letter_variants_digits_and_case_match_the_persian_name(api, workspace):
    make_target(workspace, name="علي كريمي")  # Arabic ي and ك, as pasted from elsewhere
    make_target(workspace, name="Kafe ۲۴")  # Persian digits in a name
    make_target(workspace, name="دیگری")
    assert names(api, "علی کریمی") == ["علي كريمي"]
    assert names(api, "كريم") == ["علي كريمي"]
    assert names(api, "kafe 24") == ["Kafe ۲۴"]
    assert names(api, "KAFE ٢٤") == ["Kafe ۲۴"]  # Arabic-Indic digits, upper case


def test_a_phone_fragment_in_latin_or_persian_digits(api, workspace):
    make_target(workspace, name="الف", mobile="+989123456789")
    make_target(workspace, name="ب", mobile="+989350000000", landline="+982188776655")
    assert names(api, "3456789") == ["الف"]
    assert names(api, "۳۴۵۶۷۸۹") == ["الف"]
    assert names(api, "0935") == ["ب"]
    assert names(api, "887766") == ["ب"]  # the landline too


def test_the_service_keeps_the_search_column_in_step_with_renames_and_new_numbers(api, workspace, owner):
    actor = make_actor(workspace, user=owner)
    target = target_create(actor=actor, name="قدیمی", mobile="09121112233")
    assert names(api, "قدیمی") == ["قدیمی"]
    target_update(actor=actor, target_id=target.id, data={"name": "جدید", "mobile": "09124445566"})
    assert names(api, "قدیمی") == [] and names(api, "1112233") == []
    assert names(api, "جدید") == ["جدید"] and names(api, "4445566") == ["جدید"]
    # a partial save of the name alone also rewrites the column
    target.refresh_from_db()
    target.name = "سوم"
    target.save(update_fields=["name"])
    assert Target.objects.get(pk=target.pk).search_text.startswith("سوم")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the trigram index exists on PostgreSQL only")
def test_postgresql_searches_a_fragment_through_the_trigram_index(api, workspace, owner):
    """The migration's index (the test database is built without migrations, so it is added here)."""
    migration = importlib.import_module("campaigns.migrations.0006_target_search_text")
    with connection.schema_editor() as editor:
        migration.trigram_index(None, editor)
    make_target(workspace, name="رضا", mobile="+989121234567")
    from campaigns.filters import TargetFilter

    for q in ("رضا", "1234567", "۱۲۳۴۵۶۷"):
        qs = TargetFilter({"q": q}, queryset=Target.objects.all()).qs  # the search's own condition
        sql, params = qs.query.sql_with_params()
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_seqscan = off")  # a tiny table: the planner would scan it anyway
            cursor.execute("EXPLAIN " + sql, params)
            plan = "\n".join(row[0] for row in cursor.fetchall())
        assert migration.TRIGRAM_INDEX in plan, plan
