import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("automation", "0002_initial"),
        ("campaigns", "0001_initial"),
        ("sms", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="smsattempt",
            name="local_id",
            field=models.BigIntegerField(blank=True, db_index=True, null=True, verbose_name="شناسه محلی"),
        ),
        migrations.AlterField(
            model_name="smsattempt",
            name="status",
            field=models.CharField(
                choices=[
                    ("queued", "در نوبت ارسال"),
                    ("sending", "در حال ارسال"),
                    ("submitted", "تحویل پنل"),
                    ("sent", "ارسال\u200cشده"),
                    ("delivered", "رسیده"),
                    ("failed", "ناموفق"),
                    ("rejected", "ردشده"),
                    ("unavailable", "کانال در دسترس نیست"),
                    ("unknown", "نامعلوم"),
                ],
                default="sending",
                max_length=16,
                verbose_name="وضعیت",
            ),
        ),
        migrations.CreateModel(
            name="SmsSendSlot",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("cycle", models.PositiveIntegerField()),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "execution",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="+", to="automation.execution"
                    ),
                ),
                (
                    "node",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="+", to="automation.workflownode"
                    ),
                ),
                (
                    "workspace",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="campaigns.workspace"
                    ),
                ),
            ],
            options={
                "verbose_name": "شناسه محلی ارسال",
                "verbose_name_plural": "شناسه\u200cهای محلی ارسال",
                "constraints": [
                    models.UniqueConstraint(fields=("execution", "cycle", "node"), name="smsslot_one_per_step")
                ],
            },
        ),
    ]
