"""The journey side of a campaign (workflow + pinned version) moves from ``Campaign`` to ``CampaignJourney``."""

import django.db.models.deletion
from django.db import migrations, models


def copy_to_journeys(apps, schema_editor):
    Campaign = apps.get_model("campaigns", "Campaign")
    CampaignJourney = apps.get_model("automation", "CampaignJourney")
    rows = (
        Campaign.objects.filter(workflow_version__isnull=False)
        .values_list("pk", "workspace_id", "workflow_id", "workflow_version_id", "workflow_version__workflow_id")
        .order_by("pk")
        .iterator(chunk_size=2000)
    )
    batch = []
    for pk, workspace_id, workflow_id, version_id, version_workflow_id in rows:
        batch.append(
            CampaignJourney(
                campaign_id=pk,
                workspace_id=workspace_id,
                workflow_id=workflow_id or version_workflow_id,
                workflow_version_id=version_id,
            )
        )
        if len(batch) >= 2000:
            CampaignJourney.objects.bulk_create(batch)
            batch = []
    CampaignJourney.objects.bulk_create(batch)


def copy_back_to_campaigns(apps, schema_editor):
    Campaign = apps.get_model("campaigns", "Campaign")
    CampaignJourney = apps.get_model("automation", "CampaignJourney")
    for journey in CampaignJourney.objects.order_by("pk").iterator(chunk_size=2000):
        Campaign.objects.filter(pk=journey.campaign_id).update(
            workflow_id=journey.workflow_id, workflow_version_id=journey.workflow_version_id
        )


class Migration(migrations.Migration):
    dependencies = [
        ("automation", "0002_initial"),
        ("campaigns", "0003_chain_runs"),
    ]

    operations = [
        migrations.CreateModel(
            name="CampaignJourney",
            fields=[
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="ایجاد")),
                ("updated_at", models.DateTimeField(auto_now=True, verbose_name="به\u200cروزرسانی")),
                (
                    "campaign",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="journey",
                        serialize=False,
                        to="campaigns.campaign",
                    ),
                ),
                (
                    "workflow",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="campaign_journeys",
                        to="automation.workflow",
                        verbose_name="گردش\u200cکار",
                    ),
                ),
                (
                    "workflow_version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="campaign_journeys",
                        to="automation.workflowversion",
                        verbose_name="نسخه گردش\u200cکار",
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
                "verbose_name": "سفر کمپین",
                "verbose_name_plural": "سفرهای کمپین",
                "ordering": ["-campaign_id"],
            },
        ),
        migrations.RunPython(copy_to_journeys, copy_back_to_campaigns),
    ]
