"""Server-rendered Persian pages (thin: parse, call a service/selector, render)."""

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils import timezone
from django.views.decorators.http import require_POST
from django.views.defaults import page_not_found, server_error

from campaigns import selectors
from campaigns.choices import ImportOutcome, ImportStatus
from campaigns.exports import XLSX, targets_xlsx_stream
from campaigns.filters import TargetFilter
from campaigns.forms import AdminPasswordChangeForm, LoginForm, TargetPageForm, WorkspaceApprovalSettingsForm
from campaigns.models import TargetList
from campaigns.platform.api.envelope import json_error
from campaigns.platform.errors import PlatformError
from campaigns.platform.pages import workspace_page
from campaigns.platform.pagination import CappedPaginator
from campaigns.platform.permissions import Perm
from campaigns.platform.phones import display_phone
from campaigns.platform.redirects import local_next
from campaigns.platform.registry import target_delete_warnings, target_panels
from campaigns.platform.tenancy import SESSION_KEY, members_of, memberships_of, scoped
from campaigns.platform.text import typed_int
from campaigns.platform.uploads import upload_too_large
from campaigns.services import imports
from campaigns.services import targets as targets_service
from campaigns.services.workspaces import workspace_approval_settings_update
from campaigns.tables import column_labels


def page_not_found_or_json(request, exception=None):
    if request.path.startswith("/api/"):
        return json_error("NOT_FOUND", "نشانی API پیدا نشد.", 404)
    return page_not_found(request, exception)


def server_error_or_json(request):
    if request.path.startswith("/api/"):
        return json_error("INTERNAL_ERROR", "خطای داخلی رخ داد؛ دوباره تلاش کنید.", 500)
    return server_error(request)


class LoginView(auth_views.LoginView):
    """The staff login form; the login throttle (campaigns/platform/login_throttle.py) guards every login."""

    template_name = "registration/login.html"
    authentication_form = LoginForm


class AdminPasswordChangeView(auth_views.PasswordChangeView):
    """The admin's "change password" (mounted over the admin's own), behind the login throttle."""

    form_class = AdminPasswordChangeForm
    template_name = "registration/password_change_form.html"  # the admin's template
    success_url = reverse_lazy("admin:password_change_done")

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "request": self.request}

    def get_context_data(self, **kwargs):
        return {**admin.site.each_context(self.request), **super().get_context_data(**kwargs)}


@login_required
def home(request):
    """The dashboard; signed in without a workspace it shows the menu and no counters."""
    actor = getattr(request, "actor", None)
    counts = selectors.dashboard_counts(actor=actor) if actor else {}
    return render(request, "campaigns/home.html", {"counts": counts, "today": timezone.now()})


@login_required
@require_POST
def workspace_switch(request):
    ref = request.POST.get("workspace")
    workspace_id = typed_int(ref)
    membership = memberships_of(request.user).filter(workspace_id=workspace_id).first() if workspace_id else None
    if membership is None:
        messages.error(request, "فضای کاری پیدا نشد.")
    else:
        request.session[SESSION_KEY] = membership.workspace_id
        messages.success(request, f"فضای کاری «{membership.workspace.name}» انتخاب شد.")
    return redirect(local_next(request, "home"))


@workspace_page(Perm.VIEW)
def target_list(request, actor):
    filterset = TargetFilter(request.GET or None, queryset=selectors.target_queryset(actor=actor), request=request)
    fields = filterset.form.fields
    fields["list"] = forms.ChoiceField(
        label="فهرست",
        required=False,
        choices=[("", "همه")] + [(tl.id, tl.name) for tl in scoped(TargetList, actor.workspace)],
    )
    fields["owner"] = forms.ChoiceField(
        label="مسئول",
        required=False,
        choices=[("", "همه")]
        + [(m.user_id, m.user.get_full_name() or m.user.get_username()) for m in members_of(actor.workspace)],
    )
    fields["status"].widget.attrs["size"] = 3
    for name in ("created_after", "created_before"):  # ISO posted, Jalali shown and typed (static/js/jalali-picker.js)
        fields[name].widget.attrs["data-jalali-picker"] = "iso"
    valid = filterset.is_bound and filterset.is_valid()
    qs = filterset.qs if valid else selectors.target_queryset(actor=actor)
    list_id = filterset.form.cleaned_data.get("list") if valid else ""
    list_id = int(list_id) if list_id else None
    if request.GET.get("export") == "xlsx":
        try:
            # the size check runs now, the rows as it streams
            content = targets_xlsx_stream(qs, workspace=actor.workspace, list_id=list_id)
        except PlatformError as exc:  # too many rows for one export
            messages.error(request, exc.message)
        else:
            response = StreamingHttpResponse(content, content_type=XLSX)
            response["Content-Disposition"] = 'attachment; filename="targets.xlsx"'
            return response
    rows = selectors.target_page_rows(qs, list_id=list_id)
    page = CappedPaginator(rows, 25).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request, "campaigns/target_list.html", {"filter": filterset, "page": page, "querystring": query.urlencode()}
    )


def _target_form_page(request, actor, *, target=None):
    lists = list(scoped(TargetList, actor.workspace))
    initial = None
    if target is not None:
        initial = {
            f: getattr(target, f) for f in ("name", "first_name", "last_name", "status", "province", "city", "priority")
        }
        initial |= {
            "mobile": display_phone(target.mobile),
            "landline": display_phone(target.landline),
            "list_ids": [tl.id for tl in target.lists.all()],
        }
    form = TargetPageForm(request.POST or None, initial=initial, lists=lists)
    if request.method == "POST" and form.is_valid():
        data = dict(form.cleaned_data, list_ids=[int(i) for i in form.cleaned_data["list_ids"]])
        try:
            if target is None:
                target = targets_service.target_create(actor=actor, **data)
            else:
                targets_service.target_update(actor=actor, target_id=target.id, data=data)
        except PlatformError as exc:
            form.add_service_errors(exc.details or {"non_field_errors": [exc.message]})
        else:
            messages.success(request, f"مخاطب «{data['name']}» ذخیره شد.")
            return redirect("target-list")
    panels = target_panels(request=request, actor=actor, target=target) if target is not None else []
    warnings = target_delete_warnings(actor=actor, target=target) if target is not None else []
    context = {"form": form, "target": target, "panels": panels, "delete_warnings": warnings}
    return render(request, "campaigns/target_form.html", context)


@workspace_page(Perm.VIEW)
def target_new(request, actor):
    return _target_form_page(request, actor)


@workspace_page(Perm.VIEW)
def target_edit(request, actor, target_id: int):
    target = selectors.target_get(actor=actor, target_id=target_id)  # another workspace's: 404 (workspace_page)
    if request.method == "POST" and request.POST.get("action") == "delete":
        try:
            targets_service.target_delete(actor=actor, target_id=target.id)
        except PlatformError as exc:
            messages.error(request, exc.message)
            return redirect("target-edit", target_id=target.id)
        messages.success(request, f"مخاطب «{target.name}» حذف شد.")
        return redirect("target-list")
    return _target_form_page(request, actor, target=target)


class ImportForm(forms.Form):
    file = forms.FileField(label="فایل اکسل یا CSV")
    target_list = forms.ModelChoiceField(queryset=TargetList.objects.none(), required=False, label="افزودن به فهرست")
    new_list = forms.CharField(
        label="یا فهرست تازه با این نام",
        required=False,
        max_length=200,
        help_text="مخاطبان این فایل در فهرستی تازه با این نام گذاشته می‌شوند.",
    )
    update_existing = forms.BooleanField(required=False, initial=True, label="مخاطبان موجود به‌روز شوند")


@workspace_page(Perm.VIEW)
def target_import(request, actor):
    if request.method == "POST" and upload_too_large(request):  # refused before the body is read
        form = ImportForm()
        form.fields["target_list"].queryset = scoped(TargetList, actor.workspace)
        form.errors["file"] = form.error_class([imports.size_message()])
        recent = selectors.scoped_imports(actor=actor)[:10]
        return render(request, "campaigns/target_import.html", {"form": form, "recent": recent}, status=400)
    form = ImportForm(request.POST or None, request.FILES or None)
    form.fields["target_list"].queryset = scoped(TargetList, actor.workspace)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            created = imports.target_import_start(
                actor=actor,
                file_name=upload.name,
                content=upload,  # measured by its size before it is read
                target_list_id=form.cleaned_data["target_list"].id if form.cleaned_data["target_list"] else None,
                update_existing=form.cleaned_data["update_existing"],
                new_list_name=form.cleaned_data["new_list"],  # made only when the file is accepted
            )
        except PlatformError as exc:
            if not exc.details:
                form.add_error(None, exc.message)
            for field, errors in (exc.details or {}).items():
                for error in errors if isinstance(errors, list) else [errors]:
                    form.add_error(field if field in form.fields else None, str(error))
        else:
            return redirect("target-import-detail", import_id=created.id)
    recent = selectors.scoped_imports(actor=actor)[:10]
    return render(request, "campaigns/target_import.html", {"form": form, "recent": recent})


# The report's row tabs (the import's outcomes).
IMPORT_OUTCOME_TABS = [
    (ImportOutcome.CREATED, "ایجاد شد"),
    (ImportOutcome.UPDATED, "به‌روز شد"),
    (ImportOutcome.DUPLICATE, "تکراری"),
    (ImportOutcome.INVALID, "نامعتبر"),
]


@workspace_page(Perm.VIEW)
def target_import_detail(request, actor, import_id: int):
    target_import = selectors.target_import_get(actor=actor, import_id=import_id)
    outcome = request.GET.get("outcome") or None
    rows = CappedPaginator(selectors.target_import_rows(actor=actor, import_id=import_id, outcome=outcome), 50)
    page = rows.get_page(request.GET.get("page"))
    querystring = f"outcome={outcome}" if outcome else ""
    context = {
        "imp": target_import,
        "rows": page,
        "outcome": outcome,
        "outcome_tabs": IMPORT_OUTCOME_TABS,
        "querystring": querystring,
        "page_query": "&".join(q for q in (querystring, f"page={page.number}" if page.number > 1 else "") if q),
        "running": target_import.status in (ImportStatus.PENDING, ImportStatus.PROCESSING),
        "column_mapping": column_labels(target_import.column_map),
    }
    template = (
        "campaigns/_import_report.html" if request.headers.get("HX-Request") else "campaigns/target_import_detail.html"
    )
    return render(request, template, context)


@workspace_page(Perm.MANAGE_WORKSPACE)
def workspace_settings(request, actor):
    """Approval (on/off, four eyes) and the calendar of chain schedules, for owners and admins."""
    current = selectors.workspace_approval_settings(actor=actor)
    form = WorkspaceApprovalSettingsForm(
        request.POST or None,
        initial={
            "campaigns_need_approval": current.campaigns_need_approval,
            "approval_four_eyes": current.approval_four_eyes,
            "calendar": current.calendar,
        },
    )
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                workspace_approval_settings_update(actor=actor, **form.cleaned_data)
            except PlatformError as exc:
                form.add_error(None, exc.message)
            else:
                messages.success(request, "تنظیمات فضای کاری ذخیره شد.")
                return redirect("workspace-settings")
        status = 400
    context = {"form": form, "current": current, "history": selectors.workspace_settings_history(actor=actor)}
    return render(request, "campaigns/workspace_settings.html", context, status=status)
