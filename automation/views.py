"""Persian workflow pages: list, create, details (versions, diff, campaigns, publish, archive, template)
and the step-list builder. Thin: read through selectors, write through ``automation.services.workflows``
(the same services as the API); the builder edits a ``WorkflowSequence`` and saves its compiled graph."""

from __future__ import annotations

import json
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from automation import workflow_selectors as selectors
from automation.builder import editing
from automation.builder.sequence import (
    SequenceError,
    WorkflowSequence,
    format_path,
    parse_path,
    try_decompile,
    validate_sequence,
)
from automation.choices import VersionStatus, WorkflowStatus
from automation.engine.graph import graph_of_version
from automation.engine.registry import ACTIONS, VARIABLES
from automation.errors import GraphInvalid
from automation.migration_views import after_publish
from automation.models import Workflow
from automation.services import workflows as services
from campaigns.models import Membership
from campaigns.notifications.models import ActivityKind
from campaigns.platform.errors import PlatformError, ValidationFailed
from campaigns.platform.jalali import fa_digits
from campaigns.platform.pages import refusal_shown, workspace_page
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import scoped

BUILDER_ERROR = "گردش‌کار در این فاصله تغییر کرده است؛ صفحه را دوباره باز کنید."


def _workflow(actor, workflow_id: int) -> Workflow:
    try:
        return selectors.workflow_page_get(actor=actor, workflow_id=workflow_id)
    except PlatformError:
        raise Http404 from None


def _is_htmx(request) -> bool:
    return request.headers.get("HX-Request") == "true"


# --- list and create --------------------------------------------------------------------------------


@workspace_page(Perm.MANAGE_WORKFLOWS)
def workflow_list(request, actor):
    category = request.GET.get("category", "")[:30]
    status = request.GET.get("status", "")
    status = status if status in WorkflowStatus.values else ""
    context = {
        "workflows": selectors.workflow_rows(actor=actor, category=category, status=status),
        "categories": selectors.workflow_categories(actor=actor),
        "statuses": WorkflowStatus.choices,
        "category": category,
        "status": status,
    }
    return render(request, "automation/workflow_list.html", context)


@workspace_page(Perm.MANAGE_WORKFLOWS)
def workflow_new(request, actor):
    templates = services.workflow_templates(actor=actor)
    chosen = request.POST.get("template", "blank")
    errors: dict[str, str] = {}
    if request.method == "POST":
        template, template_id = None, None
        if chosen.startswith("builtin:"):
            template = chosen.removeprefix("builtin:")
        elif chosen.startswith("own:") and chosen.removeprefix("own:").isdigit():
            template_id = int(chosen.removeprefix("own:"))
        try:
            workflow = services.workflow_create(
                actor=actor,
                name=request.POST.get("name", ""),
                description=request.POST.get("description", ""),
                category=request.POST.get("category", ""),
                template=template,
                template_id=template_id,
            )
        except PlatformError as exc:
            for name, problems in (exc.details or {"form": [exc.message]}).items():
                errors[name] = " ".join(map(str, problems if isinstance(problems, list) else [problems]))
        else:
            messages.success(request, f"گردش‌کار «{workflow.name}» ساخته شد.")
            return redirect("workflow-builder", workflow_id=workflow.id)
    context = {
        "templates": templates,
        "chosen": chosen,
        "errors": errors,
        "data": request.POST,
        "categories": selectors.workflow_categories(actor=actor),
    }
    return render(request, "automation/workflow_new.html", context, status=400 if errors else 200)


# --- details ------------------------------------------------------------------------------------------


@workspace_page(Perm.MANAGE_WORKFLOWS)
def workflow_detail(request, actor, workflow_id: int):
    workflow = _workflow(actor, workflow_id)
    rows = selectors.workflow_versions(actor=actor, workflow=workflow)
    ids = [r.version.id for r in rows]
    diff, diff_pair = None, None
    old, new = request.GET.get("from", ""), request.GET.get("to", "")
    if old.isdigit() and new.isdigit() and int(old) in ids and int(new) in ids:
        diff_pair = (int(old), int(new))
        diff = selectors.versions_diff(actor=actor, workflow=workflow, old_id=int(old), new_id=int(new))
    elif len(rows) >= 2:
        diff_pair = (rows[1].version.id, rows[0].version.id)
    draft = next((r.version for r in rows if r.version.status == VersionStatus.DRAFT), None)
    problems = []
    if draft is not None:
        sequence, _ = try_decompile(graph_of_version(draft))
        if sequence is not None:
            problems = validate_sequence(sequence)
    context = {
        "workflow": workflow,
        "rows": rows,
        "draft": draft,
        "draft_problems": problems,
        "in_use": selectors.workflow_in_use(rows),
        "diff": diff,
        "diff_pair": diff_pair,
        "text_changes": selectors.workflow_text_changes(actor=actor, workflow=workflow),
    }
    return render(request, "automation/workflow_detail.html", context)


def _back(request, workflow_id: int, default: str = "workflow-detail"):
    target = request.POST.get("next")
    if target == "builder":
        return redirect("workflow-builder", workflow_id=workflow_id)
    return redirect(default, workflow_id=workflow_id)


@require_POST
@workspace_page(Perm.MANAGE_WORKFLOWS)
def workflow_publish(request, actor, workflow_id: int):
    workflow = _workflow(actor, workflow_id)
    try:
        version = services.workflow_publish(actor=actor, workflow_id=workflow.id, note=request.POST.get("note", ""))
    except GraphInvalid:
        messages.error(request, "گردش‌کار ایراد دارد و منتشر نشد؛ ایرادهای فهرست بالای صفحه را برطرف کنید.")
        return redirect("workflow-builder", workflow_id=workflow.id)
    except PlatformError as exc:
        messages.error(request, exc.message)
        return _back(request, workflow.id)
    messages.success(request, f"نسخه {fa_digits(version.version_number)} منتشر شد.")
    workflow.refresh_from_db()
    return after_publish(request, workflow) or redirect("workflow-detail", workflow_id=workflow.id)


@require_POST
@workspace_page(Perm.MANAGE_WORKFLOWS)
def workflow_new_draft(request, actor, workflow_id: int):
    workflow = _workflow(actor, workflow_id)
    try:
        version = services.workflow_new_draft(actor=actor, workflow_id=workflow.id)
    except PlatformError as exc:
        messages.error(request, exc.message)
        return _back(request, workflow.id)
    messages.success(request, f"پیش‌نویس نسخه {fa_digits(version.version_number)} ساخته شد.")
    return redirect("workflow-builder", workflow_id=workflow.id)


@require_POST
@workspace_page(Perm.MANAGE_WORKFLOWS)
def workflow_archive(request, actor, workflow_id: int):
    workflow = _workflow(actor, workflow_id)
    with refusal_shown(request):
        services.workflow_archive(actor=actor, workflow_id=workflow.id)
        messages.success(request, f"گردش‌کار «{workflow.name}» بایگانی شد.")
    return redirect("workflow-detail", workflow_id=workflow.id)


@require_POST
@workspace_page(Perm.MANAGE_WORKFLOWS)
def workflow_save_template(request, actor, workflow_id: int):
    workflow = _workflow(actor, workflow_id)
    with refusal_shown(request):
        template = services.workflow_template_save(
            actor=actor,
            workflow_id=workflow.id,
            name=request.POST.get("name", ""),
            description=request.POST.get("description", ""),
        )
        messages.success(request, f"قالب «{template.name}» ذخیره شد و در ساخت گردش‌کار تازه قابل انتخاب است.")
    return redirect("workflow-detail", workflow_id=workflow.id)


# --- builder ------------------------------------------------------------------------------------------


def _builder_state(actor, workflow):
    version = selectors.builder_version(actor=actor, workflow=workflow)
    if version is None:
        raise Http404
    graph = graph_of_version(version)
    sequence, undrawable = try_decompile(graph)
    return version, graph, sequence, undrawable


def _builder_context(request, actor, workflow, *, error: str = ""):
    version, graph, sequence, undrawable = _builder_state(actor, workflow)
    context = {
        "workflow": workflow,
        "version": version,
        "editable": version.status == VersionStatus.DRAFT and sequence is not None,
        "undrawable": undrawable,
        "graph_rows": editing.graph_rows(graph, undrawable.node_key) if undrawable else [],
        "open_step": request.GET.get("open", ""),
        "error": error,
        "variables": [v for _, v in VARIABLES],
        "step_kinds": editing.step_kinds(),
        "units": editing.UNITS,
        "end_behaviors": editing.END_BEHAVIORS,
        "on_exhausted": editing.ON_EXHAUSTED,
        "strategies": editing.STRATEGIES,
        "condition_fields": editing.condition_fields(),
        "condition_facts": editing.condition_facts(),
        "wait_end_facts": editing.wait_end_facts(),
        "operators": editing.operators(),
        "window_rows": editing.window_rows(version.settings),
        "window_enabled": bool((version.settings or {}).get("send_window")),
        "defaults": editing.defaults_view(version.settings),
        "members": scoped(Membership, actor.workspace).select_related("user").order_by("user__username"),
        "activity_kinds": ActivityKind.choices,
        "followup_units": editing.UNITS,
    }
    if sequence is not None:
        problems = validate_sequence(sequence)
        context |= {
            "sequence": sequence,
            "problems": problems,
            "problem_rows": editing.problem_rows(sequence, problems),
            "cards": editing.step_cards(sequence, problems),
            "main_open": editing.main_list_open(sequence),
            "loop_targets": editing.loop_targets(sequence),
        }
    return context


def _render_builder(request, actor, workflow, *, error: str = "", status: int = 200, open_step: str = ""):
    context = _builder_context(request, actor, workflow, error=error)
    if open_step:
        context["open_step"] = open_step
    template = "automation/_builder.html" if _is_htmx(request) else "automation/builder.html"
    return render(request, template, context, status=status)


@workspace_page(Perm.MANAGE_WORKFLOWS)
def workflow_builder(request, actor, workflow_id: int):
    workflow = _workflow(actor, workflow_id)
    return _render_builder(request, actor, workflow)


def _edit(request, actor, workflow_id: int, change, *, open_editor: bool = False) -> HttpResponse:
    """Apply ``change(sequence) → sequence`` to the draft and save it through the graph service.

    ``open_editor``: the changed step's editor opens at once (a step just added is incomplete on purpose)."""
    workflow = _workflow(actor, workflow_id)
    version, _graph, sequence, _undrawable = _builder_state(actor, workflow)
    error, anchor = "", ""
    if version.status != VersionStatus.DRAFT or sequence is None:
        error = "این نسخه قابل ویرایش نیست."
    else:
        try:
            changed, anchor = change(sequence)
            services.workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=changed.compile())
        except (SequenceError, ValueError, KeyError):
            error = BUILDER_ERROR
        except PlatformError as exc:
            error = exc.message
    if _is_htmx(request):
        opened = anchor if anchor and open_editor and not error else ""
        response = _render_builder(request, actor, workflow, error=error, open_step=opened)
        if anchor and not error and not open_editor:
            response["HX-Trigger-After-Settle"] = json.dumps({"builder:focus": anchor})
        return response
    if error:
        messages.error(request, error)
    url = reverse("workflow-builder", kwargs={"workflow_id": workflow.id})
    if anchor and not error and open_editor:
        url += "?" + urlencode({"open": anchor})
    return redirect(f"{url}#step-{anchor}" if anchor and not error else url)


def _checked_path(sequence: WorkflowSequence, request):
    path = parse_path(request.POST.get("path", ""))
    if sequence.step_at(path).key != request.POST.get("key"):
        raise SequenceError("the step moved")
    return path


@require_POST
@workspace_page(Perm.MANAGE_WORKFLOWS)
def builder_add(request, actor, workflow_id: int):
    kind = request.POST.get("kind", "")

    def change(sequence: WorkflowSequence):
        at = parse_path(request.POST.get("at", ""))
        step = editing.new_step(kind, sequence=sequence, at=at)
        changed = sequence.insert(at, step)
        return changed, format_path(changed.path_of(step.key))

    return _edit(request, actor, workflow_id, change, open_editor=True)


@require_POST
@workspace_page(Perm.MANAGE_WORKFLOWS)
def builder_step(request, actor, workflow_id: int):
    def change(sequence: WorkflowSequence):
        path = _checked_path(sequence, request)
        step = editing.step_from_form(sequence.step_at(path), request.POST, timezone=actor.workspace.time_zone)
        return sequence.replace_step(path, step), format_path(path)

    return _edit(request, actor, workflow_id, change)


@require_POST
@workspace_page(Perm.MANAGE_WORKFLOWS)
def builder_remove(request, actor, workflow_id: int):
    def change(sequence: WorkflowSequence):
        path = _checked_path(sequence, request)
        return sequence.remove(path), ""

    return _edit(request, actor, workflow_id, change)


@require_POST
@workspace_page(Perm.MANAGE_WORKFLOWS)
def builder_window(request, actor, workflow_id: int):
    """The journey-wide send window (Saturday → Friday), saved through the workflow service."""
    workflow = _workflow(actor, workflow_id)
    version = selectors.builder_version(actor=actor, workflow=workflow)
    error = ""
    if version is None or version.status != VersionStatus.DRAFT:
        error = "این نسخه قابل ویرایش نیست."
    else:
        current = (version.settings or {}).get("send_window") or {}
        tz = (current.get("timezone") if isinstance(current, dict) else None) or actor.workspace.time_zone
        try:
            window = editing.window_from_form(request.POST, timezone=tz or "Asia/Tehran")
            services.workflow_send_window_save(actor=actor, workflow_id=workflow.id, window=window)
        except ValueError:
            error = "بازه‌ها را به شکل ۰۹:۰۰-۱۸:۰۰ بنویسید؛ چند بازه را با ویرگول جدا کنید."
        except ValidationFailed as exc:
            error = exc.message
            if "send_window" in (exc.details or {}):
                error = "بازه ارسال نامعتبر است؛ دست‌کم یک روز باید باز باشد و پایان هر بازه بعد از آغاز آن باشد."
        except PlatformError as exc:
            error = exc.message
    return _builder_saved(request, actor, workflow, error=error, done="بازه ارسال ذخیره شد.", anchor="send-window")


@require_POST
@workspace_page(Perm.MANAGE_WORKFLOWS)
def builder_defaults(request, actor, workflow_id: int):
    """The workflow-wide defaults (daily limit, retry, unknown outcome), saved through the workflow service."""
    workflow = _workflow(actor, workflow_id)
    error = ""
    try:
        values = editing.defaults_from_form(request.POST)
        services.workflow_defaults_save(actor=actor, workflow_id=workflow.id, **values)
    except ValidationFailed as exc:
        problems = [m for messages_ in (exc.details or {}).values() if isinstance(messages_, list) for m in messages_]
        error = " ".join(str(m) for m in problems) or exc.message
    except PlatformError as exc:
        error = exc.message
    return _builder_saved(request, actor, workflow, error=error, done="پیش‌فرض‌های گردش‌کار ذخیره شد.", anchor="defaults")


def _builder_saved(request, actor, workflow, *, error: str, done: str, anchor: str):
    """A workflow-wide form's answer: the builder again (htmx), else back to its section with a message."""
    if _is_htmx(request):
        return _render_builder(request, actor, workflow, error=error)
    if error:
        messages.error(request, error)
    else:
        messages.success(request, done)
    return redirect(reverse("workflow-builder", kwargs={"workflow_id": workflow.id}) + f"#{anchor}")


@require_POST
@workspace_page(Perm.MANAGE_WORKFLOWS)
def builder_preview(request, actor, workflow_id: int):
    """Live preview of an action step for a sample target (the action's own preview hook)."""
    _workflow(actor, workflow_id)
    action = ACTIONS.get(request.POST.get("step_action", ""))
    if action is None:
        raise Http404
    config = {name.removeprefix("cfg_"): value for name, value in request.POST.items() if name.startswith("cfg_")}
    target = selectors.sample_target(actor=actor)
    preview = action.preview(config, target)
    return render(request, "automation/_preview.html", {"preview": preview, "target": target})
