from django.db import migrations
from django.utils import timezone


def finish_campaigns_of_finished_platforms(apps, schema_editor):
    """Browser campaigns left "active" after every platform completed become completed (with their event)."""
    campaign_model = apps.get_model("campaigns", "Campaign")
    event_model = apps.get_model("campaigns", "CampaignEvent")
    platform_model = apps.get_model("workers", "CampaignPlatform")
    open_ids = platform_model.objects.exclude(status="completed").values("campaign_id")
    stuck = (
        campaign_model.objects.filter(kind="browser", status__in=["active", "paused"], browser_platforms__isnull=False)
        .exclude(pk__in=open_ids)
        .distinct()
    )
    now = timezone.now()
    for campaign in stuck.iterator():
        updated = campaign_model.objects.filter(pk=campaign.pk, status=campaign.status).update(
            status="completed", revision=campaign.revision + 1, updated_at=now
        )
        if updated:
            event_model.objects.create(
                workspace_id=campaign.workspace_id,
                campaign_id=campaign.pk,
                type="status_changed",
                from_status=campaign.status,
                to_status="completed",
                data={"reason": "every platform completed"},
            )


class Migration(migrations.Migration):
    dependencies = [
        ("workers", "0004_account_cookie_domain"),
        ("campaigns", "0005_notifications_activities"),
    ]

    operations = [migrations.RunPython(finish_campaigns_of_finished_platforms, migrations.RunPython.noop)]
