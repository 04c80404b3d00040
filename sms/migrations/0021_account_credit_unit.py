"""An account's credit carries its unit (rials or message parts): existing Melipayamak accounts count their credit
in messages (``GetCredit``: «بر حسب تعداد پیامک», docs/sms.md "Credit"), every other account in rials."""

from django.db import migrations, models

# The providers whose credit query answers in messages (``Provider.credit_unit``), as of this migration.
MESSAGE_PROVIDERS = ("melipayamak",)


def units_from_provider(apps, schema_editor):
    Account = apps.get_model("sms", "SmsProviderAccount")
    Account.objects.filter(provider__in=MESSAGE_PROVIDERS).update(credit_unit="message")
    Account.objects.exclude(provider__in=MESSAGE_PROVIDERS).update(credit_unit="rial")


class Migration(migrations.Migration):
    dependencies = [
        ("sms", "0020_frequency_cap_rules"),
    ]

    operations = [
        migrations.AddField(
            model_name="smsprovideraccount",
            name="credit_unit",
            field=models.CharField(
                blank=True,
                choices=[("rial", "ریال"), ("message", "پیامک")],
                default="",
                max_length=8,
                verbose_name="واحد اعتبار",
            ),
        ),
        migrations.AlterField(
            model_name="smsprovideraccount",
            name="credit",
            field=models.BigIntegerField(blank=True, null=True, verbose_name="اعتبار"),
        ),
        migrations.RunPython(units_from_provider, migrations.RunPython.noop),
    ]
