from django.db import migrations

# A list's members in target order (newest first backwards): pagers of a list walk it
# (campaigns.selectors.ListMembers). The membership table is Django's own, so the index is plain SQL.
INDEX = "target_lists_list_target"


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0010_target_list_sizes'),
    ]

    operations = [
        migrations.RunSQL(
            f"CREATE INDEX IF NOT EXISTS {INDEX} ON campaigns_target_lists (targetlist_id, target_id)",
            f"DROP INDEX IF EXISTS {INDEX}",
        ),
    ]
