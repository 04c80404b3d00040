"""The reply push's token (``SmsProviderAccount.inbound_token``) is a credential: stored encrypted like the
provider credentials. The push finds its account by the id in its URL, never by the token."""

from django.db import migrations, models

import campaigns.platform.crypto
import sms.models


def seal(apps, schema_editor):
    Account = apps.get_model("sms", "SmsProviderAccount")
    for pk, token in Account.objects.values_list("pk", "inbound_token"):
        Account.objects.filter(pk=pk).update(inbound_token_sealed=token or sms.models.new_webhook_token())


def unseal(apps, schema_editor):
    Account = apps.get_model("sms", "SmsProviderAccount")
    for pk, token in Account.objects.values_list("pk", "inbound_token_sealed"):
        Account.objects.filter(pk=pk).update(inbound_token=token)


class Migration(migrations.Migration):
    dependencies = [("sms", "0021_account_credit_unit")]

    operations = [
        migrations.AlterField(
            model_name="smsprovideraccount",
            name="inbound_token",
            field=models.CharField(max_length=64, null=True, blank=True, verbose_name="توکن دریافت"),
        ),
        migrations.AddField(
            model_name="smsprovideraccount",
            name="inbound_token_sealed",
            field=campaigns.platform.crypto.EncryptedTextField(blank=True, default=""),
        ),
        migrations.RunPython(seal, unseal),
        migrations.RemoveField(model_name="smsprovideraccount", name="inbound_token"),
        migrations.RenameField(
            model_name="smsprovideraccount", old_name="inbound_token_sealed", new_name="inbound_token"
        ),
        migrations.AlterField(
            model_name="smsprovideraccount",
            name="inbound_token",
            field=campaigns.platform.crypto.EncryptedTextField(
                default=sms.models.new_webhook_token, verbose_name="توکن دریافت"
            ),
        ),
    ]
