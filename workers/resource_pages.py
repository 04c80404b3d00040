"""Accounts and proxies pages: lists, add / edit with write-only secrets, status actions (the API's services)."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from campaigns.platform.errors import PlatformError, ValidationFailed
from campaigns.platform.jalali import fa_digits
from campaigns.platform.pages import refusal_shown, workspace_page
from campaigns.platform.pagination import CappedPaginator
from campaigns.platform.permissions import Perm
from workers import page_selectors, selectors
from workers.forms import AccountForm, ProxyForm
from workers.services import accounts as services
from workers.services import imports
from workers.views import perms

ACCOUNT_ACTIONS = {"expire": "منقضی اعلام شد", "disable": "غیرفعال شد", "reactivate": "دوباره فعال شد"}


@workspace_page(Perm.VIEW_BROWSER_DETAILS)
def account_list(request, actor):
    rows = page_selectors.live_accounts(actor=actor).order_by("platform", "label", "id")
    page = CappedPaginator(rows, 50).get_page(request.GET.get("page"))
    context = {"page": page, "querystring": "", "section": "accounts", **perms(actor)}
    return render(request, "workers/account_list.html", context)


def _edit(request, actor, *, form_class, template, section, instance=None, initial=None, save, **form_kwargs):
    form = form_class(request.POST or None, initial=initial, **form_kwargs)
    if request.method == "POST" and form.is_valid():
        try:
            saved = save(form.service_data(editing=instance is not None))
        except PlatformError as exc:
            form.add_service_errors(exc.details or {}, exc.message)
        else:
            messages.success(request, f"«{saved}» ذخیره شد.")
            return redirect(f"browser-{section}")
    status = 400 if request.method == "POST" else 200
    context = {"form": form, "instance": instance, "section": section, **perms(actor)}
    return render(request, template, context, status=status)


@workspace_page(Perm.MANAGE_BROWSER)
def account_edit(request, actor, account_id: int | None = None):
    account = selectors.account_get(actor=actor, account_id=account_id) if account_id else None
    initial = None
    if account is not None:
        fields = ("label", "platform", "cookie_domain", "user_agent", "viewport_width", "viewport_height")
        initial = {name: getattr(account, name) for name in fields} | {
            "proxy": account.proxy_id,
            "use_proxy_pool": account.use_proxy_pool,
        }

    def save(data):
        if account is None:
            return services.account_create(actor=actor, **data)
        return services.account_update(actor=actor, account_id=account.pk, data=data)

    return _edit(
        request,
        actor,
        form_class=AccountForm,
        template="workers/account_form.html",
        section="accounts",
        instance=account,
        initial=initial,
        save=save,
        proxies=page_selectors.live_proxies(actor=actor),
        platforms=page_selectors.configured_platforms(actor=actor),
    )


@require_POST
@workspace_page(Perm.MANAGE_BROWSER)
def account_action(request, actor, account_id: int):
    action = request.POST.get("action", "")
    with refusal_shown(request):
        account = services.account_set_status(actor=actor, account_id=account_id, transition=action)
        messages.success(request, f"«{account.label}» {ACCOUNT_ACTIONS[action]}.")
    return redirect("browser-accounts")


@workspace_page(Perm.VIEW_BROWSER_DETAILS)
def proxy_list(request, actor):
    rows = page_selectors.live_proxies(actor=actor).order_by("host", "port", "id")
    page = CappedPaginator(rows, 50).get_page(request.GET.get("page"))
    context = {"page": page, "querystring": "", "section": "proxies", **perms(actor)}
    return render(request, "workers/proxy_list.html", context)


@workspace_page(Perm.MANAGE_BROWSER)
def proxy_edit(request, actor, proxy_id: int | None = None):
    proxy = selectors.proxy_get(actor=actor, proxy_id=proxy_id) if proxy_id else None
    initial = None
    if proxy is not None:
        initial = {name: getattr(proxy, name) for name in ("label", "protocol", "host", "port", "username")}

    def save(data):
        if proxy is None:
            return services.proxy_create(actor=actor, **data)
        return services.proxy_update(actor=actor, proxy_id=proxy.pk, data=data)

    return _edit(
        request,
        actor,
        form_class=ProxyForm,
        template="workers/proxy_form.html",
        section="proxies",
        instance=proxy,
        initial=initial,
        save=save,
    )


@require_POST
@workspace_page(Perm.MANAGE_BROWSER)
def proxy_reset(request, actor, proxy_id: int):
    with refusal_shown(request):
        proxy = services.proxy_reset(actor=actor, proxy_id=proxy_id)
        messages.success(request, f"«{proxy}» دوباره در چرخه است.")
    return redirect("browser-proxies")


IMPORT_TITLES = {"accounts": "ورود حساب‌ها از فایل", "proxies": "ورود پراکسی‌ها از فایل"}


@workspace_page(Perm.MANAGE_BROWSER)
def bulk_import(request, actor, kind: str):
    """Upload → a preview of every row's problems → commit the good rows (``workers.services.imports``)."""
    preview, error = None, ""
    if request.method == "POST":
        try:
            if request.POST.get("token"):
                n = imports.import_commit(actor=actor, kind=kind, token=request.POST["token"])
                messages.success(request, f"{fa_digits(n)} ردیف ساخته شد.")
                return redirect(f"browser-{kind}")
            upload = request.FILES.get("file")
            if upload is None:
                raise ValidationFailed.field("file", "فایلی انتخاب نشده است.")
            imports.import_check_size(size=upload.size)
            content = upload.read(imports.PREVIEW_MAX_BYTES + 1)
            preview = imports.import_preview(actor=actor, kind=kind, file_name=upload.name, content=content)
        except PlatformError as exc:
            details = exc.details or {}
            error = (
                " ".join(str(p) for v in details.values() for p in (v if isinstance(v, list) else [v])) or exc.message
            )
    context = {
        "kind": kind,
        "title": IMPORT_TITLES[kind],
        "columns": imports.COLUMNS[kind],
        "preview": preview,
        "error": error,
        "section": kind,
        **perms(actor),
    }
    return render(request, "workers/import.html", context, status=400 if error else 200)
