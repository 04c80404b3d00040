"""Node types and ports are validated from the node-type registry, not database choices.

Adding a node type (automation.engine.nodes) needs no migration; no column changes.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("automation", "0004_enrollment_batches_auto_enroll"),
    ]

    operations = [
        migrations.AlterField(
            model_name="workflownode",
            name="type",
            field=models.CharField(max_length=16, verbose_name="نوع"),
        ),
        migrations.AlterField(
            model_name="workflowedge",
            name="port",
            field=models.CharField(default="default", max_length=30, verbose_name="درگاه"),
        ),
    ]
