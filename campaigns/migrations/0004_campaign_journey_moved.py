"""A campaign's workflow and pinned version now live in ``automation.CampaignJourney`` (copied there first)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0003_chain_runs"),
        ("automation", "0003_campaign_journey"),
    ]

    operations = [
        migrations.RemoveField(model_name="campaign", name="workflow"),
        migrations.RemoveField(model_name="campaign", name="workflow_version"),
    ]
