"""New workspaces get the registered defaults (four eyes, Jalali months) on every path, not only
``workspace_create``: the field's default is ``workspace_default_settings``.

Existing rows keep behaving as they do today: each gets the values it reads now written explicitly — a missing
``approval_four_eyes`` reads as off and a missing ``calendar`` as Gregorian — so the new defaults (which readers
never apply to an existing row) cannot change them later either. Keys are spelled out here, not imported: this
migration records the readers of today.
"""

import campaigns.platform.registry
from django.db import migrations, models


def write_effective_values(apps, schema_editor):
    Workspace = apps.get_model("platform", "Workspace")
    for workspace in Workspace.objects.only("id", "settings").order_by("pk"):
        settings = dict(workspace.settings or {})
        effective = {
            "approval_four_eyes": bool(settings.get("approval_four_eyes", False)),
            "calendar": "jalali" if settings.get("calendar") == "jalali" else "gregorian",
        }
        if any(settings.get(key) != value for key, value in effective.items()):
            Workspace.objects.filter(pk=workspace.pk).update(settings={**settings, **effective})


class Migration(migrations.Migration):
    dependencies = [
        ("platform", "0001_tenancy_models_from_campaigns"),
    ]

    operations = [
        migrations.AlterField(
            model_name="workspace",
            name="settings",
            field=models.JSONField(
                blank=True, default=campaigns.platform.registry.workspace_default_settings, verbose_name="تنظیمات"
            ),
        ),
        migrations.RunPython(write_effective_values, migrations.RunPython.noop),
    ]
