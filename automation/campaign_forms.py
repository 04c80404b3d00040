"""Forms of the journey campaign pages: they only shape input; the rules live in the services."""

from __future__ import annotations

from django import forms

from automation.engine.registry import FACTS
from campaigns.choices import CapPriority, TargetStatus
from campaigns.platform.jalali import fa_digits
from campaigns.platform.text import StrictTextFormMixin
from campaigns.platform.widgets import JalaliDateTimeField, NumberField, WeekWindowFields


def stop_fact_choices() -> list[tuple[str, str]]:
    """The facts channels offer as a campaign's stop (``Fact.stop_label``)."""
    return [(key, fact.stop_label) for key, fact in FACTS if fact.stop_label]


class JourneyCampaignForm(StrictTextFormMixin, WeekWindowFields, forms.Form):
    visible_name_fields = ("name",)

    name = forms.CharField(label="نام کمپین", max_length=200)
    description = forms.CharField(label="توضیحات", required=False, widget=forms.Textarea(attrs={"rows": 2}))
    workflow = forms.TypedChoiceField(label="گردش‌کار (نسخه منتشرشده)", coerce=int)
    daily_limit = NumberField(
        label="سقف ارسال روزانه",
        required=False,
        min_value=1,
        help_text="خالی: سقف گردش‌کار (اگر دارد).",
    )
    source_list = forms.TypedChoiceField(
        label="افزودن مخاطبان یک فهرست",
        required=False,
        coerce=int,
        empty_value=None,
        help_text="اختیاری؛ پس از ساخت، صفحه بررسی افزودن همین فهرست باز می‌شود.",
    )
    stop_when_target_status_in = forms.MultipleChoiceField(
        label="توقف سفر مخاطب وقتی وضعیتش شد",
        required=False,
        choices=TargetStatus.choices,
        widget=forms.CheckboxSelectMultiple,
        help_text="پیش از هر گام بررسی می‌شود؛ مثلاً مخاطبی که «علاقه‌مند» شد دیگر پیامکی نمی‌گیرد.",
    )

    stop_when_facts = forms.MultipleChoiceField(
        label="توقف سفر مخاطب وقتی",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="پیش از هر گام بررسی می‌شود؛ مثلاً مخاطبی که به پیامک پاسخ داد دیگر پیامکی از این سفر نمی‌گیرد.",
    )

    frequency_cap_priority = forms.ChoiceField(
        label="اولویت در سقف پیامک تبلیغاتی",
        choices=CapPriority.choices,
        initial=CapPriority.NORMAL,
        required=False,
        help_text="وقتی سقف هر نفر (روز، هفته یا ماه) نزدیک پر شدن است: «بالا» زودتر از بقیه نوبت می‌گیرد؛ "
        "«پایین» واحد آخر هر سقف (اگر سقف دست‌کم ۲ باشد) را برای کمپین‌های عادی و بالا می‌گذارد.",
    )

    def __init__(self, *args, workflows=(), lists=(), time_zone: str = "Asia/Tehran", window=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["stop_when_facts"].choices = stop_fact_choices()
        self.fields["workflow"].choices = [("", "— انتخاب کنید —")] + [
            (w.id, f"{w.name} — نسخه {fa_digits(w.published_version.version_number)}") for w in workflows
        ]
        self.fields["source_list"].choices = [("", "—")] + [(tl.id, tl.name) for tl in lists]
        self.fields["starts_at"] = JalaliDateTimeField(
            label="شروع (تاریخ شمسی)", time_zone=time_zone, help_text="خالی: با دکمه شروع."
        )
        self.fields["ends_at"] = JalaliDateTimeField(
            label="پایان (تاریخ شمسی)", time_zone=time_zone, help_text="خالی: بدون پایان."
        )
        self.time_zone = time_zone
        # Empty: the workflow's or the workspace's window applies.
        self.add_window_fields(config=window, time_zone=time_zone)

    def service_data(self) -> dict:
        data = self.cleaned_data
        return {
            "name": data["name"],
            "description": data.get("description") or "",
            "workflow_id": data["workflow"],
            "starts_at": data.get("starts_at"),
            "ends_at": data.get("ends_at"),
            "daily_limit": data.get("daily_limit"),
            "send_window": self.window_config(),
            "source_target_list_id": data.get("source_list"),
            "settings": self.settings_data(),
        }

    def settings_data(self, current: dict | None = None) -> dict:
        settings = dict(current or {})
        settings.pop("stop_when_target_status_in", None)
        settings.pop("stop_when_facts", None)
        settings.pop("frequency_cap_priority", None)
        stop = self.cleaned_data.get("stop_when_target_status_in")
        facts = self.cleaned_data.get("stop_when_facts")
        priority = self.cleaned_data.get("frequency_cap_priority") or CapPriority.NORMAL
        return (
            settings
            | ({"stop_when_target_status_in": stop} if stop else {})
            | ({"stop_when_facts": facts} if facts else {})
            | ({"frequency_cap_priority": priority} if priority != CapPriority.NORMAL else {})
        )

    def add_service_errors(self, details: dict) -> None:
        names = {
            "workflow_id": "workflow",
            "source_target_list_id": "source_list",
            "send_window": None,
            "settings": "stop_when_target_status_in",
        }
        for name, problems in (details or {}).items():
            field = names.get(name, name)
            if field not in self.fields:
                field = None
            for problem in problems if isinstance(problems, list) else [problems]:
                self.add_error(field, str(problem))


class JourneyCampaignEditForm(JourneyCampaignForm):
    """The editable part of a journey campaign, filled from it: the workflow and its version stay pinned."""

    def __init__(self, *args, campaign, time_zone: str = "Asia/Tehran", **kwargs):
        self.campaign = campaign
        initial = {
            "name": campaign.name,
            "description": campaign.description,
            "daily_limit": campaign.daily_limit,
            "starts_at": campaign.starts_at,
            "ends_at": campaign.ends_at,
            "stop_when_target_status_in": (campaign.journey_settings or {}).get("stop_when_target_status_in", []),
            "stop_when_facts": (campaign.journey_settings or {}).get("stop_when_facts", []),
            "frequency_cap_priority": (campaign.journey_settings or {}).get(
                "frequency_cap_priority", CapPriority.NORMAL
            ),
        }
        super().__init__(*args, initial=initial, time_zone=time_zone, window=campaign.send_window, **kwargs)
        for name in ("workflow", "source_list"):
            del self.fields[name]

    def changes(self) -> dict:
        data = self.cleaned_data
        out = {
            "name": data["name"],
            "description": data.get("description") or "",
            "starts_at": data.get("starts_at"),
            "ends_at": data.get("ends_at"),
            "daily_limit": data.get("daily_limit"),
            "settings": self.settings_data(self.campaign.journey_settings),
        }
        if self.window_editable:
            out["send_window"] = self.window_config()
        return out


class AutoEnrollForm(forms.Form):
    """A campaign's auto-enroll rule: the conditions (at least one), the daily cap and "include existing"."""

    enabled = forms.BooleanField(label="افزودن خودکار روشن باشد", required=False, initial=True)
    list = forms.TypedChoiceField(label="فهرست", required=False, coerce=int, empty_value=None)
    province = forms.CharField(label="استان", required=False, max_length=100)
    city = forms.CharField(label="شهر", required=False, max_length=100)
    status = forms.MultipleChoiceField(
        label="وضعیت", required=False, choices=TargetStatus.choices, widget=forms.CheckboxSelectMultiple
    )
    priority_min = NumberField(label="اولویت دست‌کم", required=False)
    daily_cap = NumberField(
        label="سقف روزانه افزودن",
        min_value=1,
        max_value=5000,
        initial=200,
        help_text="در هر بررسی (هر ۵ دقیقه) دست‌بالا ۲۰۰ مخاطب؛ مازاد سقف روزانه فردا افزوده می‌شود.",
    )
    include_existing = forms.BooleanField(
        label="مخاطبان موجود هم افزوده شوند", required=False, help_text="بدون آن فقط مخاطبانی که از این پس ساخته شوند."
    )
    confirmed_existing_count = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)

    FILTERS = ("list", "province", "city", "status", "priority_min")

    def __init__(self, *args, lists=(), rule=None, **kwargs):
        if rule is not None and "initial" not in kwargs:
            kwargs["initial"] = {
                **rule.filters,
                "enabled": rule.enabled,
                "daily_cap": rule.daily_cap,
                "include_existing": rule.include_existing,
            }
        super().__init__(*args, **kwargs)
        self.fields["list"].choices = [("", "— همه فهرست‌ها —")] + [(tl.id, tl.name) for tl in lists]

    def filters(self) -> dict:
        data = getattr(self, "cleaned_data", {})
        return {k: data[k] for k in self.FILTERS if data.get(k) not in (None, "", [])}
