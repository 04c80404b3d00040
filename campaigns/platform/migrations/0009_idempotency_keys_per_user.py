"""An Idempotency-Key is a user's: the kept answer is replayed only to the user who sent the first request (it
may hold a secret shown once, a new API key's), and it is kept encrypted. The answers kept so far (24 hours at
most, stored in clear and per workspace) are deleted: a retry after the upgrade runs again."""

from django.conf import settings
from django.db import migrations, models

import campaigns.platform.crypto


def drop_kept_answers(apps, schema_editor):
    apps.get_model("platform", "IdempotencyKey").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("platform", "0008_api_keys_bound"),
    ]

    operations = [
        migrations.RunPython(drop_kept_answers, migrations.RunPython.noop),
        migrations.RemoveConstraint(model_name="idempotencykey", name="idempotency_key_unique"),
        migrations.RemoveField(model_name="idempotencykey", name="response"),
        migrations.AddField(
            model_name="idempotencykey",
            name="response",
            field=campaigns.platform.crypto.EncryptedTextField(blank=True, default="", verbose_name="پاسخ"),
        ),
        migrations.AddField(
            model_name="idempotencykey",
            name="user",
            field=models.ForeignKey(
                default=0,  # the table is empty here (above): no row takes it
                on_delete=models.deletion.CASCADE,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
                verbose_name="کاربر",
            ),
            preserve_default=False,
        ),
        migrations.AddConstraint(
            model_name="idempotencykey",
            constraint=models.UniqueConstraint(
                fields=("workspace", "user", "key", "path"), name="idempotency_key_user_unique"
            ),
        ),
    ]
