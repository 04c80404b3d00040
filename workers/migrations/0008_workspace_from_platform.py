"""Workspace moved to the kernel app (platform): these relations point at platform.Workspace.

State only: the table (campaigns_workspace), the columns and their constraints stay as they are.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('platform', '0001_tenancy_models_from_campaigns'),
        ('workers', '0007_browser_events_partitioned_by_month'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.AlterField(
                    model_name='actionconfig',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='browser_action_configs', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='browseraccount',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='browser_accounts', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='browserevent',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='browsertask',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='browser_tasks', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='browsertaskscreenshot',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='campaignplatform',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='browser_platforms', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='campaignstatistics',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='proxy',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='browser_proxies', to='platform.workspace'),
                ),
            ],
        ),
    ]
