"""A chain approval package binds the workspace's four-eyes rule at submit (approval is decided by it).

Packages still waiting for a decision bind the rule their workspace has now (what approving them reads today);
decided packages keep ``False`` (their rule was never recorded and is no longer read).
"""

from django.db import migrations, models


def bind_pending_packages(apps, schema_editor):
    Package = apps.get_model("campaigns", "ChainApprovalPackage")
    Workspace = apps.get_model("platform", "Workspace")
    four_eyes_ids = [w.id for w in Workspace.objects.only("id", "settings") if (w.settings or {}).get("approval_four_eyes")]
    Package.objects.filter(status="SUBMITTED", workspace_id__in=four_eyes_ids).update(four_eyes=True)


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0014_tenancy_models_moved_to_platform"),
    ]

    operations = [
        migrations.AddField(
            model_name="chainapprovalpackage",
            name="four_eyes",
            field=models.BooleanField(default=False, verbose_name="تأیید چهارچشمی"),
        ),
        migrations.RunPython(bind_pending_packages, migrations.RunPython.noop),
    ]
