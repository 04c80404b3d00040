"""Execution events become a table partitioned by month of ``occurred_at`` on PostgreSQL (rows copied over;
campaigns.platform.partitions). SQLite keeps the plain table. Reversing leaves the partitioned table in place:
Django reads and writes it the same way."""

from django.db import migrations


def forward(apps, schema_editor):
    from campaigns.platform.partitions import partition_table

    partition_table(schema_editor, "automation_executionevent", "occurred_at")


class Migration(migrations.Migration):
    dependencies = [("automation", "0015_journey_counts")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop, elidable=False)]
