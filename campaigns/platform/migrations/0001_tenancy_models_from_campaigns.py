"""The kernel app (platform) takes over the tenancy tables of the campaigns app.

State only: the tables campaigns_workspace, campaigns_membership, campaigns_apitoken and
campaigns_platformheartbeat exist already (created by the campaigns migrations) and keep their rows.
Their content types move with them, so permissions, groups and admin history still apply.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

MOVED = ("workspace", "membership", "apitoken", "platformheartbeat")


def _move_content_types(apps, schema_editor, source: str, target: str) -> None:
    """Relabel the moved models' content types (ids kept: permissions and admin log entries follow)."""
    content_types = apps.get_model("contenttypes", "ContentType").objects.using(schema_editor.connection.alias)
    taken = set(content_types.filter(app_label=target, model__in=MOVED).values_list("model", flat=True))
    content_types.filter(app_label=source, model__in=[m for m in MOVED if m not in taken]).update(app_label=target)


def content_types_to_platform(apps, schema_editor) -> None:
    _move_content_types(apps, schema_editor, "campaigns", "platform")


def content_types_to_campaigns(apps, schema_editor) -> None:
    _move_content_types(apps, schema_editor, "platform", "campaigns")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("campaigns", "0013_campaign_chain_code"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name='PlatformHeartbeat',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=60, unique=True)),
                        ('beat_at', models.DateTimeField()),
                    ],
                    options={
                        'verbose_name': 'ضربان سامانه',
                        'verbose_name_plural': 'ضربان\u200cهای سامانه',
                        'db_table': 'campaigns_platformheartbeat',
                        'ordering': ['name'],
                    },
                ),
                migrations.CreateModel(
                    name='Workspace',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='ایجاد')),
                        ('updated_at', models.DateTimeField(auto_now=True, verbose_name='به\u200cروزرسانی')),
                        ('name', models.CharField(max_length=120, verbose_name='نام')),
                        ('slug', models.SlugField(max_length=60, unique=True, verbose_name='شناسه')),
                        ('time_zone', models.CharField(default='Asia/Tehran', max_length=64, verbose_name='منطقه زمانی')),
                        ('settings', models.JSONField(blank=True, default=dict, verbose_name='تنظیمات')),
                    ],
                    options={
                        'verbose_name': 'فضای کاری',
                        'verbose_name_plural': 'فضاهای کاری',
                        'db_table': 'campaigns_workspace',
                        'ordering': ['name', 'id'],
                    },
                ),
                migrations.CreateModel(
                    name='ApiToken',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(blank=True, max_length=100, verbose_name='نام')),
                        ('prefix', models.CharField(max_length=16, unique=True, verbose_name='پیشوند')),
                        ('key_hash', models.CharField(editable=False, max_length=64, verbose_name='هش کلید')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='ایجاد')),
                        ('expires_at', models.DateTimeField(verbose_name='انقضا')),
                        ('last_used_at', models.DateTimeField(blank=True, null=True, verbose_name='آخرین استفاده')),
                        ('revoked_at', models.DateTimeField(blank=True, null=True, verbose_name='ابطال')),
                        ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='api_tokens', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'verbose_name': 'کلید API',
                        'verbose_name_plural': 'کلیدهای API',
                        'db_table': 'campaigns_apitoken',
                        'ordering': ['-created_at', '-id'],
                    },
                ),
                migrations.CreateModel(
                    name='Membership',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='ایجاد')),
                        ('updated_at', models.DateTimeField(auto_now=True, verbose_name='به\u200cروزرسانی')),
                        ('role', models.CharField(choices=[('owner', 'مالک'), ('admin', 'مدیر کل'), ('manager', 'مدیر کمپین'), ('operator', 'کارشناس'), ('viewer', 'بیننده')], default='viewer', max_length=16, verbose_name='نقش')),
                        ('is_default', models.BooleanField(default=False, verbose_name='پیش\u200cفرض')),
                        ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to=settings.AUTH_USER_MODEL)),
                        ('workspace', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to='platform.workspace')),
                    ],
                    options={
                        'verbose_name': 'عضویت',
                        'verbose_name_plural': 'عضویت\u200cها',
                        'db_table': 'campaigns_membership',
                        'ordering': ['workspace_id', 'user_id'],
                        'constraints': [models.UniqueConstraint(fields=('workspace', 'user'), name='membership_unique_user'), models.UniqueConstraint(condition=models.Q(('is_default', True)), fields=('user',), name='membership_one_default_per_user')],
                    },
                ),
            ],
        ),
        migrations.RunPython(content_types_to_platform, content_types_to_campaigns),
    ]
