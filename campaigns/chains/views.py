"""Persian pages for groups, follow-up chains, approval packages and runs.

Thin: parse a form, call the same service or selector the API calls
(``campaigns.chains.services``, ``campaigns.chains.selectors``,
``campaigns.chains.runs.selectors``), render. Service errors (stale revision,
chain submitted/locked, invalid chain …) become messages on the page; another
workspace's object answers 404; a write the role may not do answers 403.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.http import Http404, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from campaigns.chains import page_forms as pf
from campaigns.chains import page_selectors
from campaigns.chains import selectors as chain_selectors
from campaigns.chains.audience import audience_preview
from campaigns.chains.choices import ChainControl, InheritanceType, PackageStatus
from campaigns.chains.node_models import ChainNode
from campaigns.chains.nodes import node_get
from campaigns.chains.preview import inheritance_preview, root_preview
from campaigns.chains.runs import lift as lift_math
from campaigns.chains.runs import manual as manual_runs
from campaigns.chains.runs import selectors as run_selectors
from campaigns.chains.runs.choices import TERMINAL, RunStatus, RunType, SnapshotStatus, WaitReason
from campaigns.chains.runs.export import run_audience_xlsx
from campaigns.chains.runs.scheduler import delivery_report_end
from campaigns.chains.services import approval
from campaigns.chains.services import chains as chain_services
from campaigns.chains.services import groups as group_services
from campaigns.choices import CampaignStatus, CapPriority, TargetStatus
from campaigns.platform.errors import PlatformError
from campaigns.platform.jalali import fa_digits
from campaigns.platform.pages import refusal_shown, workspace_page
from campaigns.platform.pagination import COUNT_CAP, CappedPaginator
from campaigns.platform.permissions import Perm
from campaigns.platform.registry import campaign_check, package_check
from campaigns.platform.tenancy import members_of
from campaigns.platform.text import typed_int
from campaigns.platform.widgets import WeekWindowForm
from campaigns.selectors import target_list_queryset

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _error_text(exc: PlatformError) -> str:
    """The service's message plus what it names (invalid nodes, field problems)."""
    parts = [exc.message]
    details = exc.details if isinstance(exc.details, dict) else {}
    for node in details.get("nodes") or []:
        reasons = "؛ ".join(r.get("message", "") for r in node.get("reasons") or [])
        parts.append(f"«{node.get('name') or node.get('campaign_id')}»: {reasons}")
    for name, problems in pf.field_errors(details).items():
        if name != "form" or problems != exc.message:
            parts.append(problems)
    return " ".join(parts)


def _int(value) -> int | None:
    text = pf.latin(value)
    return typed_int(text)


def _back(request, default: str):
    """Return to the page the form was on (a local path only)."""
    target = request.POST.get("next") or ""
    if target.startswith("/") and not target.startswith("//"):
        return redirect(target)
    return redirect(default)


# --- groups -----------------------------------------------------------------------------------------------


@workspace_page(Perm.VIEW)
def group_list(request, actor):
    query = (request.GET.get("q") or "").strip()
    page = CappedPaginator(page_selectors.group_rows(actor=actor, query=query), 25).get_page(request.GET.get("page"))
    page_selectors.attach_counts(actor=actor, groups=list(page.object_list))
    context = {
        "page": page,
        "q": query,
        "can_manage": actor.has(Perm.MANAGE_CAMPAIGNS),
        "form": {},
        "errors": {},
    }
    if request.headers.get("HX-Request") == "true":
        return render(request, "chains/_group_rows.html", context)
    return render(request, "chains/group_list.html", context)


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def group_create(request, actor):
    try:
        group = group_services.group_create(
            actor=actor, name=request.POST.get("name", ""), description=request.POST.get("description", "")
        )
    except PlatformError as exc:
        page = CappedPaginator(page_selectors.group_rows(actor=actor, query=""), 25).get_page(1)
        page_selectors.attach_counts(actor=actor, groups=list(page.object_list))
        context = {
            "page": page,
            "q": "",
            "can_manage": True,
            "form": request.POST,
            "errors": pf.field_errors(exc.details) or {"form": exc.message},
            "open_dialog": "dlg-group-new",
        }
        return render(request, "chains/group_list.html", context, status=409 if exc.http_status == 409 else 400)
    messages.success(request, f"گروه «{group.name}» ساخته شد.")
    return redirect("chain-group", group_id=group.id)


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def group_edit(request, actor, group_id: int):
    group = chain_selectors.group_get(actor=actor, group_id=group_id)
    with refusal_shown(request, text=_error_text):
        group_services.group_update(
            actor=actor,
            group_id=group.id,
            expected_revision=_int(request.POST.get("expected_revision")) or 0,
            name=request.POST.get("name", ""),
            description=request.POST.get("description", ""),
        )
        messages.success(request, "گروه ذخیره شد.")
    return _back(request, reverse("chain-group", args=[group.id]))


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def group_archive(request, actor, group_id: int):
    group = chain_selectors.group_get(actor=actor, group_id=group_id)
    try:
        group_services.group_delete(
            actor=actor, group_id=group.id, expected_revision=_int(request.POST.get("expected_revision")) or 0
        )
    except PlatformError as exc:
        text = exc.message
        blocking = (exc.details or {}).get("blocking_chains") or []
        names = [b.get("name") for b in blocking if isinstance(b, dict) and b.get("name")]
        if names:
            text += " زنجیره‌ها: " + "، ".join(f"«{n}»" for n in names)
        messages.error(request, text)
        return redirect("chain-group", group_id=group.id)
    messages.success(request, f"گروه «{group.name}» بایگانی شد.")
    return redirect("chain-groups")


@workspace_page(Perm.VIEW)
def group_tree(request, actor, group_id: int):
    group = chain_selectors.group_get(actor=actor, group_id=group_id)
    query = (request.GET.get("q") or "").strip()
    page = _int(request.GET.get("page")) or 1
    tree = page_selectors.group_tree(actor=actor, group_id=group.id, query=query, page=page)
    page_selectors.attach_counts(actor=actor, groups=[group])
    context = {
        "group": group,
        "tree": tree,
        "q": query,
        "page_number": page,
        "can_manage": actor.has(Perm.MANAGE_CAMPAIGNS),
        "can_approve": actor.has(Perm.APPROVE_CHAINS),
        "free_campaigns": page_selectors.free_campaigns(actor=actor) if actor.has(Perm.MANAGE_CAMPAIGNS) else [],
        "move_groups": page_selectors.other_groups(actor=actor, group_id=group.id)
        if actor.has(Perm.MANAGE_CAMPAIGNS)
        else [],
    }
    if request.headers.get("HX-Request") == "true" and request.headers.get("HX-Target") == "tree":
        return render(request, "chains/_tree.html", context)
    return render(request, "chains/group_tree.html", context)


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def group_add(request, actor, group_id: int):
    """Add independent campaigns to the group (``POST /campaign-groups/{id}/campaigns``); refusals are named."""
    group = chain_selectors.group_get(actor=actor, group_id=group_id)
    ids = [i for i in (_int(v) for v in request.POST.getlist("campaign_ids")) if i]
    with refusal_shown(request, text=_error_text):
        result = group_services.group_add_campaigns(
            actor=actor,
            group_id=group.id,
            campaign_ids=ids,
            expected_revision=_int(request.POST.get("expected_revision")),
        )
        if result.added_ids:
            messages.success(request, f"{fa_digits(len(result.added_ids))} کمپین به گروه افزوده شد.")
        for item in result.rejected_items:
            messages.error(request, f"کمپین #{fa_digits(item['campaign_id'])}: {item['message']}")
    return redirect("chain-group", group_id=group.id)


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def chain_campaign_clone(request, actor, campaign_id: int):
    """Clone a root with its whole tree, a draft child under the same source, or an independent campaign."""
    campaign = node_get(actor.workspace, campaign_id)
    try:
        copy, id_map = chain_services.chain_campaign_clone(actor=actor, campaign_id=campaign.id)
    except PlatformError as exc:
        messages.error(request, _error_text(exc))
        return _back(request, reverse("chain-groups"))
    count = fa_digits(len(id_map))
    messages.success(request, f"«{copy.name}» ساخته شد ({count} کمپین، پیش‌نویس).")
    if copy.group_id:
        return redirect(f"{reverse('chain-group', args=[copy.group_id])}#node-{copy.id}")
    return _back(request, reverse("chain-groups"))


# --- chain campaign create / edit -------------------------------------------------------------------------


def _form_context(
    actor, group, *, campaign=None, parent=None, data=None, errors=None, affected=None, window=None
) -> dict:
    is_child = parent is not None or (campaign is not None and campaign.parent_id is not None)
    sources = (
        chain_selectors.inheritance_sources(
            actor=actor, group_id=group.id, campaign_id=campaign.id if campaign else None
        )
        if is_child
        else []
    )
    current_source = parent.id if parent is not None else (campaign.parent_id if campaign is not None else None)
    if current_source and not any(s["campaign_id"] == current_source for s in sources):
        source = node_get(actor.workspace, current_source)
        sources.insert(0, {"campaign_id": source.id, "name": source.name, "root_campaign_id": source.root_id})
    root_ids = {s["root_campaign_id"] or s["campaign_id"] for s in sources}
    root_revisions = {
        c.id: c.chain_revision
        for c in ChainNode.objects.filter(pk__in=root_ids, workspace=actor.workspace).only("id", "chain_revision")
    }
    for source in sources:
        source["chain_revision"] = root_revisions.get(source["root_campaign_id"] or source["campaign_id"])
    return {
        "group": group,
        "campaign": campaign,
        "parent": parent,
        "is_child": is_child,
        "sources": sources,
        "data": data or {},
        "errors": errors or {},
        "affected": affected or [],
        "inherit_types": InheritanceType.choices,
        "child_types": pf.CHILD_TYPES,
        "root_types": pf.ROOT_TYPES,
        "weekdays": list(pf.WEEKDAY_LABELS.items()),
        "weeks": list(pf.WEEK_LABELS.items()),
        "target_statuses": TargetStatus.choices,
        "cap_priorities": CapPriority.choices,
        "channels": pf.channel_choices(),
        "target_lists": [] if is_child else list(target_list_queryset(actor=actor)),
        "members": [] if is_child else members_of(actor.workspace),
        "window": window or _window_form(actor, campaign),
    }


def _window_form(actor, campaign=None, post=None) -> WeekWindowForm:
    """The node's own send window (the same 24-hour week inputs as the journey campaign pages)."""
    config = campaign.send_window if campaign is not None else None
    return WeekWindowForm(post, config=config, time_zone=actor.workspace.time_zone)


def _window_payload(window: WeekWindowForm, post, payload: dict, errors: dict) -> None:
    """``send_window`` from the week inputs; a window the page cannot show (several intervals a day) is kept."""
    if post.get("window_kept") or not window.window_editable:
        return
    config = window.window_config() if window.is_valid() else None
    if window.errors:
        errors["send_window"] = "ساعت‌های بازه ارسال را بررسی کنید."
    else:
        payload["send_window"] = config


def _chain_payload(post, *, is_child: bool, errors: dict) -> dict:
    payload = {
        "name": post.get("name", ""),
        "description": post.get("description", ""),
        "chain_action": pf.action_from_post(post),
    }
    payload["daily_limit"] = pf.daily_limit_from_post(post, errors)
    if "frequency_cap_priority" in post:
        payload["frequency_cap_priority"] = post.get("frequency_cap_priority") or CapPriority.NORMAL
    window = pf.window_from_post(post, errors)
    if window is not None:
        payload["attribution_window_days"] = window
    if is_child:
        payload["inheritance"] = pf.inheritance_from_post(post)
    else:
        payload["when"] = pf.when_from_post(post, errors)
        payload["goal"] = pf.goal_from_post(post)
        payload["source_target_list_id"], payload["audience_filters"] = pf.audience_from_post(post)
    return payload


@workspace_page(Perm.MANAGE_CAMPAIGNS)
def chain_campaign_new(request, actor, group_id: int):
    group = chain_selectors.group_get(actor=actor, group_id=group_id)
    parent_id = _int(request.POST.get("parent") if request.method == "POST" else request.GET.get("parent"))
    parent = node_get(actor.workspace, parent_id) if parent_id else None
    if parent is not None and parent.group_id != group.id:
        raise Http404
    if request.method != "POST":
        data = dict(pf.NEW_CHILD_DEFAULTS if parent else pf.NEW_ROOT_DEFAULTS, action_channel=pf.default_channel())
        data["parent"] = str(parent.id) if parent else ""
        return render(request, "chains/campaign_form.html", _form_context(actor, group, parent=parent, data=data))
    errors: dict[str, str] = {}
    payload = _chain_payload(request.POST, is_child=parent is not None, errors=errors)
    window = _window_form(actor, post=request.POST)
    _window_payload(window, request.POST, payload, errors)
    if not errors:
        try:
            campaign = chain_services.chain_campaign_create(
                actor=actor,
                campaign_group_id=group.id,
                parent_campaign_id=parent.id if parent else None,
                expected_chain_revision=_int(request.POST.get(f"root_revision_{parent.id}")) if parent else None,
                **payload,
            )
        except PlatformError as exc:
            errors = pf.field_errors(exc.details)
            if not errors or exc.http_status == 409:
                errors["form"] = _error_text(exc)
        else:
            messages.success(request, f"کمپین «{campaign.name}» ساخته شد.")
            return redirect(f"{reverse('chain-group', args=[group.id])}#node-{campaign.id}")
    data = pf.initial_from_post(request.POST)
    context = _form_context(actor, group, parent=parent, data=data, errors=errors, window=window)
    return render(request, "chains/campaign_form.html", context, status=400)


@workspace_page(Perm.MANAGE_CAMPAIGNS)
def chain_campaign_edit(request, actor, campaign_id: int):
    campaign = node_get(actor.workspace, campaign_id)
    if campaign.group_id is None:
        raise Http404
    group = chain_selectors.group_get(actor=actor, group_id=campaign.group_id)
    root = node_get(actor.workspace, campaign.root_id) if campaign.root_id else campaign
    if request.method != "POST":
        data = pf.initial_from_campaign(campaign)
        data["expected_chain_revision"] = str(root.chain_revision)
        return render(request, "chains/campaign_form.html", _form_context(actor, group, campaign=campaign, data=data))
    errors: dict[str, str] = {}
    is_child = campaign.parent_id is not None
    data = _chain_payload(request.POST, is_child=is_child, errors=errors)
    window = _window_form(actor, campaign, post=request.POST)
    _window_payload(window, request.POST, data, errors)
    affected = []
    if is_child:
        new_parent = _int(request.POST.get("parent"))
        if new_parent and new_parent != campaign.parent_id:
            data["parent_campaign_id"] = new_parent
    if not errors:
        try:
            chain_services.chain_campaign_update(
                actor=actor,
                campaign_id=campaign.id,
                data=data,
                expected_chain_revision=_int(request.POST.get("expected_chain_revision")),
                expected_target_chain_revision=_int(request.POST.get(f"root_revision_{request.POST.get('parent')}")),
                accept_affected=request.POST.get("accept_affected") == "1",
            )
        except PlatformError as exc:
            errors = pf.field_errors(exc.details)
            affected = (exc.details or {}).get("affected_campaigns") or []
            if not errors or exc.http_status == 409:
                errors["form"] = _error_text(exc)
        else:
            messages.success(request, f"کمپین «{data['name'].strip() or campaign.name}» ذخیره شد.")
            return redirect(f"{reverse('chain-group', args=[group.id])}#node-{campaign.id}")
    posted = pf.initial_from_post(request.POST)
    context = _form_context(
        actor, group, campaign=campaign, data=posted, errors=errors, affected=affected, window=window
    )
    return render(request, "chains/campaign_form.html", context, status=409 if affected else 400)


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def chain_campaign_delete(request, actor, campaign_id: int):
    campaign = node_get(actor.workspace, campaign_id)
    with refusal_shown(request, text=_error_text):
        chain_services.chain_campaign_delete(
            actor=actor,
            campaign_id=campaign.id,
            expected_chain_revision=_int(request.POST.get("expected_chain_revision")),
        )
        messages.success(request, f"کمپین «{campaign.name}» حذف شد.")
    return _back(request, reverse("chain-groups"))


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def inheritance_preview_partial(request, actor):
    """The API's preview (``POST /campaign/inheritance/preview``) for the form's source and timing."""
    source_id = _int(request.POST.get("parent"))
    if source_id is None:
        return render(request, "chains/_preview.html", {"errors": {"parent": "منبع را انتخاب کنید."}})
    result = inheritance_preview(
        actor=actor, source_campaign_id=source_id, schedule=pf.inheritance_schedule_from_post(request.POST), periods=4
    )
    context = {"result": result, "errors": pf.field_errors(result["errors"])}
    return render(request, "chains/_preview.html", context)


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def root_preview_partial(request, actor):
    """The root form's next run dates (Jalali, in the workspace's time zone) for the schedule being typed."""
    errors: dict[str, str] = {}
    when = pf.when_from_post(request.POST, errors)
    result = root_preview(actor=actor, when=when) if not errors else None
    if result is not None:
        errors = pf.field_errors(result["errors"])
    return render(request, "chains/_root_preview.html", {"result": result, "errors": errors})


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def audience_count_partial(request, actor):
    """The live reach of the form's list and filters (the API's ``POST /campaign/audience/count``)."""
    list_id, filters = pf.audience_from_post(request.POST)
    if list_id is None:
        return render(request, "chains/_audience_count.html", {"error": "فهرست مخاطبان را انتخاب کنید."})
    try:
        result = audience_preview(actor=actor, source_target_list_id=list_id, audience_filters=filters, cap=COUNT_CAP)
    except PlatformError as exc:
        text = " ".join(pf.field_errors(exc.details).values()) or exc.message
        return render(request, "chains/_audience_count.html", {"error": text})
    return render(request, "chains/_audience_count.html", {"result": result})


# --- submit, approval packages, chain control ---------------------------------------------------------------


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def chain_submit(request, actor, campaign_id: int):
    campaign = node_get(actor.workspace, campaign_id)
    try:
        _, package = approval.campaign_submit(
            actor=actor,
            campaign_id=campaign.id,
            expected_chain_revision=_int(request.POST.get("expected_chain_revision")),
        )
    except PlatformError as exc:
        messages.error(request, _error_text(exc))
        return _back(request, reverse("chain-groups"))
    if package is None:
        messages.success(request, f"کمپین «{campaign.name}» برای تأیید ارسال شد.")
        return _back(request, reverse("chain-groups"))
    messages.success(request, f"زنجیره «{campaign.name}» برای تأیید ارسال شد.")
    return redirect("chain-package", package_id=package.id)


@workspace_page(Perm.VIEW)
def package_list(request, actor):
    status = request.GET.get("status", PackageStatus.SUBMITTED)
    if status not in PackageStatus.values:
        status = ""
    page = CappedPaginator(page_selectors.package_queryset(actor=actor, status=status), 25).get_page(
        request.GET.get("page")
    )
    context = {
        "page": page,
        "status": status,
        "statuses": PackageStatus.choices,
        "singles": _with_checks(actor, page_selectors.pending_single_campaigns(actor=actor)),
        "can_approve": actor.has(Perm.APPROVE_CHAINS),
    }
    return render(request, "chains/package_list.html", context)


def _with_checks(actor, campaigns: list) -> list:
    """Each standalone campaign with its launch check's blockers (they disable its Approve)."""
    for campaign in campaigns:
        campaign.launch_blockers = (campaign_check(actor=actor, campaign_id=campaign.id) or {}).get("blockers") or []
    return campaigns


@workspace_page(Perm.VIEW)
def package_detail(request, actor, package_id: int):
    context = page_selectors.package_page(actor=actor, package_id=package_id)
    # What approving would send (shown: a run starts later, so its blockers are to be fixed before the first run).
    if context["package"].status == PackageStatus.SUBMITTED:
        context["launch"] = package_check(actor=actor, package_id=context["package"].id)
    context["can_approve"] = actor.has(Perm.APPROVE_CHAINS)
    context["can_manage"] = actor.has(Perm.MANAGE_CAMPAIGNS)
    names = {r["campaign_id"]: r["name"] for r in context["rows"]}
    for warning in context["warnings"]:
        warning["name"] = names.get(warning.get("campaign_id"))
    return render(request, "chains/package_detail.html", context)


def _decide(request, actor, package_id: int, action: str):
    package = chain_selectors.package_get(actor=actor, package_id=package_id)
    expected = _int(request.POST.get("expected_submitted_revision")) or 0
    try:
        if action == "approve":  # the service refuses while the launch check has blockers (LAUNCH_BLOCKED)
            package, warnings = approval.package_approve(
                actor=actor, package_id=package.id, expected_submitted_revision=expected
            )
            names = {item["campaign_id"]: item.get("name") for item in package.items}
            for warning in warnings:
                messages.warning(
                    request, f"«{names.get(warning.get('campaign_id'), '')}»: {warning.get('message', '')}"
                )
            messages.success(request, "زنجیره تأیید شد و در انتظار نخستین اجرا است.")
        elif action == "reject":
            reason = (request.POST.get("reason") or "").strip()
            if not reason:
                messages.error(request, "دلیل رد را بنویسید.")
                return redirect("chain-package", package_id=package.id)
            approval.package_reject(
                actor=actor, package_id=package.id, expected_submitted_revision=expected, reason=reason[:1000]
            )
            messages.success(request, "بسته رد شد؛ زنجیره برای اصلاح باز است.")
        else:
            approval.package_withdraw(actor=actor, package_id=package.id, expected_submitted_revision=expected)
            messages.success(request, "درخواست تأیید پس گرفته شد؛ زنجیره دوباره پیش‌نویس است.")
    except PlatformError as exc:
        messages.error(request, _error_text(exc))
    return redirect("chain-package", package_id=package.id)


@require_POST
@workspace_page(Perm.APPROVE_CHAINS)
def package_approve(request, actor, package_id: int):
    return _decide(request, actor, package_id, "approve")


@require_POST
@workspace_page(Perm.APPROVE_CHAINS)
def package_reject(request, actor, package_id: int):
    return _decide(request, actor, package_id, "reject")


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def package_withdraw(request, actor, package_id: int):
    return _decide(request, actor, package_id, "withdraw")


CONTROL_DONE = {
    "pause": "زنجیره متوقف موقت شد؛ اجراهای شروع‌نشده رد شدند.",
    "resume": "زنجیره ادامه یافت.",
    "stop": "زنجیره برای همیشه متوقف شد.",
}


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def chain_control(request, actor, campaign_id: int, action: str):
    if action not in CONTROL_DONE:
        raise Http404
    campaign = node_get(actor.workspace, campaign_id)
    with refusal_shown(request, text=_error_text):
        approval.chain_control_set(
            actor=actor,
            campaign_id=campaign.id,
            action=action,
            expected_chain_revision=_int(request.POST.get("expected_chain_revision")),
        )
        messages.success(request, CONTROL_DONE[action])
    return _back(request, reverse("chain-groups"))


# --- runs ----------------------------------------------------------------------------------------------------


@workspace_page(Perm.VIEW)
def campaign_runs(request, actor, campaign_id: int):
    summary = run_selectors.run_summary(actor=actor, campaign_id=campaign_id)
    campaign = node_get(actor.workspace, campaign_id)
    runs = run_selectors.campaign_runs(actor=actor, campaign_id=campaign.id)
    status = request.GET.get("status", "")
    if status in RunStatus.values:
        runs = runs.filter(status=status)
    page = CappedPaginator(runs, 25).get_page(request.GET.get("page"))
    frozen = set(
        page.object_list.model.objects.filter(
            pk__in=[r.id for r in page.object_list], target_snapshot__status=SnapshotStatus.FROZEN
        ).values_list("id", flat=True)
    )
    for run in page.object_list:
        run.counted = run_selectors.counted(run)
        run.refusals = run_selectors.refusals_labelled(run)
        run.exclusions = run_selectors.exclusions_labelled(run)
        run.excluded_count = sum(n for _, _, n in run.exclusions)
        run.exportable = run.id in frozen
        run.rerunnable = run.exportable and run.status in manual_runs.RERUNNABLE and run.run_type != RunType.INHERITED
        run.lift = run_selectors.run_lift_get(actor=actor, run_id=run.id) if run.started_at else None
        waiting_reports = run.status == RunStatus.WAITING_SOURCE and run.wait_reason == WaitReason.DELIVERY_DATA_PENDING
        run.report_end = delivery_report_end(run.source_run) if waiting_reports and run.source_run else None
        if run.lift and run.lift["enough_data"]:
            low, high = lift_math.percent_text(run.lift["ci_low"]), lift_math.percent_text(run.lift["ci_high"])
            run.lift_text = f"{lift_math.percent_text(run.lift['difference'])} ({low} تا {high})"
    context = {
        "campaign": campaign,
        "summary": summary,
        "page": page,
        "status": status,
        "statuses": RunStatus.choices,
        "status_label": CampaignStatus(campaign.status).label,
        "is_child": campaign.root_id is not None and campaign.root_id != campaign.id,
        "can_run_now": (
            campaign.root_id == campaign.id
            and campaign.status in manual_runs.RUNNING
            and campaign.chain_control == ChainControl.NORMAL
            and actor.has(Perm.MANAGE_CAMPAIGNS)
        ),
        "children_not_triggered": manual_runs.CHILDREN_NOT_TRIGGERED,
        "lift_rows": lift_math.lift_rows(run_selectors.campaign_lift_get(actor=actor, campaign_id=campaign.id)),
        "live": _runs_moving(page.object_list),
    }
    return render(request, "chains/campaign_runs.html", context)


LIVE_HORIZON = timedelta(minutes=10)


def _runs_moving(runs) -> bool:
    """Whether a run shown is under way or due within minutes: the table then refreshes itself (htmx)."""
    soon = timezone.now() + LIVE_HORIZON
    return any(
        r.status not in TERMINAL and not (r.status == RunStatus.SCHEDULED and r.scheduled_at and r.scheduled_at > soon)
        for r in runs
    )


def _start_run(request, campaign_id: int, create, done):
    """Create a manual run or rerun from a form (``expected_chain_revision``); a message either way."""
    try:
        run = create(_int(request.POST.get("expected_chain_revision")))
    except PlatformError as exc:
        messages.error(request, _error_text(exc))
    else:
        messages.success(request, f"{done(fa_digits(run.id))} {manual_runs.CHILDREN_NOT_TRIGGERED}")
    return redirect("chain-campaign-runs", campaign_id=campaign_id)


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def run_now(request, actor, campaign_id: int):
    campaign = node_get(actor.workspace, campaign_id)

    def create(revision):
        return manual_runs.manual_run_create(actor=actor, campaign_id=campaign.id, expected_chain_revision=revision)

    return _start_run(request, campaign.id, create, lambda n: f"اجرای دستی #{n} ساخته شد و همین حالا شروع می‌شود.")


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def run_again(request, actor, run_id: int):
    earlier = run_selectors.run_get(actor=actor, run_id=run_id)

    def create(revision):
        return manual_runs.rerun_create(actor=actor, run_id=earlier.id, expected_chain_revision=revision)

    def done(n: str) -> str:
        return f"اجرای دوباره #{n} با مخاطبان اجرای #{fa_digits(earlier.id)} ساخته شد."

    return _start_run(request, earlier.campaign_id, create, done)


@workspace_page(Perm.VIEW)
def run_audience_export(request, actor, run_id: int):
    """The frozen audience as .xlsx: the same selector and writer as ``GET /campaign-runs/{id}/audience/export``."""
    run = run_selectors.run_get(actor=actor, run_id=run_id)
    try:
        snapshot, members = run_selectors.frozen_members(actor=actor, run=run)
        content = run_audience_xlsx(run, snapshot, members)  # the size check runs now, the rows as it streams
    except PlatformError as exc:  # not frozen yet, or too many people for one file
        messages.error(request, exc.message)
        return redirect("chain-campaign-runs", campaign_id=run.campaign_id)
    response = StreamingHttpResponse(content, content_type=XLSX)
    response["Content-Disposition"] = f'attachment; filename="run-{run.pk}-audience.xlsx"'
    return response
