"""Persian pages of the SMS channel: attempt log, blacklist, templates, settings.

Thin: parse a form, call a selector or the same service the API calls, render. Every page is gated by
``workspace_page``: a page the role may not use answers 403 and its menu entry and tab are not shown.
"""

from __future__ import annotations

import datetime as dt

from django.contrib import messages
from django.http import StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from automation.engine.context import workspace_tz
from automation.services.settings import automation_settings_get, automation_settings_update
from campaigns.platform.errors import NotFound, PermissionDenied, PlatformError
from campaigns.platform.jalali import fa_digits
from campaigns.platform.pages import refusal_shown, workspace_page
from campaigns.platform.pagination import CappedPaginator
from campaigns.platform.permissions import Perm
from campaigns.platform.phones import display_phone
from campaigns.services.workspaces import workspace_time_zone_set
from sms import log as sms_log
from sms import selectors, services
from sms.choices import PRICE_FIELDS, BlacklistReason
from sms.exports import blacklist_csv
from sms.forms import (
    AccountForm,
    AttemptFilterForm,
    BlacklistAddForm,
    BlacklistImportForm,
    ChannelSettingsForm,
    SmsTemplateForm,
    TestMessageForm,
    service_errors_to_form,
)
from sms.inbound.forms import InboundWordsForm
from sms.inbound.services import inbound_words_update
from sms.retention import retention_days

# The SMS section's tabs, each shown only with its permission (the first allowed one is the section's home).
TABS = [
    ("sms-attempts", "گزارش ارسال", Perm.VIEW_SMS_LOGS),
    ("sms-inbox", "پاسخ‌ها", Perm.VIEW_SMS_LOGS),
    ("sms-blacklist", "لیست سیاه", Perm.MANAGE_BLACKLIST),
    ("sms-templates", "قالب‌های پیامک", Perm.MANAGE_WORKFLOWS),
    ("sms-settings", "تنظیمات", Perm.MANAGE_WORKSPACE),
]

PROBLEM_LABELS = {
    "sms_not_configured": "حساب اصلی تعریف یا پیکربندی نشده است.",
    "sms_disabled": "ارسال پیامک خاموش است.",
    "sms_provider_unknown": "سرویس‌دهنده حساب اصلی شناخته نمی‌شود.",
}


def render_tab(request, template: str, tab: str, context: dict, status: int = 200):
    """A page of the SMS section, under the tabs the role may see."""
    actor = request.actor
    tabs = [(name, label, name == tab) for name, label, perm in TABS if actor.has(perm)]
    return render(request, template, {"tabs": tabs, **context}, status=status)


def _querystring(request, *drop: str) -> str:
    query = request.GET.copy()
    for name in ("page", *drop):
        query.pop(name, None)
    return query.urlencode()


@workspace_page(Perm.VIEW_SMS_LOGS)  # every role with an SMS tab has it (the menu links here)
def sms_home(request, actor):
    """The section's home: the first tab the role may see (the attempt log's permission is one of them)."""
    return redirect(next(name for name, _, perm in TABS if actor.has(perm)))


# --- attempt log ------------------------------------------------------------------------------------------
def _day_start(day: dt.date) -> dt.datetime:
    return timezone.make_aware(dt.datetime.combine(day, dt.time.min), timezone.get_current_timezone())


@workspace_page(Perm.VIEW_SMS_LOGS)
def attempt_log(request, actor):
    form = AttemptFilterForm(request.GET or None, campaigns=selectors.campaigns_with_attempts(actor=actor))
    filters = {}
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        filters = {
            "status": data["status"] or None,
            "campaign_id": data["campaign"],
            "number": data["number"],
            # Jalali days of the workspace calendar (its time zone is active on pages); "until" includes the day.
            "since": _day_start(data["since"]) if data["since"] else None,
            "until": _day_start(data["until"] + dt.timedelta(days=1)) if data["until"] else None,
        }
    page = sms_log.sms_log_page(actor=actor, size=50, cursor=request.GET.get("cursor"), **filters)
    context = {
        "form": form,
        "page": page,
        "rows": sms_log.sms_log_rows(actor=actor, page=page),
        "querystring": _querystring(request, "cursor"),
    }
    if request.headers.get("HX-Request"):
        return render(request, "sms/_attempt_rows.html", context)
    return render_tab(request, "sms/attempt_log.html", "sms-attempts", context)


# --- blacklist --------------------------------------------------------------------------------------------
@workspace_page(Perm.MANAGE_BLACKLIST)
def blacklist(request, actor):
    add_form, import_form, open_dialog = BlacklistAddForm(), BlacklistImportForm(), ""
    if request.method == "POST" and request.POST.get("action") == "add":
        add_form = BlacklistAddForm(request.POST)
        if add_form.is_valid():
            try:
                entry = services.blacklist_add(actor=actor, **add_form.cleaned_data)
            except PlatformError as exc:
                service_errors_to_form(add_form, exc)
            else:
                messages.success(request, f"شماره {display_phone(entry.value)} به لیست سیاه افزوده شد.")
                return redirect("sms-blacklist")
        open_dialog = "dlg-bl-add"
    elif request.method == "POST" and request.POST.get("action") == "import":
        import_form = BlacklistImportForm(request.POST, request.FILES)
        if import_form.is_valid():
            try:
                report = services.blacklist_import(
                    actor=actor, numbers=import_form.cleaned_data["parsed_numbers"], reason=BlacklistReason.IMPORTED
                )
            except PlatformError as exc:
                service_errors_to_form(import_form, exc)
            else:
                messages.success(
                    request,
                    f"افزوده: {fa_digits(report['added'])}، از قبل فعال: {fa_digits(report['already_active'])}، "
                    f"نامعتبر: {fa_digits(len(report['invalid']))}",
                )
                if report["invalid"]:
                    messages.warning(request, "شماره‌های نامعتبر: " + "، ".join(report["invalid"][:20]))
                return redirect("sms-blacklist")
        open_dialog = "dlg-bl-import"
    q = request.GET.get("q", "")
    state = request.GET.get("state", "")
    active = {"active": True, "inactive": False}.get(state)
    entries = selectors.blacklist_queryset(actor=actor, q=q, active=active)
    if request.GET.get("export") == "csv":
        response = StreamingHttpResponse(
            blacklist_csv(entries, workspace=actor.workspace), content_type="text/csv; charset=utf-8"
        )
        response["Content-Disposition"] = 'attachment; filename="blacklist.csv"'
        return response
    page = CappedPaginator(entries, 50).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "q": q,
        "state": state,
        "querystring": _querystring(request),
        "add_form": add_form,
        "import_form": import_form,
        "open_dialog": open_dialog,
    }
    if request.headers.get("HX-Request") and request.method == "GET":
        return render(request, "sms/_blacklist_rows.html", context)
    return render_tab(request, "sms/blacklist.html", "sms-blacklist", context, status=400 if open_dialog else 200)


@require_POST
@workspace_page(Perm.MANAGE_BLACKLIST)
def blacklist_entry_action(request, actor, entry_id: int, action: str):
    """Deactivate or reactivate one entry (htmx swaps the row; without htmx, back to the list)."""
    service = {"deactivate": services.blacklist_deactivate, "reactivate": services.blacklist_reactivate}.get(action)
    if service is None:
        return render(request, "404.html", status=404)
    try:
        entry = service(actor=actor, entry_id=entry_id)
    except NotFound:
        return render(request, "404.html", status=404)
    except PlatformError as exc:
        messages.error(request, exc.message)
        return redirect("sms-blacklist")
    if request.headers.get("HX-Request"):
        return render(request, "sms/_blacklist_row.html", {"entry": entry})
    messages.success(
        request, f"شماره {display_phone(entry.value)} {'غیرفعال' if action == 'deactivate' else 'دوباره فعال'} شد."
    )
    return redirect("sms-blacklist")


# --- templates --------------------------------------------------------------------------------------------
@workspace_page(Perm.MANAGE_WORKFLOWS)
def template_list(request, actor):
    page = CappedPaginator(selectors.sms_template_queryset(actor=actor), 50).get_page(request.GET.get("page"))
    return render_tab(request, "sms/template_list.html", "sms-templates", {"page": page, "querystring": ""})


@workspace_page(Perm.MANAGE_WORKFLOWS)
def template_form(request, actor, template_id: int | None = None):
    template = None
    if template_id is not None:
        try:
            template = selectors.sms_template_get(actor=actor, template_id=template_id)
        except NotFound:
            return render(request, "404.html", status=404)
    if request.method == "POST" and request.POST.get("action") == "delete" and template is not None:
        with refusal_shown(request):
            services.sms_template_delete(actor=actor, template_id=template.id)
            messages.success(request, f"قالب «{template.name}» حذف شد.")
        return redirect("sms-templates")
    initial = {"name": template.name, "body": template.body} if template else None
    form = SmsTemplateForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            if template is None:
                template = services.sms_template_create(actor=actor, **form.cleaned_data)
            else:
                template = services.sms_template_update(actor=actor, template_id=template.id, data=form.cleaned_data)
        except PlatformError as exc:
            service_errors_to_form(form, exc)
        else:
            messages.success(request, f"قالب «{template.name}» ذخیره شد.")
            return redirect("sms-templates")
    return render_tab(request, "sms/template_form.html", "sms-templates", {"form": form, "template": template})


# --- settings ---------------------------------------------------------------------------------------------
def _settings_context(actor, **forms) -> dict:
    overview = selectors.settings_overview(actor=actor)
    engine = automation_settings_get(actor=actor)
    if "channel_form" not in forms:
        initial = {
            "automation_enabled": engine.enabled,
            "time_zone": workspace_tz(actor.workspace, engine),
            "enabled": overview.settings.enabled,
            "primary_account": overview.settings.primary_account_id,
            "fallback_account": overview.settings.fallback_account_id,
            "opt_out_text": overview.settings.opt_out_text,
            "global_daily_limit": engine.global_daily_limit,
            "sms_retention_days": retention_days(actor.workspace) or None,
            "notifications_email": bool((actor.workspace.settings or {}).get("notifications_email")),
            **ChannelSettingsForm.cap_initial(overview.settings),
            "quiet_fridays": overview.settings.quiet_fridays,
            "quiet_days": ChannelSettingsForm.quiet_days_text(overview.settings.quiet_days),
        }
        forms["channel_form"] = ChannelSettingsForm(
            initial=initial, accounts=overview.accounts, window=engine.default_send_window
        )
    forms.setdefault("account_form", AccountForm())
    forms.setdefault("words_form", InboundWordsForm(initial=InboundWordsForm.initial_for(overview.settings)))
    return {
        "overview": overview,
        "engine": engine,
        "problem_label": PROBLEM_LABELS.get(overview.problem or "", overview.problem),
        "credential_inputs": forms["account_form"].credential_inputs(),
        "test_form": forms.pop("test_form", None) or TestMessageForm(),
        **forms,
    }


@workspace_page(Perm.MANAGE_WORKSPACE)
def settings_page(request, actor):
    action = request.POST.get("action") if request.method == "POST" else None
    if action == "channel":
        return _save_channel(request, actor)
    if action == "account_new":
        return _account_new(request, actor)
    if action == "words":
        return _save_words(request, actor)
    if action in ("resume", "rotate"):
        with refusal_shown(request):
            if action == "resume":
                services.circuit_resume(actor=actor)
                messages.success(request, "کانال پیامک دوباره باز شد؛ ارسال‌ها از سر گرفته می‌شوند.")
            else:
                services.webhook_token_rotate(actor=actor)
                messages.success(request, "نشانی وب‌هوک عوض شد؛ نشانی قبلی دیگر کار نمی‌کند.")
        return redirect("sms-settings")
    return render_tab(request, "sms/settings.html", "sms-settings", _settings_context(actor))


def _settings_saved(request, actor, form, save, **context):
    """A settings tab's form sent: on a valid form ``save()`` stores it and returns the notice shown after the
    redirect; a refusal of the service lands on the form and the settings are shown again (400)."""
    if form.is_valid():
        try:
            notice = save()
        except PlatformError as exc:
            service_errors_to_form(form, exc)
        else:
            messages.success(request, notice)
            return redirect("sms-settings")
    return render_tab(request, "sms/settings.html", "sms-settings", _settings_context(actor, **context), status=400)


def _save_channel(request, actor):
    overview = selectors.settings_overview(actor=actor)
    stored = automation_settings_get(actor=actor).default_send_window
    form = ChannelSettingsForm(request.POST, accounts=overview.accounts, window=stored)
    # Read before the form is judged: a window that does not parse adds its errors to the form.
    window = form.window_config() if form.is_valid() and form.window_editable else stored

    def save() -> str:
        data = form.cleaned_data
        services.sms_settings_update(
            actor=actor,
            data={
                "enabled": data["enabled"],
                "primary_account_id": data["primary_account"],
                "fallback_account_id": data["fallback_account"],
                "opt_out_text": data["opt_out_text"],
                "notifications_email": data["notifications_email"],
                "sms_retention_days": data["sms_retention_days"] or 0,
                "frequency_cap_rules": form.cap_rules_value(),
                "quiet_fridays": data["quiet_fridays"],
                "quiet_days": form.quiet_days_value(),
            },
        )
        engine = {"enabled": data["automation_enabled"]}
        if data["time_zone"]:  # pages and engine count days in one zone
            workspace_time_zone_set(actor=actor, time_zone=data["time_zone"])
            engine["timezone"] = data["time_zone"]
        automation_settings_update(
            actor=actor,
            data=engine | {"default_send_window": window, "global_daily_limit": data["global_daily_limit"]},
        )
        return "تنظیمات پیامک ذخیره شد."

    return _settings_saved(request, actor, form, save, channel_form=form)


def _save_words(request, actor):
    form = InboundWordsForm(request.POST)

    def save() -> str:
        inbound_words_update(actor=actor, data=form.words())
        return "کلمه‌های لغو و شروع دوباره ذخیره شد."

    return _settings_saved(request, actor, form, save, words_form=form)


def _account_new(request, actor):
    form = AccountForm(request.POST)

    def save() -> str:
        data = form.cleaned_data
        account = services.sms_account_create(
            actor=actor,
            name=data["name"],
            provider=data["provider"],
            credentials=form.credentials(),
            senders=data["senders"],
            is_active=data["is_active"],
            line_kind=data["line_kind"],
            prices=form.prices(),
        )
        return f"حساب «{account.name}» افزوده شد."

    return _settings_saved(request, actor, form, save, account_form=form, open_dialog="dlg-account-new")


@workspace_page(Perm.MANAGE_WORKSPACE)
def account_edit(request, actor, account_id: int):
    try:
        account = selectors.account_get(actor=actor, account_id=account_id)
    except NotFound:
        return render(request, "404.html", status=404)
    initial = {
        "name": account.name,
        "provider": account.provider,
        "senders": "\n".join(account.senders or []),
        "is_active": account.is_active,
        "line_kind": account.line_kind,
        "filtered_words": "\n".join(account.filtered_words or []),
        "use_typed_prices": account.use_typed_prices,
        "credit_unit": account.credit_unit,
        **{field: getattr(account, field) for field in PRICE_FIELDS},
    }
    form = AccountForm(request.POST or None, initial=initial, editing=True)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            services.sms_account_update(
                actor=actor,
                account_id=account.id,
                data={
                    "name": data["name"],
                    "senders": data["senders"],
                    "is_active": data["is_active"],
                    "line_kind": data["line_kind"],
                    "filtered_words": data["filtered_words"],
                    "use_typed_prices": data["use_typed_prices"],
                    "credit_unit": data["credit_unit"],
                    **form.prices(),
                    "credentials": form.credentials(),
                },
            )
        except PlatformError as exc:
            service_errors_to_form(form, exc)
        else:
            messages.success(request, f"حساب «{data['name']}» ذخیره شد.")
            return redirect("sms-settings")
    context = {
        "form": form,
        "account": account,
        "credential_inputs": form.credential_inputs().get(account.provider, []),
        "push_path": selectors.inbound_push_path(account),
    }
    return render_tab(request, "sms/account_form.html", "sms-settings", context)


@require_POST
@workspace_page(Perm.MANAGE_WORKSPACE)
def account_test(request, actor, account_id: int):
    """The "send a test message" button: one message through this account now; the answer is shown."""
    form = TestMessageForm(request.POST)
    result, error = None, ""
    if form.is_valid():
        try:
            result = services.sms_account_test_send(actor=actor, account_id=account_id, **form.cleaned_data)
        except NotFound:
            return render(request, "404.html", status=404)
        except PermissionDenied as exc:
            error = exc.message
        except PlatformError as exc:
            error = "؛ ".join(str(e) for errs in (exc.details or {}).values() for e in errs) or exc.message
    else:
        error = "؛ ".join(e for errs in form.errors.values() for e in errs)
    context = {"result": result, "error": error}
    if request.headers.get("HX-Request"):
        return render(request, "sms/_test_result.html", context)
    if result and result["status"] == "submitted":
        messages.success(request, "پیام آزمایشی به سرویس‌دهنده تحویل شد.")
    else:
        messages.error(request, error or f"ارسال آزمایشی ناموفق بود ({(result or {}).get('status', '')}).")
    return redirect("sms-settings")
