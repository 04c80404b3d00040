"""The delivery webhook's token (``SmsSettings.webhook_token``) is a credential: stored encrypted like the provider
credentials, with its SHA-256 digest beside it (``webhook_token_digest``, unique) for the unsigned webhook, which
finds its workspace by the token. Every workspace keeps its token: the URL a provider was given still works."""

import hashlib

from django.db import migrations, models

import campaigns.platform.crypto
import sms.models


def seal(apps, schema_editor):
    Settings = apps.get_model("sms", "SmsSettings")
    for pk, token in Settings.objects.values_list("pk", "webhook_token"):
        token = token or sms.models.new_webhook_token()
        Settings.objects.filter(pk=pk).update(
            webhook_token_sealed=token, webhook_token_digest=hashlib.sha256(token.encode()).hexdigest()
        )


def unseal(apps, schema_editor):
    Settings = apps.get_model("sms", "SmsSettings")
    for pk, token in Settings.objects.values_list("pk", "webhook_token_sealed"):
        Settings.objects.filter(pk=pk).update(webhook_token=token)


class Migration(migrations.Migration):
    dependencies = [("sms", "0022_inbound_token_encrypted")]

    operations = [
        migrations.AlterField(
            model_name="smssettings",
            name="webhook_token",
            field=models.CharField(max_length=64, null=True, blank=True, verbose_name="توکن وب‌هوک"),
        ),
        migrations.AddField(
            model_name="smssettings",
            name="webhook_token_sealed",
            field=campaigns.platform.crypto.EncryptedTextField(blank=True, default=""),
        ),
        migrations.AddField(
            model_name="smssettings",
            name="webhook_token_digest",
            field=models.CharField(max_length=64, null=True, editable=False, verbose_name="اثر توکن وب‌هوک"),
        ),
        migrations.RunPython(seal, unseal),
        migrations.RemoveField(model_name="smssettings", name="webhook_token"),
        migrations.RenameField(model_name="smssettings", old_name="webhook_token_sealed", new_name="webhook_token"),
        migrations.AlterField(
            model_name="smssettings",
            name="webhook_token",
            field=campaigns.platform.crypto.EncryptedTextField(
                default=sms.models.new_webhook_token, verbose_name="توکن وب‌هوک"
            ),
        ),
        migrations.AlterField(
            model_name="smssettings",
            name="webhook_token_digest",
            field=models.CharField(max_length=64, unique=True, editable=False, verbose_name="اثر توکن وب‌هوک"),
        ),
    ]
