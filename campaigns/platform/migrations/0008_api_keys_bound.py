"""Every API key acts in one workspace: a key made by ``api_token_create`` before ``--workspace`` existed (no
workspace) is bound to its user's only workspace. A key whose user is in several workspaces (or none) stays
unbound and is refused from now on: which workspace its client meant cannot be known; make a new key with
``manage.py api_token_create <username> --workspace <slug>``."""

from django.db import migrations
from django.db.models import Count


def bind_to_the_only_workspace(apps, schema_editor):
    ApiToken = apps.get_model("platform", "ApiToken")
    Membership = apps.get_model("platform", "Membership")
    users = ApiToken.objects.filter(workspace__isnull=True).values("user_id")
    single = (
        Membership.objects.filter(user_id__in=users)
        .values("user_id")
        .annotate(n=Count("id"))
        .filter(n=1)
        .values_list("user_id", flat=True)
    )
    for membership in Membership.objects.filter(user_id__in=list(single)):
        ApiToken.objects.filter(workspace__isnull=True, user_id=membership.user_id).update(
            workspace_id=membership.workspace_id
        )


class Migration(migrations.Migration):
    dependencies = [("platform", "0007_webhook_labels")]

    operations = [migrations.RunPython(bind_to_the_only_workspace, migrations.RunPython.noop)]
