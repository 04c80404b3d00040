"""Workspace moved to the kernel app (platform): these relations point at platform.Workspace.

State only: the table (campaigns_workspace), the columns and their constraints stay as they are.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('platform', '0001_tenancy_models_from_campaigns'),
        ('sms', '0010_sms_log_indexes_by_campaign_and_number'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.AlterField(
                    model_name='blacklistentry',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='blacklist_entries', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='smsattempt',
                    name='workspace',
                    field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='smschannelevent',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='smslogevent',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='smsprovideraccount',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sms_accounts', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='smssendslot',
                    name='workspace',
                    field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='smssettings',
                    name='workspace',
                    field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='sms_settings', to='platform.workspace'),
                ),
                migrations.AlterField(
                    model_name='smstemplate',
                    name='workspace',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sms_templates', to='platform.workspace'),
                ),
            ],
        ),
    ]
