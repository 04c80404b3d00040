"""Workspace, Membership, ApiToken and PlatformHeartbeat now belong to the kernel app (platform).

State only: the tables keep their names (campaigns_workspace …) and rows; every relation of this app
points at platform.Workspace. Runs after the other apps have re-pointed theirs, so no relation is left
pointing at a removed model.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0013_campaign_chain_code'),
        ('platform', '0001_tenancy_models_from_campaigns'),
        ('automation', '0017_workspace_from_platform'),
        ('sms', '0011_workspace_from_platform'),
        ('workers', '0008_workspace_from_platform'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.RemoveField(
                    model_name='apitoken',
                    name='user',
                ),
                migrations.RemoveField(
                    model_name='membership',
                    name='user',
                ),
                migrations.RemoveField(
                    model_name='membership',
                    name='workspace',
                ),
                migrations.DeleteModel(
                    name='PlatformHeartbeat',
                ),
                migrations.AlterField(
                    model_name='targetlist',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='target_lists', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='targetlistsize',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='campaigngroup',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='campaign_groups', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='targetimportrow',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='runaudiencesnapshot',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='chainapprovalpackage',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='chain_packages', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='targetimport',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='target_imports', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='campaignevent',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='campaign',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='campaigns', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='runexecution',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='target',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='targets', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='notification',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='notifications', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='campaignrun',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='conversionevent',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='activity',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='activities', to='platform.workspace'),
                ),
                migrations.DeleteModel(
                    name='ApiToken',
                ),
                migrations.DeleteModel(
                    name='Membership',
                ),
                migrations.DeleteModel(
                    name='Workspace',
                ),
            ],
        ),
    ]
