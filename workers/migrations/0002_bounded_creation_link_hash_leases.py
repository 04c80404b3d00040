"""Bounded task creation (cursor, backoff), task slots unique by link hash, lease ids, verify-before-retry."""

import hashlib
from urllib.parse import urlsplit, urlunsplit

from django.db import migrations, models

DEFAULT_PORTS = {"http": "80", "https": "443"}


def _normalise(url):
    # a frozen copy of workers.links.normalise_link (migrations must not import app code that may change)
    text = (url or "").strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return text
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    netloc = host
    if parts.username is not None:
        userinfo = parts.username + (f":{parts.password}" if parts.password is not None else "")
        netloc = f"{userinfo}@{host}"
    if port is not None and str(port) != DEFAULT_PORTS.get(scheme):
        netloc = f"{netloc}:{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, parts.fragment))


def fill_link_hash(apps, schema_editor):
    BrowserTask = apps.get_model("workers", "BrowserTask")
    batch = []
    for task in BrowserTask.objects.only("id", "link").iterator(chunk_size=2000):
        task.link_hash = hashlib.sha256(_normalise(task.link).encode("utf-8")).hexdigest()
        batch.append(task)
        if len(batch) >= 2000:
            BrowserTask.objects.bulk_update(batch, ["link_hash"])
            batch = []
    if batch:
        BrowserTask.objects.bulk_update(batch, ["link_hash"])


def existing_platforms_fully_created(apps, schema_editor):
    # platforms whose tasks already exist: the cursor is at the end
    CampaignPlatform = apps.get_model("workers", "CampaignPlatform")
    for platform in CampaignPlatform.objects.filter(is_tasks_created=True).only("id", "metadata").iterator():
        meta = platform.metadata or {}
        total = len(meta.get("account_ids") or []) * len(meta.get("target_links") or [])
        CampaignPlatform.objects.filter(pk=platform.pk).update(creation_cursor=total)


class Migration(migrations.Migration):
    dependencies = [
        ("workers", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="browsertask",
            name="link_hash",
            field=models.CharField(default="", editable=False, max_length=64, verbose_name="چکیده نشانی"),
            preserve_default=False,
        ),
        migrations.RunPython(fill_link_hash, migrations.RunPython.noop),
        migrations.RemoveConstraint(model_name="browsertask", name="browsertask_unique_slot"),
        migrations.AddConstraint(
            model_name="browsertask",
            constraint=models.UniqueConstraint(
                fields=("platform", "account", "link_hash", "action_type"), name="browsertask_unique_slot_hash"
            ),
        ),
        migrations.AlterField(
            model_name="browsertask",
            name="link",
            field=models.URLField(max_length=8000, verbose_name="نشانی"),
        ),
        migrations.AddField(
            model_name="browsertask",
            name="lease_id",
            field=models.UUIDField(blank=True, editable=False, null=True, verbose_name="شناسه اجاره"),
        ),
        migrations.AddField(
            model_name="browsertask",
            name="needs_verification",
            field=models.BooleanField(default=False, verbose_name="نیاز به بررسی پیش از تکرار"),
        ),
        migrations.AddField(
            model_name="campaignplatform",
            name="creation_cursor",
            field=models.PositiveIntegerField(default=0, verbose_name="پیشرفت ساخت وظایف"),
        ),
        migrations.AddField(
            model_name="campaignplatform",
            name="creation_due_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="نوبت بعدی ساخت"),
        ),
        migrations.AddField(
            model_name="campaignplatform",
            name="creation_error",
            field=models.CharField(blank=True, max_length=1000, verbose_name="آخرین خطای ساخت"),
        ),
        migrations.AddField(
            model_name="campaignplatform",
            name="creation_failures",
            field=models.PositiveIntegerField(default=0, verbose_name="خطاهای پیاپی ساخت"),
        ),
        migrations.RunPython(existing_platforms_fully_created, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="browserevent",
            name="type",
            field=models.CharField(
                choices=[
                    ("task_failed", "شکست وظیفه"),
                    ("task_retry_scheduled", "تلاش دوباره زمان\u200cبندی شد"),
                    ("task_reclaimed", "بازپس\u200cگیری پس از اتمام اجاره"),
                    ("task_replaced", "جایگزینی با حساب دیگر"),
                    ("no_spare_account", "حساب جایگزین موجود نیست"),
                    ("task_retried", "تلاش دوباره دستی"),
                    ("result_ignored", "نتیجه تکراری نادیده گرفته شد"),
                    ("account_expired", "حساب منقضی شد"),
                    ("proxy_error", "خطای پراکسی"),
                    ("proxy_disabled", "پراکسی غیرفعال شد"),
                    ("platform_status", "تغییر وضعیت سکو"),
                    ("creation_failed", "ساخت وظایف ناموفق"),
                ],
                max_length=32,
                verbose_name="نوع",
            ),
        ),
    ]
