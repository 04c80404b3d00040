"""The chain fields of a campaign move to a row of their own, ``ChainNode`` (a multi-table child of the
campaign: its key is the campaign's id), and every campaign's values are copied to it.

The table is created here while the campaign's columns still exist (``campaigns.0021`` drops them, then
``chains.0005`` declares the model a child of ``Campaign`` in the migration state: a child's field may not share
a name with a field its parent still has). The database table of a plain model with a one-to-one primary key to
the campaign is the same table a child model has. Every campaign existing now gets a row (its values kept,
A/B seed included); campaigns created later get theirs when chains first needs it (``campaigns.chains.nodes``).
Reversed: the values are copied back (``campaigns.0021`` reversed has re-added the columns), then the table
is dropped.
"""

import campaigns.chains.node_models
import django.db.models.deletion
from django.db import migrations, models

COLUMNS = (
    "group_id",
    "parent_id",
    "root_id",
    "inheritance",
    "chain_revision",
    "chain_control",
    "approval_package_id",
    "needs_review",
    "needs_review_reasons",
    "root_schedule",
    "goal",
    "attribution_window_days",
    "ab_seed",
    "chain_action",
    "audience_filters",
    "chain_code",
)

COPY_TO_NODES = (
    f"INSERT INTO chains_chainnode (campaign_id, {', '.join(COLUMNS)}) "
    f"SELECT id, {', '.join(COLUMNS)} FROM campaigns_campaign"
)
COPY_BACK = (
    f"UPDATE campaigns_campaign SET {', '.join(f'{c} = n.{c}' for c in COLUMNS)} "
    "FROM chains_chainnode n WHERE n.campaign_id = campaigns_campaign.id"
)


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0019_campaign_kinds_from_channels'),
        ('chains', '0003_run_refusal_reasons'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.CreateModel(
                    name='ChainNode',
                    fields=[
                        ('campaign', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='chain', serialize=False, to='campaigns.campaign')),
                        ('inheritance', models.JSONField(blank=True, null=True, verbose_name='ارث\u200cبری')),
                        ('chain_revision', models.PositiveIntegerField(default=1, verbose_name='نسخه زنجیره')),
                        ('chain_control', models.CharField(choices=[('NORMAL', 'عادی'), ('PAUSED', 'متوقف موقت'), ('STOPPED', 'متوقف\u200cشده')], default='NORMAL', max_length=8, verbose_name='کنترل زنجیره')),
                        ('needs_review', models.BooleanField(default=False, verbose_name='نیاز به بازبینی')),
                        ('needs_review_reasons', models.JSONField(blank=True, default=list, verbose_name='دلایل بازبینی')),
                        ('root_schedule', models.JSONField(blank=True, null=True, verbose_name='زمان\u200cبندی تکرار (ریشه)')),
                        ('goal', models.JSONField(blank=True, null=True, verbose_name='هدف (تعریف تبدیل)')),
                        ('attribution_window_days', models.PositiveSmallIntegerField(default=7, verbose_name='بازه انتساب (روز)')),
                        ('ab_seed', models.PositiveIntegerField(default=campaigns.chains.node_models.new_ab_seed, verbose_name='بذر A/B')),
                        ('chain_action', models.JSONField(blank=True, null=True, verbose_name='اقدام (کانال و محتوا)')),
                        ('audience_filters', models.JSONField(blank=True, default=dict, verbose_name='فیلتر مخاطبان')),
                        ('chain_code', models.CharField(blank=True, default='', max_length=16, verbose_name='کد زنجیره')),
                        ('approval_package', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='chains.chainapprovalpackage', verbose_name='بسته تأیید جاری')),
                        ('group', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='campaigns', to='chains.campaigngroup', verbose_name='گروه')),
                        ('parent', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='children', to='chains.chainnode', verbose_name='منبع')),
                        ('root', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='chains.chainnode', verbose_name='ریشه زنجیره')),
                    ],
                    options={
                        'verbose_name': 'کمپین زنجیره',
                        'verbose_name_plural': 'کمپین\u200cهای زنجیره',
                        'ordering': ['-created_at', '-id'],
                    },
                ),
                migrations.AddIndex(
                    model_name='chainnode',
                    index=models.Index(fields=['group', 'parent'], name='chainnode_group_parent'),
                ),
                migrations.AddConstraint(
                    model_name='chainnode',
                    constraint=models.UniqueConstraint(condition=models.Q(('chain_code', ''), _negated=True), fields=('chain_code',), name='chainnode_chain_code_unique'),
                ),
                migrations.RunSQL(COPY_TO_NODES, reverse_sql=COPY_BACK),
            ],
            state_operations=[],
        ),
    ]
