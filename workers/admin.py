"""Django admin for the browser channel (secrets are write-only here too)."""

from django import forms
from django.contrib import admin, messages
from django.db.models import F
from django.utils import timezone

from campaigns.platform.admin import ReadOnlyAdmin, ServiceMadeMixin, WorkspaceScopedAdmin, admin_actor, jalali_column
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.text import StrictTextFormMixin
from workers.choices import SessionStatus
from workers.models import (
    ActionConfig,
    BrowserAccount,
    BrowserEvent,
    BrowserTask,
    BrowserTaskScreenshot,
    CampaignPlatform,
    CampaignStatistics,
    Proxy,
)
from workers.services.accounts import (
    COOKIE_FIELDS,
    MSG_NEW_COOKIES,
    MSG_NEW_PASSWORD,
    MSG_PROXY_CARRIES_COOKIES,
    MSG_ROUTE_NEEDS_COOKIES,
    PROXY_DESTINATION,
    account_cookies,
    account_route_moved,
    may_move_cookies,
    proxy_carries_cookies,
    proxy_destination_moved,
    proxy_secret_kept,
)


class SecretWidget(forms.PasswordInput):
    """Never renders the stored value; leaving it empty keeps the current secret."""

    def __init__(self):
        super().__init__(render_value=False)


class BrowserAccountForm(StrictTextFormMixin, forms.ModelForm):
    visible_name_fields = ("label",)

    cookies = forms.CharField(
        label="کوکی‌ها",
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        help_text="خالی بگذارید تا کوکی‌های فعلی بمانند.",
    )

    class Meta:
        model = BrowserAccount
        fields = [
            "workspace",
            "label",
            "platform",
            "cookie_domain",
            "cookies",
            "user_agent",
            "viewport_width",
            "viewport_height",
            "proxy",
            "use_proxy_pool",
        ]

    # Set per request by ``_CookieKeeperAdmin.get_form``: whether the user may re-route stored cookies.
    may_move_cookies = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.initial["cookies"] = ""

    def clean(self):
        """Cookies are validated and bound to the platform's domain; moving them to another domain needs new ones."""
        data = super().clean()
        pasted = data.get("cookies") or ""
        if self.instance.pk and not pasted:
            if data.get("cookie_domain", "") != self.instance.cookie_domain and self.instance.cookies:
                self.add_error("cookies", MSG_NEW_COOKIES)
                return data
            route = {"proxy_id": getattr(data.get("proxy"), "pk", None), "use_proxy_pool": data.get("use_proxy_pool")}
            if account_route_moved(account=self.instance, data=route) and not self.may_move_cookies:
                self.add_error("cookies", MSG_ROUTE_NEEDS_COOKIES)
                return data
            pasted = self.instance.cookies
        try:
            fields = account_cookies(raw=pasted, site=data.get("cookie_domain") or "")
        except ValidationFailed as exc:
            for field, messages_ in exc.details.items():
                self.add_error(field, messages_)
            return data
        data.update(fields)
        for name in COOKIE_FIELDS:
            setattr(self.instance, name, fields[name])
        return data


class ProxyForm(StrictTextFormMixin, forms.ModelForm):
    visible_name_fields = ("label",)

    password = forms.CharField(
        label="گذرواژه", widget=SecretWidget(), required=False, help_text="خالی بگذارید تا گذرواژه فعلی بماند."
    )

    class Meta:
        model = Proxy
        fields = [
            "workspace",
            "label",
            "protocol",
            "host",
            "port",
            "username",
            "password",
            "is_available",
            "cooldown_until",
        ]

    # Set per request by ``_CookieKeeperAdmin.get_form``: whether the user may move a proxy that carries cookies.
    may_move_cookies = False

    def clean(self):
        """An empty password keeps the stored one, unless the destination changed (then a new one is needed);
        moving a proxy that accounts holding cookies go through needs the owner or admin role."""
        data = super().clean()
        edited = {field: data[field] for field in PROXY_DESTINATION if field in data}
        if self.instance.pk and proxy_destination_moved(proxy=self.instance, data=edited):
            if not self.may_move_cookies and proxy_carries_cookies(self.instance):
                self.add_error("host", MSG_PROXY_CARRIES_COOKIES)
                return data
        if self.instance.pk and not data.get("password"):
            edited = {field: data[field] for field in PROXY_DESTINATION if field in data}
            if proxy_secret_kept(proxy=self.instance, data=edited):
                self.add_error("password", MSG_NEW_PASSWORD)
            else:
                data["password"] = self.instance.password
        return data


class _CookieKeeperAdmin(WorkspaceScopedAdmin):
    """An account or a proxy: its form learns, per request, whether the user may move the cookies it carries."""

    manage_perm = Perm.MANAGE_BROWSER

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        allowed = obj is None or may_move_cookies(admin_actor(request, obj.workspace))
        return type(form.__name__, (form,), {"may_move_cookies": allowed})


@admin.register(BrowserAccount)
class BrowserAccountAdmin(_CookieKeeperAdmin):
    form = BrowserAccountForm

    list_display = (
        "label",
        "platform",
        "workspace",
        "session_status",
        "error_score",
        "usage_count",
        "proxy",
        "last_used_jalali",
    )
    list_filter = ("session_status", "platform", "workspace")
    search_fields = ("label", "platform")
    readonly_fields = ("session_status", "revision", "error_score", "usage_count", "last_used_at")
    last_used_jalali = jalali_column("last_used_at", "آخرین استفاده")
    actions = ["reactivate"]

    @admin.action(description="فعال‌سازی دوباره نشست‌ها", permissions=["change"])
    def reactivate(self, request, queryset):
        n = queryset.exclude(session_status=SessionStatus.ACTIVE).update(
            session_status=SessionStatus.ACTIVE, error_score=0, revision=F("revision") + 1
        )
        self.message_user(request, f"{n} حساب فعال شد.", messages.SUCCESS)


@admin.register(Proxy)
class ProxyAdmin(_CookieKeeperAdmin):
    form = ProxyForm
    list_display = (
        "__str__",
        "workspace",
        "protocol",
        "is_available",
        "error_score",
        "cooldown_until",
        "last_error",
        "success_count",
        "failure_count",
    )
    list_filter = ("is_available", "protocol", "workspace")
    search_fields = ("label", "host", "last_error")
    readonly_fields = ("error_score", "last_error", "last_error_at", "success_count", "failure_count")
    actions = ["reset"]

    @admin.action(description="بازگرداندن به چرخه (امتیاز خطا صفر)", permissions=["change"])
    def reset(self, request, queryset):
        n = queryset.update(is_available=True, error_score=0, cooldown_until=None, updated_at=timezone.now())
        self.message_user(request, f"{n} پراکسی در دسترس شد.", messages.SUCCESS)


@admin.register(ActionConfig)
class ActionConfigAdmin(WorkspaceScopedAdmin):
    manage_perm = Perm.MANAGE_BROWSER
    list_display = ("platform", "action_type", "workspace", "updated_jalali")
    list_filter = ("action_type", "platform", "workspace")
    search_fields = ("platform",)


@admin.register(CampaignPlatform)
class CampaignPlatformAdmin(ServiceMadeMixin, WorkspaceScopedAdmin):
    """Created with the campaign (services); accounts and links in ``metadata`` are fixed at creation."""

    manage_perm = Perm.MANAGE_BROWSER
    list_display = ("campaign", "platform", "status", "is_tasks_created", "start_date", "created_jalali")
    list_filter = ("status", "is_tasks_created", "platform", "workspace")
    search_fields = ("campaign__name", "platform")
    readonly_fields = ("campaign", "platform", "metadata", "status", "revision", "is_tasks_created", "tasks_created_at")


@admin.register(BrowserTask)
class BrowserTaskAdmin(ServiceMadeMixin, WorkspaceScopedAdmin):
    """Tasks are created by the creation job and change through dispatch/results/retry services."""

    manage_perm = Perm.MANAGE_BROWSER
    ordering = ("-id",)  # newest first by the primary key (the model's dispatch order has only a partial index)
    list_display = (
        "id",
        "campaign",
        "account",
        "proxy",
        "action_type",
        "status",
        "attempt_count",
        "error_code",
        "start_date",
        "finished_at",
    )
    list_filter = ("status", "error_code", "action_type", "server", "workspace")
    search_fields = ("link", "account__label", "campaign__name", "error_reason")
    readonly_fields = (
        "campaign",
        "platform",
        "account",
        "proxy",
        "replaces",
        "link",
        "action_type",
        "server",
        "status",
        "revision",
        "attempt_count",
        "proxy_failures",
        "dispatched_at",
        "lease_expires_at",
        "finished_at",
        "result_data",
        "error_code",
        "error_reason",
    )
    list_select_related = ("campaign", "account", "proxy")


@admin.register(BrowserTaskScreenshot)
class BrowserTaskScreenshotAdmin(ReadOnlyAdmin):
    list_display = ("task", "url", "created_at")
    search_fields = ("url",)
    list_filter = ("workspace",)
    raw_id_fields = ("task",)
    exclude = ("png",)


@admin.register(CampaignStatistics)
class CampaignStatisticsAdmin(ReadOnlyAdmin):
    list_display = ("campaign", "total", "completed", "failed", "pending", "refreshed_jalali")
    list_filter = ("workspace",)
    search_fields = ("campaign__name",)
    raw_id_fields = ("campaign",)
    refreshed_jalali = jalali_column("refreshed_at", "به‌روزرسانی")


@admin.register(BrowserEvent)
class BrowserEventAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "type", "workspace", "campaign", "task", "account", "proxy", "message")
    list_filter = ("type", "workspace")
    search_fields = ("message",)
