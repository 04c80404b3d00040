"""The journey numbers keep the live executions per step too (``at:<node>:<status>:<needs budget>``, read by the
live edits' migration step): the triggers are replaced and those numbers counted once from the rows. The
trigger replacement locks the executions table until the commit, so no write falls between the two."""

from django.db import migrations

from automation import journey_counts
from campaigns.platform.database import is_postgresql


def forward(apps, schema_editor):
    connection = schema_editor.connection
    journey_counts.install(connection)
    postgresql = is_postgresql(connection)
    fresh = journey_counts.fresh_at_sql(postgresql, "TRUE" if postgresql else "1")
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {journey_counts.TABLE} WHERE key LIKE %s", [journey_counts.AT + "%"])
        cursor.execute(f"INSERT INTO {journey_counts.COLUMNS} {fresh}")  # noqa: S608 (module constants only)


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {journey_counts.TABLE} WHERE key LIKE %s", [journey_counts.AT + "%"])


class Migration(migrations.Migration):
    dependencies = [("automation", "0023_version_migration_labels")]

    operations = [migrations.RunPython(forward, backward, elidable=False)]
