"""Groups, chains, approval packages and runs now belong to the chains app (label ``chains``).

State only: the tables keep their names (campaigns_campaigngroup …) and rows; the campaign's group and
current approval package point at chains.CampaignGroup and chains.ChainApprovalPackage.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0016_workspace_settings_events'),
        ('chains', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.RemoveField(
                    model_name='campaigngroup',
                    name='created_by',
                ),
                migrations.RemoveField(
                    model_name='campaigngroup',
                    name='updated_by',
                ),
                migrations.RemoveField(
                    model_name='campaigngroup',
                    name='workspace',
                ),
                migrations.AlterField(
                    model_name='campaign',
                    name='group',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='campaigns', to='chains.campaigngroup', verbose_name='گروه'),
                ),
                migrations.RemoveField(
                    model_name='campaignrun',
                    name='campaign',
                ),
                migrations.RemoveField(
                    model_name='campaignrun',
                    name='package',
                ),
                migrations.RemoveField(
                    model_name='campaignrun',
                    name='root',
                ),
                migrations.RemoveField(
                    model_name='campaignrun',
                    name='source_run',
                ),
                migrations.RemoveField(
                    model_name='campaignrun',
                    name='target_snapshot',
                ),
                migrations.RemoveField(
                    model_name='campaignrun',
                    name='workspace',
                ),
                migrations.RemoveField(
                    model_name='runaudiencesnapshot',
                    name='run',
                ),
                migrations.RemoveField(
                    model_name='runexecution',
                    name='run',
                ),
                migrations.RemoveField(
                    model_name='chainapprovalpackage',
                    name='decided_by',
                ),
                migrations.RemoveField(
                    model_name='chainapprovalpackage',
                    name='root',
                ),
                migrations.RemoveField(
                    model_name='chainapprovalpackage',
                    name='submitted_by',
                ),
                migrations.RemoveField(
                    model_name='chainapprovalpackage',
                    name='workspace',
                ),
                migrations.AlterField(
                    model_name='campaign',
                    name='approval_package',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='chains.chainapprovalpackage', verbose_name='بسته تأیید جاری'),
                ),
                migrations.RemoveField(
                    model_name='conversionevent',
                    name='target',
                ),
                migrations.RemoveField(
                    model_name='conversionevent',
                    name='workspace',
                ),
                migrations.RemoveField(
                    model_name='runaudiencemember',
                    name='snapshot',
                ),
                migrations.RemoveField(
                    model_name='runaudiencemember',
                    name='target',
                ),
                migrations.RemoveField(
                    model_name='runaudiencesnapshot',
                    name='workspace',
                ),
                migrations.RemoveField(
                    model_name='runexecution',
                    name='target',
                ),
                migrations.RemoveField(
                    model_name='runexecution',
                    name='workspace',
                ),
                migrations.DeleteModel(
                    name='CampaignChain',
                ),
                migrations.DeleteModel(
                    name='CampaignGroup',
                ),
                migrations.DeleteModel(
                    name='CampaignRun',
                ),
                migrations.DeleteModel(
                    name='ChainApprovalPackage',
                ),
                migrations.DeleteModel(
                    name='ConversionEvent',
                ),
                migrations.DeleteModel(
                    name='RunAudienceMember',
                ),
                migrations.DeleteModel(
                    name='RunAudienceSnapshot',
                ),
                migrations.DeleteModel(
                    name='RunExecution',
                ),
            ],
        ),
    ]
