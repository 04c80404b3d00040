"""``ChainNode`` becomes, in the migration state, the child of ``Campaign`` it is in the code (its table and
rows are ``0004``'s; the campaign lost its chain fields in ``campaigns.0021``), and the runs and packages point
at it: every run's campaign and root and every package's root is a chain node (``0004`` gave each existing
campaign its row).
"""

import campaigns.chains.node_models
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0021_chain_fields_moved_to_chains'),
        ('chains', '0004_chain_node'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='ChainNode',
                    fields=[
                        ('campaign', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, parent_link=True, primary_key=True, related_name='chain', serialize=False, to='campaigns.campaign')),
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
                    bases=('campaigns.campaign',),
                ),
                migrations.AddIndex(
                    model_name='chainnode',
                    index=models.Index(fields=['group', 'parent'], name='chainnode_group_parent'),
                ),
                migrations.AddConstraint(
                    model_name='chainnode',
                    constraint=models.UniqueConstraint(condition=models.Q(('chain_code', ''), _negated=True), fields=('chain_code',), name='chainnode_chain_code_unique'),
                ),
            ],
            database_operations=[],
        ),
        migrations.AlterField(
            model_name='campaignrun',
            name='campaign',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='runs', to='chains.chainnode'),
        ),
        migrations.AlterField(
            model_name='campaignrun',
            name='root',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='chains.chainnode'),
        ),
        migrations.AlterField(
            model_name='chainapprovalpackage',
            name='root',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='approval_packages', to='chains.chainnode', verbose_name='ریشه'),
        ),
    ]
