"""Groups, chains, approval packages and runs become the models of the chains app (label ``chains``).

State only: the tables (campaigns_campaigngroup, campaigns_chainapprovalpackage, campaigns_campaignrun,
campaigns_runaudiencesnapshot, campaigns_runaudiencemember, campaigns_runexecution,
campaigns_conversionevent) exist already, created by the campaigns migrations, and keep their rows,
indexes and constraints. Their content types move with them (ids kept), so permissions, groups and
admin history still apply. ``campaigns.0017_chain_models_moved_to_chains`` drops them from the
campaigns state.
"""

import django.db.models.deletion
import django_fsm
import uuid
from django.conf import settings
from django.db import migrations, models


MOVED = (
    "campaigngroup",
    "chainapprovalpackage",
    "campaignchain",
    "campaignrun",
    "runaudiencesnapshot",
    "runaudiencemember",
    "runexecution",
    "conversionevent",
)


def _move_content_types(apps, schema_editor, source: str, target: str) -> None:
    """Relabel the moved models' content types (ids kept: permissions and admin log entries follow)."""
    content_types = apps.get_model("contenttypes", "ContentType").objects.using(schema_editor.connection.alias)
    taken = set(content_types.filter(app_label=target, model__in=MOVED).values_list("model", flat=True))
    content_types.filter(app_label=source, model__in=[m for m in MOVED if m not in taken]).update(app_label=target)


def content_types_to_chains(apps, schema_editor) -> None:
    _move_content_types(apps, schema_editor, "campaigns", "chains")


def content_types_to_campaigns(apps, schema_editor) -> None:
    _move_content_types(apps, schema_editor, "chains", "campaigns")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('campaigns', '0016_workspace_settings_events'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('platform', '0002_workspace_default_settings'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name='CampaignChain',
                    fields=[
                    ],
                    options={
                        'verbose_name': 'زنجیره کمپین',
                        'verbose_name_plural': 'زنجیره\u200cهای کمپین',
                        'ordering': ['-created_at', '-id'],
                        'proxy': True,
                        'indexes': [],
                        'constraints': [],
                    },
                    bases=('campaigns.campaign',),
                ),
                migrations.CreateModel(
                    name='ChainApprovalPackage',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='ایجاد')),
                        ('updated_at', models.DateTimeField(auto_now=True, verbose_name='به\u200cروزرسانی')),
                        ('submitted_revision', models.PositiveIntegerField(verbose_name='نسخه ارسال\u200cشده')),
                        ('status', models.CharField(choices=[('SUBMITTED', 'در انتظار تأیید'), ('APPROVED', 'تأییدشده'), ('REJECTED', 'ردشده'), ('WITHDRAWN', 'پس\u200cگرفته')], default='SUBMITTED', max_length=10, verbose_name='وضعیت')),
                        ('items', models.JSONField(default=list, verbose_name='اقلام')),
                        ('submitted_at', models.DateTimeField(verbose_name='زمان ارسال')),
                        ('decided_at', models.DateTimeField(blank=True, null=True, verbose_name='زمان تصمیم')),
                        ('reason', models.CharField(blank=True, max_length=1000, verbose_name='دلیل')),
                        ('four_eyes', models.BooleanField(default=False, verbose_name='تأیید چهارچشمی')),
                        ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='تصمیم\u200cگیرنده')),
                        ('root', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='approval_packages', to='campaigns.campaign', verbose_name='ریشه')),
                        ('submitted_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='ارسال\u200cکننده')),
                        ('workspace', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='chain_packages', to='platform.workspace')),
                    ],
                    options={
                        'verbose_name': 'بسته تأیید زنجیره',
                        'verbose_name_plural': 'بسته\u200cهای تأیید زنجیره',
                        'db_table': 'campaigns_chainapprovalpackage',
                        'ordering': ['-created_at', '-id'],
                    },
                ),
                migrations.CreateModel(
                    name='CampaignRun',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='ایجاد')),
                        ('updated_at', models.DateTimeField(auto_now=True, verbose_name='به\u200cروزرسانی')),
                        ('run_type', models.CharField(choices=[('SCHEDULED', 'زمان\u200cبندی\u200cشده'), ('MANUAL', 'دستی'), ('RERUN', 'اجرای دوباره'), ('INHERITED', 'ارث\u200cبری از منبع')], max_length=10, verbose_name='نوع اجرا')),
                        ('status', django_fsm.FSMField(choices=[('SCHEDULED', 'زمان\u200cبندی\u200cشده'), ('WAITING_SOURCE', 'در انتظار منبع'), ('BUILDING', 'ساخت مخاطبان'), ('READY_TO_DISPATCH', 'آماده ارسال'), ('DISPATCHING', 'در حال ارسال'), ('DISPATCHED', 'ارسال\u200cشده'), ('COMPLETED', 'کامل'), ('SKIPPED', 'ردشده'), ('FAILED', 'ناموفق')], default='SCHEDULED', max_length=20, verbose_name='وضعیت')),
                        ('revision', models.PositiveIntegerField(default=1, verbose_name='نسخه')),
                        ('period_key', models.BigIntegerField(blank=True, null=True, verbose_name='کلید دوره')),
                        ('inherit_type', models.CharField(blank=True, choices=[('CONVERTED', 'تبدیل\u200cشده'), ('NOT_CONVERTED', 'تبدیل\u200cنشده'), ('FAILED_DELIVERY', 'ارسال ناموفق')], max_length=16, verbose_name='دسته مخاطبان')),
                        ('planned_at', models.DateTimeField(blank=True, null=True, verbose_name='زمان برنامه\u200cریزی')),
                        ('scheduled_at', models.DateTimeField(blank=True, null=True, verbose_name='زمان اجرا')),
                        ('next_check_at', models.DateTimeField(blank=True, null=True, verbose_name='بررسی بعدی')),
                        ('wait_deadline_at', models.DateTimeField(blank=True, null=True, verbose_name='مهلت انتظار')),
                        ('wait_reason', models.CharField(blank=True, choices=[('SOURCE_PROCESSING', 'ارسال منبع در جریان است'), ('DELIVERY_DATA_PENDING', 'داده تحویل کامل نیست'), ('CONVERSION_DATA_NOT_READY', 'داده تبدیل آماده نیست')], max_length=28, verbose_name='دلیل انتظار')),
                        ('skip_reason', models.CharField(blank=True, choices=[('SOURCE_TIMEOUT', 'منبع به\u200cموقع آماده نشد'), ('NEW_PERIOD', 'دوره تازه آغاز شد'), ('PAST_END_DATE', 'پس از تاریخ پایان'), ('EMPTY_AUDIENCE', 'مخاطبی نماند'), ('SOURCE_SKIPPED', 'اجرای منبع رد شد'), ('NO_FEASIBLE_RUN', 'زمان اجرای معتبری نیست'), ('APPROVED_LATE', 'تأیید پس از زمان اجرا'), ('CHAIN_PAUSED', 'زنجیره متوقف موقت شد'), ('CHAIN_STOPPED', 'زنجیره متوقف شد')], max_length=20, verbose_name='دلیل رد')),
                        ('failure_reason', models.CharField(blank=True, max_length=200, verbose_name='دلیل شکست')),
                        ('selection_rule_snapshot', models.JSONField(blank=True, default=dict, verbose_name='قاعده انتخاب')),
                        ('audience_count', models.PositiveIntegerField(blank=True, null=True, verbose_name='تعداد مخاطبان')),
                        ('control_count', models.PositiveIntegerField(default=0, verbose_name='گروه کنترل')),
                        ('expected_execution_count', models.PositiveIntegerField(blank=True, null=True, verbose_name='اجراهای مورد انتظار')),
                        ('refused_count', models.PositiveIntegerField(default=0, verbose_name='ردشده توسط کانال')),
                        ('cursor', models.BigIntegerField(default=0, verbose_name='نشانگر ارسال')),
                        ('dispatch_attempts', models.PositiveIntegerField(default=0, verbose_name='تلاش\u200cهای ارسال')),
                        ('lease_token', models.UUIDField(blank=True, null=True)),
                        ('lease_expires_at', models.DateTimeField(blank=True, null=True)),
                        ('dispatched_at', models.DateTimeField(blank=True, null=True, verbose_name='پایان ثبت ارسال')),
                        ('started_at', models.DateTimeField(blank=True, null=True, verbose_name='شروع ارسال')),
                        ('completed_at', models.DateTimeField(blank=True, null=True, verbose_name='پایان پردازش ارسال')),
                        ('postponement_notified_at', models.DateTimeField(blank=True, null=True)),
                        ('conversions_checked_at', models.DateTimeField(blank=True, null=True, verbose_name='داده تبدیل تا')),
                        ('operational_error', models.CharField(blank=True, max_length=300, verbose_name='خطای عملیاتی')),
                        ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='runs', to='campaigns.campaign')),
                        ('root', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='campaigns.campaign')),
                        ('source_run', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='child_runs', to='chains.campaignrun', verbose_name='اجرای منبع')),
                        ('workspace', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace')),
                        ('package', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='chains.chainapprovalpackage')),
                    ],
                    options={
                        'verbose_name': 'اجرای کمپین',
                        'verbose_name_plural': 'اجراهای کمپین',
                        'db_table': 'campaigns_campaignrun',
                        'ordering': ['-created_at', '-id'],
                    },
                ),
                migrations.CreateModel(
                    name='ConversionEvent',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=100, verbose_name='نام')),
                        ('occurred_at', models.DateTimeField(verbose_name='زمان رخداد')),
                        ('data', models.JSONField(blank=True, default=dict, verbose_name='داده')),
                        ('source', models.CharField(choices=[('API', 'API'), ('TARGET_STATUS', 'تغییر وضعیت مخاطب')], default='API', max_length=16, verbose_name='منبع')),
                        ('external_id', models.CharField(blank=True, max_length=100, null=True, verbose_name='شناسه بیرونی')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='ثبت')),
                        ('target', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='conversion_events', to='campaigns.target')),
                        ('workspace', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace')),
                    ],
                    options={
                        'verbose_name': 'رویداد تبدیل',
                        'verbose_name_plural': 'رویدادهای تبدیل',
                        'db_table': 'campaigns_conversionevent',
                        'ordering': ['-occurred_at', '-id'],
                    },
                ),
                migrations.CreateModel(
                    name='RunAudienceSnapshot',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('attempt_no', models.PositiveIntegerField(verbose_name='تلاش')),
                        ('build_id', models.UUIDField(default=uuid.uuid4, unique=True, verbose_name='شناسه ساخت')),
                        ('status', models.CharField(choices=[('BUILDING', 'در حال ساخت'), ('FROZEN', 'منجمد'), ('ABANDONED', 'رهاشده')], default='BUILDING', max_length=10, verbose_name='وضعیت')),
                        ('lease_expires_at', models.DateTimeField(blank=True, null=True)),
                        ('heartbeat_at', models.DateTimeField(blank=True, null=True)),
                        ('member_count', models.PositiveIntegerField(default=0)),
                        ('control_count', models.PositiveIntegerField(default=0)),
                        ('selection_rule_snapshot', models.JSONField(blank=True, default=dict)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('frozen_at', models.DateTimeField(blank=True, null=True)),
                        ('run', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='snapshots', to='chains.campaignrun')),
                        ('workspace', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace')),
                    ],
                    options={
                        'verbose_name': 'مخاطبان منجمد اجرا',
                        'verbose_name_plural': 'مخاطبان منجمد اجراها',
                        'db_table': 'campaigns_runaudiencesnapshot',
                        'ordering': ['run_id', 'attempt_no'],
                    },
                ),
                migrations.CreateModel(
                    name='RunAudienceMember',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('build_id', models.UUIDField()),
                        ('is_control', models.BooleanField(default=False)),
                        ('target', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='campaigns.target')),
                        ('snapshot', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='members', to='chains.runaudiencesnapshot')),
                    ],
                    options={
                        'verbose_name': 'عضو مخاطبان اجرا',
                        'verbose_name_plural': 'اعضای مخاطبان اجرا',
                        'db_table': 'campaigns_runaudiencemember',
                        'ordering': ['id'],
                    },
                ),
                migrations.AddField(
                    model_name='campaignrun',
                    name='target_snapshot',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='chains.runaudiencesnapshot'),
                ),
                migrations.CreateModel(
                    name='RunExecution',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('action_code', models.CharField(max_length=60)),
                        ('key', models.CharField(max_length=160, unique=True)),
                        ('execution_id', models.BigIntegerField(blank=True, null=True, unique=True)),
                        ('refused_reason', models.CharField(blank=True, max_length=40)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('run', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='executions', to='chains.campaignrun')),
                        ('target', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='campaigns.target')),
                        ('workspace', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='platform.workspace')),
                    ],
                    options={
                        'verbose_name': 'اجرای مخاطب در اجرای کمپین',
                        'verbose_name_plural': 'اجراهای مخاطبان در اجرای کمپین',
                        'db_table': 'campaigns_runexecution',
                        'ordering': ['id'],
                    },
                ),
                migrations.CreateModel(
                    name='CampaignGroup',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='ایجاد')),
                        ('updated_at', models.DateTimeField(auto_now=True, verbose_name='به\u200cروزرسانی')),
                        ('name', models.CharField(max_length=255, verbose_name='نام')),
                        ('name_key', models.CharField(editable=False, max_length=255, verbose_name='کلید نام')),
                        ('name_search', models.CharField(editable=False, max_length=255, verbose_name='متن جستجو')),
                        ('description', models.CharField(blank=True, max_length=500, verbose_name='توضیحات')),
                        ('status', models.CharField(choices=[('ACTIVE', 'فعال'), ('DELETED', 'حذف\u200cشده')], default='ACTIVE', max_length=8, verbose_name='وضعیت')),
                        ('revision', models.PositiveIntegerField(default=1, verbose_name='نسخه')),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='ایجادکننده')),
                        ('updated_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='ویرایشگر')),
                        ('workspace', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='campaign_groups', to='platform.workspace')),
                    ],
                    options={
                        'verbose_name': 'گروه کمپین',
                        'verbose_name_plural': 'گروه\u200cهای کمپین',
                        'db_table': 'campaigns_campaigngroup',
                        'ordering': ['-created_at', '-id'],
                        'indexes': [models.Index(fields=['workspace', 'status', '-created_at', '-id'], name='campaigngroup_listing')],
                        'constraints': [models.UniqueConstraint(condition=models.Q(('status', 'ACTIVE')), fields=('workspace', 'name_key'), name='campaigngroup_unique_active_name')],
                    },
                ),
                migrations.AddIndex(
                    model_name='chainapprovalpackage',
                    index=models.Index(fields=['workspace', 'root', '-created_at'], name='chainpkg_ws_root_created'),
                ),
                migrations.AddIndex(
                    model_name='chainapprovalpackage',
                    index=models.Index(fields=['workspace', 'status', 'created_at'], name='chainpkg_ws_status_created'),
                ),
                migrations.AddIndex(
                    model_name='conversionevent',
                    index=models.Index(fields=['workspace', 'target', 'occurred_at'], name='conversion_target_time'),
                ),
                migrations.AddConstraint(
                    model_name='conversionevent',
                    constraint=models.UniqueConstraint(condition=models.Q(('external_id__isnull', False)), fields=('workspace', 'external_id'), name='conversion_unique_external_id'),
                ),
                migrations.AddConstraint(
                    model_name='runaudiencesnapshot',
                    constraint=models.UniqueConstraint(fields=('run', 'attempt_no'), name='runsnapshot_unique_attempt'),
                ),
                migrations.AddConstraint(
                    model_name='runaudiencesnapshot',
                    constraint=models.UniqueConstraint(condition=models.Q(('status', 'FROZEN')), fields=('run',), name='runsnapshot_one_frozen'),
                ),
                migrations.AddIndex(
                    model_name='runaudiencemember',
                    index=models.Index(fields=['build_id', 'id'], name='runmember_build'),
                ),
                migrations.AddConstraint(
                    model_name='runaudiencemember',
                    constraint=models.UniqueConstraint(fields=('snapshot', 'target'), name='runmember_unique_target'),
                ),
                migrations.AddIndex(
                    model_name='campaignrun',
                    index=models.Index(fields=['run_type', 'status', 'next_check_at'], name='campaignrun_due'),
                ),
                migrations.AddIndex(
                    model_name='campaignrun',
                    index=models.Index(fields=['workspace', 'period_key', 'campaign'], name='campaignrun_ws_period'),
                ),
                migrations.AddIndex(
                    model_name='campaignrun',
                    index=models.Index(fields=['campaign', '-created_at'], name='campaignrun_campaign_created'),
                ),
                migrations.AddConstraint(
                    model_name='campaignrun',
                    constraint=models.UniqueConstraint(condition=models.Q(('run_type', 'INHERITED')), fields=('workspace', 'campaign', 'period_key'), name='campaignrun_one_inherited_per_period'),
                ),
                migrations.AddConstraint(
                    model_name='campaignrun',
                    constraint=models.UniqueConstraint(condition=models.Q(('run_type', 'SCHEDULED')), fields=('campaign', 'planned_at'), name='campaignrun_one_scheduled_per_occurrence'),
                ),
                migrations.AddIndex(
                    model_name='runexecution',
                    index=models.Index(fields=['run', 'execution_id'], name='runexec_run'),
                ),
            ],
        ),
        migrations.RunPython(content_types_to_chains, content_types_to_campaigns),
    ]
