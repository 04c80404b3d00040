"""Workspace moved to the kernel app (platform): these relations point at platform.Workspace.

State only: the table (campaigns_workspace), the columns and their constraints stay as they are.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('automation', '0016_execution_events_partitioned_by_month'),
        ('platform', '0001_tenancy_models_from_campaigns'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.AlterField(
                    model_name='autoenrollrule',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='automationsettings',
                    name='workspace',
                    field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='automation_settings', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='campaignjourney',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='dailycounter',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='enrollmentbatch',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='enrollmentitem',
                    name='workspace',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='execution',
                    name='workspace',
                    field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='executionevent',
                    name='workspace',
                    field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='workflow',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='workflows', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='workflowedge',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='workflownode',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='workflowtemplate',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='workflow_templates', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='workflowtextchange',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='workflowversion',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
            ],
        ),
    ]
