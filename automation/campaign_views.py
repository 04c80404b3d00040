"""Persian pages of journey campaigns: list (with the health banner), create, add targets (list / filter / manual
pick), enrollment review (classes, conflicts, decisions, commit, progress of background batches), dashboard
(stats, next sends, sends per day, start/pause/resume/cancel), the campaign's targets with bulk control, and logs.

Thin: reads through selectors and ``automation.journey_stats``, writes through the same services as the API
(``automation.services.campaigns`` / ``enrollment_batches`` / ``executions``)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_POST

from automation import campaign_selectors as pages
from automation import journey_stats
from automation.campaign_forms import JourneyCampaignEditForm, JourneyCampaignForm
from automation.choices import (
    LIVE_STATUSES,
    BatchStatus,
    Decision,
    EnrollmentClass,
    EventType,
    ExecutionStatus,
    LaunchReason,
)
from automation.errors import ChannelUnusable, ConflictsUnresolved
from automation.launch_check import excluded_subject_ids, journey_launch_check
from automation.selectors import (
    enrollment_batch_get,
    enrollment_batch_items,
    execution_queryset,
    held_after_unknown,
    is_held_after_unknown,
)
from automation.services import auto_enroll, enrollment_batches
from automation.services import campaigns as campaign_services
from automation.services import executions as execution_services
from campaigns.choices import CampaignStatus
from campaigns.filters import TargetFilter
from campaigns.models import TargetList
from campaigns.platform.errors import PlatformError
from campaigns.platform.jalali import fa_digits
from campaigns.platform.keyset import keyset_page_or_first
from campaigns.platform.pages import refusal_shown, workspace_page
from campaigns.platform.pagination import CappedPaginator
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import scoped
from campaigns.platform.text import typed_int
from campaigns.selectors import target_queryset

PAGE_SIZE = 25
OUTCOME_LABELS = {
    "added": "افزوده شد",
    "added_concurrently": "هم‌زمان افزوده شد",
    "already_live": "از قبل در همین کمپین",
    "blacklisted": "لیست سیاه",
    "invalid": "نامعتبر",
    "skipped": "رد شد (تصمیم شما)",
    "conflict_skipped": "رد شد (در کمپین دیگر، بی‌تصمیم)",
    "not_added": "افزوده نشد",
}
CONTROL_LABELS = {"activate": "شروع", "pause": "توقف", "resume": "ادامه", "cancel": "لغو"}
CONTROL_DONE = {"activate": "شروع شد", "pause": "متوقف شد", "resume": "ادامه یافت", "cancel": "لغو شد"}
BULK_LABELS = {
    "pause": "توقف",
    "resume": "ادامه",
    "resume_resend": "ادامه و ارسال دوباره",
    "remove": "حذف از کمپین",
    "restart": "شروع دوباره",
}
# Page action → (service action, what a step held after an unknown send outcome does on resume).
BULK_ACTIONS = {"resume_resend": ("resume", "resend")}
CLOSED = (CampaignStatus.COMPLETED, CampaignStatus.CANCELLED)
HELD = "held_unknown"  # the status filter's extra choice: paused and waiting for the resend-or-skip decision


def _campaign(actor, campaign_id: int):
    try:
        return pages.campaign_page_get(actor=actor, campaign_id=campaign_id)
    except PlatformError:
        raise Http404 from None


def _batch(actor, campaign, batch_id: int):
    try:
        batch = enrollment_batch_get(actor=actor, batch_id=batch_id)
    except PlatformError:
        raise Http404 from None
    if batch.campaign_id != campaign.id:
        raise Http404
    return batch


def _page(request, queryset, size: int = PAGE_SIZE):
    return CappedPaginator(queryset, size).get_page(request.GET.get("page"))


def _querystring(request, *drop: str) -> str:
    return urlencode([(k, v) for k, values in request.GET.lists() for v in values if k not in ("page", *drop)])


def _error_text(exc: PlatformError) -> str:
    details = exc.details or {}
    if isinstance(exc, ChannelUnusable) and details.get("problems"):
        return f"{exc.message} {pages.problem_text(details['problems'])}"
    return exc.message


def _common(actor, campaign) -> dict:
    return {
        "campaign": campaign,
        "journey": campaign.journey,
        "can_manage": actor.has(Perm.MANAGE_CAMPAIGNS),
        "health": pages.journey_health(actor=actor, campaigns=[campaign]),
        "health_campaign_id": campaign.id,
    }


# --- list and create ------------------------------------------------------------------------------------


@workspace_page(Perm.VIEW)
def campaign_list(request, actor):
    status = request.GET.get("status", "")
    status = status if status in CampaignStatus.values else ""
    page = _page(request, pages.journey_campaigns(actor=actor, status=status))
    context = {
        "page": page,
        "rows": pages.campaign_rows(actor=actor, campaigns=list(page)),
        "status": status,
        "statuses": CampaignStatus.choices,
        "querystring": _querystring(request),
        "health": pages.journey_health(actor=actor),
        "can_manage": actor.has(Perm.MANAGE_CAMPAIGNS),
    }
    return render(request, "automation/campaign_list.html", context)


@workspace_page(Perm.MANAGE_CAMPAIGNS)
def campaign_new(request, actor):
    workflows = list(pages.publishable_workflows(actor=actor))
    lists = list(scoped(TargetList, actor.workspace).order_by("name"))
    initial = {"workflow": request.GET.get("workflow", ""), "source_list": request.GET.get("source_list", "")}
    form = JourneyCampaignForm(
        request.POST or None, initial=initial, workflows=workflows, lists=lists, time_zone=actor.workspace.time_zone
    )
    if request.method == "POST" and form.is_valid():
        data = form.service_data()
        if not form.errors:
            try:
                campaign = campaign_services.journey_campaign_create(actor=actor, **data)
            except PlatformError as exc:
                form.add_service_errors(exc.details or {"__all__": [exc.message]})
            else:
                messages.success(request, f"کمپین «{campaign.name}» ساخته شد.")
                if data["source_target_list_id"]:
                    return _preview(request, actor, campaign, filters={"list": data["source_target_list_id"]})
                return redirect("journey-campaign-enroll", campaign_id=campaign.id)
    status = 400 if request.method == "POST" else 200
    return render(request, "automation/campaign_new.html", {"form": form, "workflows": workflows}, status=status)


# --- adding targets -------------------------------------------------------------------------------------


@workspace_page(Perm.MANAGE_CAMPAIGNS)
def campaign_edit(request, actor, campaign_id: int):
    campaign = _campaign(actor, campaign_id)
    form = JourneyCampaignEditForm(request.POST or None, campaign=campaign, time_zone=actor.workspace.time_zone)
    if request.method == "POST" and form.is_valid():
        changes = form.changes()
        if not form.errors:
            try:
                campaign = campaign_services.journey_campaign_update(
                    actor=actor, campaign_id=campaign.id, changes=changes
                )
            except PlatformError as exc:
                form.add_service_errors(exc.details or {"__all__": [exc.message]})
            else:
                messages.success(request, f"کمپین «{campaign.name}» ذخیره شد.")
                return redirect("journey-campaign-dashboard", campaign_id=campaign.id)
    status = 400 if request.method == "POST" else 200
    context = _common(actor, campaign) | {"form": form, "tab": "edit"}
    return render(request, "automation/campaign_edit.html", context, status=status)


def _preview(request, actor, campaign, *, target_ids=None, filters=None):
    try:
        batch = enrollment_batches.enrollment_batch_preview(
            actor=actor, campaign_id=campaign.id, target_ids=target_ids, filters=filters
        )
    except PlatformError as exc:
        details = exc.details or {}
        problems = [str(p) for v in details.values() for p in (v if isinstance(v, list) else [v])]
        messages.error(request, " ".join([exc.message, *problems[:3]]))
        return redirect("journey-campaign-enroll", campaign_id=campaign.id)
    return redirect("journey-enrollment-review", campaign_id=campaign.id, batch_id=batch.id)


@workspace_page(Perm.MANAGE_CAMPAIGNS)
def campaign_enroll(request, actor, campaign_id: int):
    campaign = _campaign(actor, campaign_id)
    if request.method == "POST":
        mode = request.POST.get("mode")
        if mode == "list" and (list_id := typed_int(request.POST.get("list"))) is not None:
            return _preview(request, actor, campaign, filters={"list": list_id})
        if mode == "filter":
            filters = {k: v for k, v in request.POST.lists() if k in TargetFilter.base_filters and any(v)}
            filters = {k: v if k == "status" else v[0] for k, v in filters.items()}
            return _preview(request, actor, campaign, filters=filters)
        if mode == "manual":
            ids = [i for i in map(typed_int, request.POST.getlist("target")) if i is not None]
            return _preview(request, actor, campaign, target_ids=ids)
        messages.error(request, "یک روش انتخاب و مقدار آن را مشخص کنید.")
        return redirect("journey-campaign-enroll", campaign_id=campaign.id)
    lists = scoped(TargetList, actor.workspace).order_by("name")
    search = TargetFilter(data=request.GET or None, queryset=target_queryset(actor=actor).order_by("name", "id"))
    found = _page(request, search.qs if search.is_valid() else target_queryset(actor=actor).none(), 50)
    context = _common(actor, campaign) | {
        "lists": lists,
        "filter_form": _filter_form(actor, lists),
        "search": search,
        "found": found,
        "page": found,
        "querystring": _querystring(request),
        "tab": request.GET.get("tab") or ("manual" if request.GET else "list"),
    }
    return render(request, "automation/campaign_enroll.html", context)


def _filter_form(actor, lists):
    """The targets page's filter, its list chosen by name (not typed as an id)."""
    form = TargetFilter(queryset=target_queryset(actor=actor)).form
    form.fields["list"].widget = forms.Select(choices=[("", "— همه —")] + [(tl.id, tl.name) for tl in lists])
    return form


def _review_context(request, actor, campaign, batch) -> dict:
    klass = request.GET.get("class") or (EnrollmentClass.CONFLICT if batch.counts.get("conflict") else "ready")
    klass = klass if klass in EnrollmentClass.values else EnrollmentClass.READY
    committed = batch.status in (BatchStatus.COMMITTED, BatchStatus.FAILED)
    outcome = request.GET.get("outcome", "") if committed else ""
    if committed and not outcome:
        items = enrollment_batch_items(actor=actor, batch_id=batch.id)
    else:
        items = enrollment_batch_items(actor=actor, batch_id=batch.id, klass=None if outcome else klass)
        items = items.filter(outcome=outcome) if outcome else items
    page = _page(request, items)
    names = pages.target_names(actor=actor, ids=[i.subject_id for i in page])
    rows = [{"item": i, "target": names.get(i.subject_id)} for i in page]
    undecided = 0
    if batch.status == BatchStatus.DRAFT and not batch.default_decision:
        undecided = batch.items.filter(klass=EnrollmentClass.CONFLICT, decision="").count()
    return _common(actor, campaign) | {
        "batch": batch,
        "batch_source": pages.enrollment_batch_source(actor=actor, batch=batch),
        "klass": klass,
        "classes": [(value, label, batch.counts.get(value, 0)) for value, label in EnrollmentClass.choices],
        "page": page,
        "rows": rows,
        "decisions": Decision.choices,
        "undecided": undecided,
        "outcome": outcome,
        "outcomes": [(k, OUTCOME_LABELS.get(k, k), n) for k, n in sorted((batch.result or {}).items()) if k],
        "outcome_labels": OUTCOME_LABELS,
        "reasons": pages.ENROLL_REASONS,
        "campaign_status_labels": dict(CampaignStatus.choices),
        "execution_status_labels": dict(ExecutionStatus.choices),
        "querystring": _querystring(request),
    }


@workspace_page(Perm.MANAGE_CAMPAIGNS)
def enrollment_review(request, actor, campaign_id: int, batch_id: int):
    campaign = _campaign(actor, campaign_id)
    batch = _batch(actor, campaign, batch_id)
    return render(request, "automation/enrollment_review.html", _review_context(request, actor, campaign, batch))


def _review_url(campaign, batch, request) -> str:
    url = reverse("journey-enrollment-review", kwargs={"campaign_id": campaign.id, "batch_id": batch.id})
    back = request.POST.get("back", "")
    return f"{url}?{back}" if back else url


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def enrollment_decide(request, actor, campaign_id: int, batch_id: int):
    campaign = _campaign(actor, campaign_id)
    batch = _batch(actor, campaign, batch_id)
    overrides = [
        {"subject_id": subject_id, "decision": value or None}
        for name, value in request.POST.items()
        if name.startswith("decision_") and (subject_id := typed_int(name.removeprefix("decision_"))) is not None
    ]
    with refusal_shown(request):
        enrollment_batches.enrollment_batch_decide(
            actor=actor,
            batch_id=batch.id,
            default=request.POST.get("default") or None,
            set_default="default" in request.POST,
            overrides=overrides,
        )
        messages.success(request, "تصمیم‌ها ذخیره شد.")
    return redirect(_review_url(campaign, batch, request))


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def enrollment_commit(request, actor, campaign_id: int, batch_id: int):
    campaign = _campaign(actor, campaign_id)
    batch = _batch(actor, campaign, batch_id)
    try:
        batch = enrollment_batches.enrollment_batch_commit(actor=actor, batch_id=batch.id)
    except ConflictsUnresolved as exc:
        ids = exc.details.get("subject_ids", [])
        names = pages.target_names(actor=actor, ids=ids[:20])
        listed = "، ".join(names[i].name if i in names else f"#{fa_digits(i)}" for i in ids[:20])
        more = f" و {fa_digits(len(ids) - 20)} مورد دیگر" if len(ids) > 20 else ""
        messages.error(request, f"{exc.message} {fa_digits(exc.details.get('count', len(ids)))} مورد: {listed}{more}.")
        return redirect(
            reverse("journey-enrollment-review", kwargs={"campaign_id": campaign.id, "batch_id": batch.id})
            + "?class=conflict"
        )
    except PlatformError as exc:
        messages.error(request, exc.message)
        return redirect(_review_url(campaign, batch, request))
    if batch.status == BatchStatus.COMMITTED:
        messages.success(request, f"{fa_digits((batch.result or {}).get('added', 0))} مخاطب به کمپین افزوده شد.")
    else:
        messages.info(request, "افزودن در پس‌زمینه ادامه دارد؛ پیشرفت در همین صفحه دیده می‌شود.")
    return redirect("journey-enrollment-review", campaign_id=campaign.id, batch_id=batch.id)


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def enrollment_discard(request, actor, campaign_id: int, batch_id: int):
    campaign = _campaign(actor, campaign_id)
    batch = _batch(actor, campaign, batch_id)
    try:
        enrollment_batches.enrollment_batch_discard(actor=actor, batch_id=batch.id)
    except PlatformError as exc:
        messages.error(request, exc.message)
        return redirect(_review_url(campaign, batch, request))
    messages.success(request, "این دسته کنار گذاشته شد؛ کسی افزوده نشد.")
    return redirect("journey-campaign-dashboard", campaign_id=campaign.id)


@workspace_page(Perm.MANAGE_CAMPAIGNS)
def enrollment_progress(request, actor, campaign_id: int, batch_id: int):
    """htmx polling of a background batch; when it is over the page reloads to show the outcome."""
    campaign = _campaign(actor, campaign_id)
    batch = _batch(actor, campaign, batch_id)
    response = render(request, "automation/_batch_progress.html", {"campaign": campaign, "batch": batch})
    if batch.status != BatchStatus.COMMITTING:
        response["HX-Refresh"] = "true"
    return response


# --- dashboard and control ------------------------------------------------------------------------------


@workspace_page(Perm.VIEW)
def campaign_dashboard(request, actor, campaign_id: int):
    campaign = _campaign(actor, campaign_id)
    stats = journey_stats.journey_stats(actor=actor, campaign_id=campaign.id)
    names = pages.target_names(actor=actor, ids=[s["subject_id"] for s in stats["next_sends"]])
    next_sends = [
        s | {"target": names.get(s["subject_id"]), "status_label": ExecutionStatus(s["status"]).label}
        for s in stats["next_sends"]
    ]
    status = campaign.status
    controls = []
    if status == CampaignStatus.DRAFT:
        controls = ["activate", "cancel"]
    elif status in (CampaignStatus.ACTIVE, CampaignStatus.SCHEDULED):
        controls = ["pause", "cancel"]
    elif status == CampaignStatus.PAUSED:
        controls = ["resume", "cancel"]
    context = (
        _common(actor, campaign)
        | {
            "stats": stats,
            "cancelled_other": stats["cancelled"] - stats["ended_with_campaign"],  # the rest read finished
            "next_sends": next_sends,
            "chart": pages.sends_chart(stats["series"]),
            "controls": [(c, CONTROL_LABELS[c]) for c in controls],
            "open_batches": campaign.enrollment_batches.filter(
                status__in=[BatchStatus.DRAFT, BatchStatus.COMMITTING]
            ).order_by("-id")[:5]
            if actor.has(Perm.MANAGE_CAMPAIGNS)
            else [],
            "held_count": _held_count(actor, campaign),
            "rule": auto_enroll.auto_enroll_rule_get(actor=actor, campaign_id=campaign.id),
            "moving": _moving(campaign, stats),
        }
    )
    if request.GET.get("part") == "live":  # htmx polling: the numbers only
        return render(request, "automation/_dashboard_live.html", context)
    if "activate" in controls:  # what Start would do now; a blocker disables it (docs/journeys.md "Launch check")
        context["launch_check"] = journey_launch_check(actor=actor, campaign_id=campaign.id)
    return render(request, "automation/campaign_dashboard.html", context)


def _moving(campaign, stats: dict) -> bool:
    """Something can change without the person doing anything: the numbers are polled while it is so."""
    live = stats["pending"] + stats["active"] + stats["waiting"]
    return campaign.status in (CampaignStatus.ACTIVE, CampaignStatus.SCHEDULED) and live > 0


@workspace_page(Perm.VIEW)
def journey_health(request, actor):
    """htmx polling (every 30 s) of the health banner of one campaign (``?campaign=``) or of all of them."""
    campaign_id = request.GET.get("campaign", "")
    typed = typed_int(campaign_id)
    campaigns = [_campaign(actor, typed)] if typed is not None else None
    context = {"health": pages.journey_health(actor=actor, campaigns=campaigns), "health_campaign_id": campaign_id}
    return render(request, "automation/_health.html", context)


def _held_count(actor, campaign) -> int:
    """Executions waiting for a person's resend-or-skip decision (shown to those who may decide)."""
    if not actor.has(Perm.MANAGE_CAMPAIGNS):
        return 0
    return held_after_unknown(execution_queryset(actor=actor, campaign_id=campaign.id)).count()


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def campaign_control(request, actor, campaign_id: int, action: str):
    campaign = _campaign(actor, campaign_id)
    if action not in CONTROL_LABELS:
        raise Http404
    try:
        campaign = campaign_services.journey_campaign_transition(actor=actor, campaign_id=campaign.id, action=action)
    except PlatformError as exc:
        messages.error(request, _error_text(exc))
    else:
        done = CONTROL_DONE[action]
        if action == "activate" and campaign.status == CampaignStatus.SCHEDULED:
            done = "در انتظار زمان شروع است"
        messages.success(request, f"کمپین «{campaign.name}» {done}.")
    return redirect("journey-campaign-dashboard", campaign_id=campaign_id)


# --- targets of the campaign ------------------------------------------------------------------------------


@workspace_page(Perm.VIEW, write=Perm.MANAGE_CAMPAIGNS)
def campaign_targets(request, actor, campaign_id: int):
    campaign = _campaign(actor, campaign_id)
    if request.method == "POST":
        return _bulk(request, actor, campaign)
    status = request.GET.get("status", "")
    executions = execution_queryset(actor=actor, campaign_id=campaign.id)
    if status in ExecutionStatus.values:
        executions = executions.filter(status=status)
    elif status == HELD:
        executions = held_after_unknown(executions)
    # The people behind a launch check's count (``?excluded=<reason>``): its live journeys kept from a message.
    excluded = request.GET.get("excluded", "")
    excluded_ids, looked_at = None, None
    if excluded in LaunchReason.values:  # a large audience: looked for among the check's sample (bounded)
        excluded_ids, looked_at = excluded_subject_ids(actor=actor, campaign_id=campaign.id, reason=excluded)
    if excluded_ids is not None:
        executions = executions.filter(status__in=LIVE_STATUSES, subject_id__in=excluded_ids)
    else:
        excluded = ""
    page = _page(request, executions)
    names = pages.target_names(actor=actor, ids=[e.subject_id for e in page])
    context = _common(actor, campaign) | {
        "page": page,
        "rows": [{"execution": e, "target": names.get(e.subject_id), "held": is_held_after_unknown(e)} for e in page],
        "status": status,
        "excluded": excluded,
        "excluded_label": LaunchReason(excluded).label if excluded else "",
        "excluded_looked_at": looked_at,
        "statuses": [*ExecutionStatus.choices, (HELD, "منتظر تصمیم (نتیجه ارسال نامعلوم)")],
        "bulk_actions": BULK_LABELS.items(),
        # A finished or cancelled campaign's journeys are history: no bulk control, no "add targets".
        "can_control": actor.has(Perm.MANAGE_CAMPAIGNS) and campaign.status not in CLOSED,
        "held_count": _held_count(actor, campaign),
        "querystring": _querystring(request),
    }
    return render(request, "automation/campaign_targets.html", context)


def _bulk(request, actor, campaign) -> HttpResponse:
    chosen = request.POST.get("action", "")
    action, unknown_outcome = BULK_ACTIONS.get(chosen, (chosen, None))
    ids = [i for i in map(typed_int, request.POST.getlist("execution")) if i is not None]
    back = reverse("journey-campaign-targets", kwargs={"campaign_id": campaign.id})
    back += f"?{request.POST['back']}" if request.POST.get("back") else ""
    try:
        result = execution_services.executions_bulk_control(
            actor=actor, campaign_id=campaign.id, execution_ids=ids, action=action, unknown_outcome=unknown_outcome
        )
    except PlatformError as exc:
        messages.error(request, " ".join([exc.message, *[str(p) for v in (exc.details or {}).values() for p in v]]))
        return redirect(back)
    label = BULK_LABELS.get(chosen, chosen)
    counts = result["counts"]
    messages.success(request, f"{label}: {fa_digits(counts['done'])} انجام شد، {fa_digits(counts['refused'])} رد شد.")
    refused = result["refused"]
    if refused:
        subjects = dict(
            execution_queryset(actor=actor, campaign_id=campaign.id)
            .filter(pk__in=[r["execution_id"] for r in refused])
            .values_list("id", "subject_id")
        )
        names = pages.target_names(actor=actor, ids=subjects.values())
        for r in refused[:20]:
            target = names.get(subjects.get(r["execution_id"]))
            who = target.name if target else f"اجرای #{fa_digits(r['execution_id'])}"
            messages.warning(request, f"{who}: {r['message']}")
    return redirect(back)


# --- logs -------------------------------------------------------------------------------------------------


@workspace_page(Perm.VIEW)
def campaign_logs(request, actor, campaign_id: int):
    campaign = _campaign(actor, campaign_id)
    kind = request.GET.get("type", "")
    kind = kind if kind in EventType.values else ""
    events = pages.campaign_events(actor=actor, campaign=campaign, type=kind)
    page = keyset_page_or_first(
        events, time_field="occurred_at", descending=True, size=50, cursor=request.GET.get("cursor")
    )
    names = pages.target_names(actor=actor, ids=[e.subject_id for e in page])
    entries = pages.labelled(journey_stats.timeline_entries(actor=actor, events=list(page)))
    rows = [entry | {"target": names.get(e.subject_id)} for e, entry in zip(page, entries, strict=True)]
    context = _common(actor, campaign) | {
        "page": page,
        "rows": rows,
        "type": kind,
        "types": EventType.choices,
        "querystring": _querystring(request, "cursor"),
        "why_labels": pages.WHY_NOT_SENT_LABELS,
    }
    return render(request, "automation/campaign_logs.html", context)
