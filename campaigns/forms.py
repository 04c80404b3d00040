"""Forms for pages and the admin; phone input always goes through TargetContact."""

from django import forms
from django.contrib.admin import forms as admin_forms
from django.contrib.auth import authenticate
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError

from campaigns.calendar import GREGORIAN, JALALI
from campaigns.choices import TargetStatus
from campaigns.models import Target
from campaigns.platform.jalali import fa_digits
from campaigns.platform.phones import ContactError, TargetContact, display_phone
from campaigns.platform.text import StrictTextFormMixin
from campaigns.platform.widgets import NumberField, PhoneInput
from campaigns.selectors import target_number_clashes
from campaigns.services.targets import MSG_DUPLICATE


def _throttled_error(request) -> ValidationError | None:
    """The error of a credential check the login throttle refused (campaigns/platform/login_throttle.py)."""
    wait = getattr(request, "login_retry_after", 0)
    if not wait:
        return None
    return ValidationError(f"تلاش‌های ناموفق زیاد بود؛ {fa_digits(wait)} ثانیه دیگر دوباره تلاش کنید.", code="throttled")


class ThrottledLoginFormMixin:
    """A login refused by the login throttle says how long to wait."""

    def get_invalid_login_error(self):
        return _throttled_error(self.request) or super().get_invalid_login_error()


class LoginForm(ThrottledLoginFormMixin, AuthenticationForm):
    error_messages = {**AuthenticationForm.error_messages, "invalid_login": "نام کاربری یا گذرواژه نادرست است."}


class AdminLoginForm(ThrottledLoginFormMixin, admin_forms.AdminAuthenticationForm):
    pass


class AdminPasswordChangeForm(admin_forms.AdminPasswordChangeForm):
    """The admin's own-password change: the current password is checked through the login throttle."""

    def __init__(self, user, *args, request=None, **kwargs) -> None:
        super().__init__(user, *args, **kwargs)
        self.request = request

    def clean_old_password(self):
        old_password = self.cleaned_data["old_password"]
        if authenticate(self.request, username=self.user.get_username(), password=old_password) != self.user:
            raise _throttled_error(self.request) or ValidationError(
                self.error_messages["password_incorrect"], code="password_incorrect"
            )
        return old_password


class TargetAdminForm(StrictTextFormMixin, forms.ModelForm):
    """Admin edits get the same number rules as the API and the import."""

    visible_name_fields = ("name",)

    mobile = forms.CharField(label="موبایل", required=False, widget=PhoneInput)
    landline = forms.CharField(label="تلفن ثابت", required=False, widget=PhoneInput)

    class Meta:
        model = Target
        fields = [
            "workspace",
            "name",
            "first_name",
            "last_name",
            "mobile",
            "landline",
            "status",
            "owner",
            "province",
            "city",
            "priority",
            "lists",
            "attributes",
        ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.initial["mobile"] = display_phone(self.instance.mobile)
            self.initial["landline"] = display_phone(self.instance.landline)

    def clean(self):
        cleaned = super().clean()
        try:
            contact = TargetContact.from_fields(mobile=cleaned.get("mobile"), landline=cleaned.get("landline"))
        except ContactError as exc:
            for field, messages in exc.errors.items():
                for message in messages:
                    self.add_error(None if field == "non_field_errors" else field, message)
            return cleaned
        cleaned["mobile"], cleaned["landline"] = contact.mobile, contact.landline
        workspace = cleaned.get("workspace") or (self.instance.workspace if self.instance.workspace_id else None)
        if workspace is not None:
            clashes = target_number_clashes(
                workspace=workspace,
                mobile=contact.mobile,
                landline=contact.landline,
                exclude_id=self.instance.pk,
            )
            for field, existing in clashes.items():
                self.add_error(field, MSG_DUPLICATE.format(name=existing.name))
            if any(tl.workspace_id != workspace.id for tl in cleaned.get("lists") or ()):
                self.add_error("lists", "فهرست‌ها باید از همین فضای کاری باشند.")
        return cleaned


class TargetPageForm(StrictTextFormMixin, forms.Form):
    """Create/edit form of the Persian targets page (the service validates numbers)."""

    visible_name_fields = ("name",)

    name = forms.CharField(label="نام", max_length=200)
    first_name = forms.CharField(label="نام کوچک", max_length=100, required=False)
    last_name = forms.CharField(label="نام خانوادگی", max_length=100, required=False)
    mobile = forms.CharField(label="موبایل", max_length=40, required=False, widget=PhoneInput)
    landline = forms.CharField(label="تلفن ثابت", max_length=40, required=False, widget=PhoneInput)
    status = forms.ChoiceField(label="وضعیت", choices=TargetStatus.choices, initial=TargetStatus.NEW)
    province = forms.CharField(label="استان", max_length=80, required=False)
    city = forms.CharField(label="شهر", max_length=80, required=False)
    priority = NumberField(label="اولویت", initial=0, min_value=-1000, max_value=1000)
    list_ids = forms.MultipleChoiceField(label="فهرست‌ها", required=False, widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args, lists=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["list_ids"].choices = [(tl.id, tl.name) for tl in lists]

    def add_service_errors(self, details: dict) -> None:
        for field, messages in details.items():
            if field == "duplicate_of":
                continue
            for message in messages if isinstance(messages, list) else [messages]:
                self.add_error(field if field in self.fields else None, str(message))


class WorkspaceApprovalSettingsForm(forms.Form):
    """The workspace's approval and schedule settings page (``workspace_approval_settings_update``)."""

    CALENDARS = (
        (
            JALALI,
            "شمسی",
            "روزهای ماه در زمان‌بندی زنجیره‌ها با تقویم شمسی شمرده می‌شوند: «هر ماه روز ۱» یعنی ۱ فروردین، ۱ اردیبهشت و …",
        ),
        (
            GREGORIAN,
            "میلادی",
            "روزهای ماه در زمان‌بندی زنجیره‌ها با تقویم میلادی شمرده می‌شوند (۱ ژانویه، ۱ فوریه و …) و تاریخ‌ها باز هم"
            " به شمسی نمایش داده می‌شوند.",
        ),
    )

    campaigns_need_approval = forms.BooleanField(
        required=False,
        label="کمپین‌ها پیش از شروع تأیید می‌خواهند",
        help_text="هر کمپین مستقل (پیامکی یا مرورگر) پیش از شروع باید برای تأیید فرستاده شود و یکی از مدیران آن را"
        " تأیید کند؛ زنجیره‌ها همیشه تأیید می‌خواهند.",
    )
    approval_four_eyes = forms.BooleanField(
        required=False,
        label="تأیید چهارچشمی",
        help_text="کسی که بسته یا کمپین را برای تأیید می‌فرستد نمی‌تواند خودش آن را تأیید کند.",
    )
    calendar = forms.ChoiceField(
        label="تقویم زمان‌بندی زنجیره‌ها",
        choices=[(value, label) for value, label, _ in CALENDARS],
        widget=forms.RadioSelect,
    )

    def calendar_options(self) -> list[dict]:
        """Each calendar with its sentence, and whether it is the one chosen (the template draws the radios)."""
        chosen = self["calendar"].value()
        return [
            {"value": value, "label": label, "help": help_text, "checked": value == chosen}
            for value, label, help_text in self.CALENDARS
        ]
