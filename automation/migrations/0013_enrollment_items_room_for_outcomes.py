"""Enrollment items keep half of each page free (PostgreSQL ``fillfactor``).

The commit job stores every item's outcome, a column no index covers: with room on the page PostgreSQL
rewrites the row in place (a HOT update) instead of adding an entry to each of the item's three indexes
(docs/journeys.md "Enrollment benchmark"). Other databases have no such setting.
"""

from django.db import migrations

TABLE = "automation_enrollmentitem"


def _set(fillfactor: int):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(f"ALTER TABLE {TABLE} SET (fillfactor = {fillfactor})")

    return run


class Migration(migrations.Migration):
    dependencies = [("automation", "0012_execution_copied_keys_without_constraints")]

    operations = [migrations.RunPython(_set(50), _set(100))]
