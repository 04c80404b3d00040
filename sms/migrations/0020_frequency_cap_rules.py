"""The frequency cap becomes a list of rules (per Jalali day / week / month); the per-day setting is kept as a day
rule. Counters carry their period kind."""

from django.db import migrations, models


def day_setting_to_rule(apps, schema_editor):
    SmsSettings = apps.get_model("sms", "SmsSettings")
    for pk, cap in SmsSettings.objects.filter(frequency_cap_per_day__gt=0).values_list("pk", "frequency_cap_per_day"):
        SmsSettings.objects.filter(pk=pk).update(frequency_cap_rules=[{"period": "day", "limit": cap}])


def day_rule_to_setting(apps, schema_editor):
    SmsSettings = apps.get_model("sms", "SmsSettings")
    for pk, rules in SmsSettings.objects.exclude(frequency_cap_rules=[]).values_list("pk", "frequency_cap_rules"):
        day = next((r.get("limit", 0) for r in rules or [] if r.get("period") == "day"), 0)
        SmsSettings.objects.filter(pk=pk).update(frequency_cap_per_day=day)


def keep_day_counters(apps, schema_editor):
    """Back to one counter per day: the week's and month's counters go (the old unique key has no period)."""
    apps.get_model("sms", "SmsFrequencyCount").objects.exclude(period="day").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("sms", "0019_account_provider_prices"),
    ]

    operations = [
        migrations.AddField(
            model_name="smssettings",
            name="frequency_cap_rules",
            field=models.JSONField(blank=True, default=list, verbose_name="سقف پیامک تبلیغاتی هر نفر"),
        ),
        migrations.RunPython(day_setting_to_rule, day_rule_to_setting),
        migrations.RemoveField(model_name="smssettings", name="frequency_cap_per_day"),
        migrations.RemoveConstraint(model_name="smsfrequencycount", name="sms_frequency_unique_day"),
        migrations.AddField(
            model_name="smsfrequencycount",
            name="period",
            field=models.CharField(default="day", max_length=8, verbose_name="دوره"),
        ),
        migrations.RunPython(migrations.RunPython.noop, keep_day_counters),
        migrations.AlterField(
            model_name="smsfrequencycount",
            name="day",
            field=models.DateField(verbose_name="آغاز دوره"),
        ),
        migrations.AddConstraint(
            model_name="smsfrequencycount",
            constraint=models.UniqueConstraint(
                fields=("workspace", "phone", "period", "day"), name="sms_frequency_unique_period"
            ),
        ),
        migrations.AlterModelOptions(
            name="smsfrequencycount",
            options={"verbose_name": "شمار پیامک تبلیغاتی", "verbose_name_plural": "شمار پیامک\u200cهای تبلیغاتی"},
        ),
    ]
