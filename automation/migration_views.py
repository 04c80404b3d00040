"""The migration step of a publish (journeys.md "Live edits"): where the executions still on an older version go.

Thin: the dry run and the commit are ``automation.services.version_migrations`` (the API's services); the page
reads the preview, turns one select per old node into the plan and shows the migration's progress.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse

from automation import workflow_selectors as selectors
from automation.choices import MigrationChoice
from automation.live_edits import campaign_pinned_older, versions_with_live
from automation.models import VersionMigration, Workflow
from automation.services import version_migrations as services
from campaigns.platform.errors import PlatformError
from campaigns.platform.jalali import fa_digits
from campaigns.platform.pages import workspace_page
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import get_scoped


def _workflow(actor, workflow_id: int) -> Workflow:
    try:
        return selectors.workflow_page_get(actor=actor, workflow_id=workflow_id)
    except PlatformError:
        raise Http404 from None


def _int(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() else None


def _choices(request, preview) -> list[dict]:
    """One select per old node where someone stands: ``stay``, ``exit`` or ``move:<node key of the new version>``.
    A node where nobody stood has none (the page says «کسی اینجا نیست»): the service's default plans it."""
    out = []
    for node in preview.nodes:
        value = request.POST.get(f"plan_{node.node_key}", "")
        if value.startswith("move:"):
            out.append({"node_key": node.node_key, "choice": MigrationChoice.MOVE, "to_node_key": value[5:]})
        elif value in (MigrationChoice.STAY, MigrationChoice.EXIT):
            out.append({"node_key": node.node_key, "choice": value})
    return out


@workspace_page(Perm.MANAGE_WORKFLOWS)
def workflow_migrate(request, actor, workflow_id: int):
    workflow = _workflow(actor, workflow_id)
    campaign_id = _int(request.GET.get("campaign"))
    olds = versions_with_live(workflow, campaign_id)
    pinned = campaign_pinned_older(workflow, campaign_id)
    if pinned is not None and pinned.id not in {v.id for v, _ in olds}:
        olds.append((pinned, 0))  # nobody in flight on it, but the campaign's new targets still enter it
    context = {"workflow": workflow, "olds": olds, "campaign_id": campaign_id, "error": ""}
    if not olds or workflow.published_version_id is None:
        return render(request, "automation/workflow_migrate.html", context)
    from_id = _int(request.GET.get("from")) or olds[0][0].id
    if from_id not in {v.id for v, _ in olds}:
        from_id = olds[0][0].id
    kwargs = {
        "actor": actor,
        "workflow_id": workflow.id,
        "from_version_id": from_id,
        "to_version_id": workflow.published_version_id,
        "campaign_id": campaign_id,
    }
    try:
        preview = services.version_migration_preview(**kwargs)
    except PlatformError as exc:
        messages.error(request, exc.message)
        return redirect("workflow-detail", workflow_id=workflow.id)
    status = 200
    if request.method == "POST":
        try:
            migration = services.version_migration_commit(
                **kwargs,
                choices=_choices(request, preview),
                recompute_waits=request.POST.get("recompute_waits") == "1",
                text_fix=request.POST.get("text_fix") == "1",
            )
        except PlatformError as exc:
            context["error"], status = exc.message, exc.http_status
        else:
            return redirect("workflow-migration", workflow_id=workflow.id, migration_id=migration.pk)
    context |= {"preview": preview, "from_id": from_id, "can_commit": actor.has(Perm.MANAGE_CAMPAIGNS)}
    return render(request, "automation/workflow_migrate.html", context, status=status)


@workspace_page(Perm.MANAGE_WORKFLOWS)
def workflow_migration(request, actor, workflow_id: int, migration_id):
    workflow = _workflow(actor, workflow_id)
    try:
        migration = get_scoped(VersionMigration, actor.workspace, migration_id)
    except PlatformError:
        raise Http404 from None
    if migration.workflow_id != workflow.id:
        raise Http404
    context = {"workflow": workflow, "migration": migration}
    if request.headers.get("HX-Request") == "true":
        return render(request, "automation/_migration_progress.html", context)
    return render(request, "automation/workflow_migration.html", context)


def migrate_url(workflow: Workflow, *, from_id: int | None = None, campaign_id: int | None = None) -> str:
    query = {k: v for k, v in (("from", from_id), ("campaign", campaign_id)) if v}
    base = reverse("workflow-migrate", kwargs={"workflow_id": workflow.id})
    return f"{base}?{urlencode(query)}" if query else base


def after_publish(request, workflow: Workflow):
    """Publishing opens the migration step when older versions still have live executions."""
    olds = versions_with_live(workflow)
    if not olds:
        return None
    live = sum(n for _, n in olds)
    messages.info(request, f"{fa_digits(live)} اجرا هنوز روی نسخه‌های قبلی است؛ بگویید کجا بروند.")
    return redirect(migrate_url(workflow))
