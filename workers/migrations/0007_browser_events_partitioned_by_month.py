"""Browser events become a table partitioned by month of ``created_at`` on PostgreSQL (rows copied over;
campaigns.platform.partitions). SQLite keeps the plain table. Reversing leaves the partitioned table in place:
Django reads and writes it the same way."""

from django.db import migrations


def forward(apps, schema_editor):
    from campaigns.platform.partitions import partition_table

    partition_table(schema_editor, "workers_browserevent", "created_at")


class Migration(migrations.Migration):
    dependencies = [("workers", "0006_browser_event_actor")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop, elidable=False)]
