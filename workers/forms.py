"""Forms of the browser pages: they only shape input; the rules live in the services (same as the API)."""

from __future__ import annotations

from django import forms
from django.core.validators import URLValidator
from django.urls import reverse

from automation.campaign_forms import JalaliDateTimeField
from campaigns.platform.jalali import fa_digits
from campaigns.platform.text import StrictTextFormMixin
from campaigns.platform.widgets import NumberField
from workers import netguard
from workers.choices import ActionType, ProxyProtocol, SessionStatus
from workers.links import MAX_LINK_LENGTH

LTR = {"dir": "ltr", "lang": "en"}
MAX_LINKS = 1000  # the API's bound (BrowserCampaignInput.target_links)


def link_problems(text: str) -> tuple[list[str], list[str]]:
    """(links, "line N: problem" messages) — each line checked like the API: a URL, then the address guard."""
    links, problems = [], []
    guard = netguard.NetGuard()
    validate = URLValidator(schemes=["http", "https"])
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if len(lines) > MAX_LINKS:
        return [], [f"حداکثر {fa_digits(MAX_LINKS)} نشانی در هر کمپین."]
    for number, line in lines:
        prefix = f"سطر {fa_digits(number)}: "
        if len(line) > MAX_LINK_LENGTH:
            problems.append(prefix + f"نشانی بیش از {fa_digits(MAX_LINK_LENGTH)} نویسه است.")
            continue
        try:
            validate(line)
            guard.check_url(line)
        except forms.ValidationError:
            problems.append(prefix + "نشانی معتبر http یا https نیست.")
            continue
        except netguard.AddressNotAllowed as exc:
            problems.append(prefix + exc.message)
            continue
        links.append(line)
    return links, problems


class BrowserCampaignForm(StrictTextFormMixin, forms.Form):
    visible_name_fields = ("name",)

    name = forms.CharField(label="نام کمپین", max_length=200)
    description = forms.CharField(label="توضیحات", required=False, widget=forms.Textarea(attrs={"rows": 2}))
    platform = forms.ChoiceField(label="سکو")
    action = forms.ChoiceField(label="نوع کار", choices=ActionType.choices)
    target_links = forms.CharField(
        label="نشانی‌های هدف",
        widget=forms.Textarea(attrs={"rows": 5, **LTR, "placeholder": "https://example.com/post/1"}),
        help_text="هر نشانی در یک سطر.",
    )
    content_template = forms.CharField(
        label="الگوی متن دیدگاه",
        required=False,
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="برای دیدگاه لازم است؛ {link} و {account} جایگزین می‌شوند.",
    )
    pacing_seconds = NumberField(label="فاصله دو کار یک حساب (ثانیه)", required=False, min_value=0, max_value=86400)
    concurrency_cap = NumberField(label="حداکثر کار هم‌زمان", required=False, min_value=1, max_value=10000)
    max_attempts = NumberField(label="حداکثر تلاش هر کار", required=False, min_value=1, max_value=10)

    def __init__(self, *args, platforms=(), accounts=(), time_zone: str = "Asia/Tehran", **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["platform"].choices = [("", "— انتخاب کنید —")] + [(p, p) for p in platforms]
        self.fields["platform"].widget.attrs.update(  # the account picker follows the platform (htmx)
            {
                "hx-get": reverse("browser-campaign-accounts"),
                "hx-target": "#account-picker",
                "hx-swap": "outerHTML",
                "hx-include": "[name=accounts],[name=spare_accounts]",
            }
        )
        self.fields["start_date"] = JalaliDateTimeField(
            label="شروع (تاریخ شمسی)", time_zone=time_zone, help_text="خالی: همین حالا."
        )
        self.accounts = list(accounts)
        usable = [(a.id, a.label) for a in self.accounts if a.session_status == SessionStatus.ACTIVE]
        self.fields["accounts"] = forms.TypedMultipleChoiceField(
            label="حساب‌ها", choices=usable, coerce=int, widget=forms.CheckboxSelectMultiple
        )
        self.fields["spare_accounts"] = forms.TypedMultipleChoiceField(
            label="حساب‌های یدک", choices=usable, coerce=int, required=False, widget=forms.CheckboxSelectMultiple
        )

    def account_rows(self):
        """One row per account of the chosen platform (all before one is chosen): picked as main / spare, usable."""
        main = {str(v) for v in (self["accounts"].value() or [])}
        spare = {str(v) for v in (self["spare_accounts"].value() or [])}
        platform = self["platform"].value()
        return [
            (a, str(a.id) in main, str(a.id) in spare, a.session_status == SessionStatus.ACTIVE)
            for a in self.accounts
            if not platform or a.platform == platform
        ]

    def clean_target_links(self):
        links, problems = link_problems(self.cleaned_data["target_links"])
        if problems:
            raise forms.ValidationError(problems)
        if not links:
            raise forms.ValidationError("دست‌کم یک نشانی لازم است.")
        return links

    def service_data(self) -> dict:
        data = self.cleaned_data
        return {
            "name": data["name"],
            "description": data.get("description") or "",
            "platform": data["platform"],
            "action": data["action"],
            "accounts": data["accounts"],
            "spare_accounts": data.get("spare_accounts") or [],
            "target_links": data["target_links"],
            "content_template": data.get("content_template") or "",
            "start_date": data.get("start_date"),
            "pacing_seconds": data.get("pacing_seconds"),
            "concurrency_cap": data.get("concurrency_cap"),
            "max_attempts": data.get("max_attempts"),
        }

    def add_service_errors(self, details: dict, message: str = "") -> None:
        """Service problems under their field; ``target_links[3]`` becomes "line 4" of the links box."""
        if not details and message:
            self.add_error(None, message)
        for name, problems in (details or {}).items():
            field = name if name in self.fields else None
            if name.startswith("target_links["):
                field = "target_links"
                index = int(name[len("target_links[") : -1])
                problems = [f"سطر {fa_digits(index + 1)}: {p}" for p in problems]
            if name == "steps":
                field = "action"
            for problem in problems if isinstance(problems, list) else [problems]:
                self.add_error(field, str(problem))

    @staticmethod
    def initial_from(campaign, platform) -> dict:
        meta = platform.metadata
        return {
            "name": campaign.name,
            "description": campaign.description,
            "platform": platform.platform,
            "action": meta.get("action_type"),
            "accounts": meta.get("account_ids") or [],
            "spare_accounts": meta.get("spare_account_ids") or [],
            "target_links": "\n".join(meta.get("target_links") or []),
            "content_template": meta.get("content_template") or "",
            "start_date": platform.start_date,
            "pacing_seconds": meta.get("pacing_seconds"),
            "concurrency_cap": meta.get("concurrency_cap"),
            "max_attempts": (meta.get("retry") or {}).get("max_attempts"),
        }


class ServiceErrorsMixin:
    """Problems a service raised, under their field (or above the form)."""

    def add_service_errors(self, details: dict, message: str = "") -> None:
        if not details and message:
            self.add_error(None, message)
        for name, problems in (details or {}).items():
            for problem in problems if isinstance(problems, list) else [problems]:
                self.add_error(name if name in self.fields else None, str(problem))


class AccountForm(ServiceErrorsMixin, StrictTextFormMixin, forms.Form):
    """Cookies are write-only: the box is always empty; leaving it empty keeps the stored cookies."""

    visible_name_fields = ("label",)

    label = forms.CharField(label="نام", max_length=120)
    platform = forms.ChoiceField(
        label="سکو",
        help_text="سکوهایی که کارشان تعریف شده است (پیکربندی کار در مدیریت)؛ "
        "کارهای هر سکو فقط به حساب‌های همان سکو می‌رسند.",
    )
    cookie_domain = forms.CharField(
        label="دامنه سکو",
        max_length=253,
        required=False,
        widget=forms.TextInput(attrs={**LTR, "placeholder": "example.com"}),
        help_text="کوکی‌ها فقط به این دامنه (و زیردامنه‌هایش) فرستاده می‌شوند.",
    )
    cookies = forms.CharField(
        label="کوکی‌ها",
        required=False,
        max_length=100_000,
        widget=forms.Textarea(attrs={"rows": 4, **LTR, "autocomplete": "off"}),
        help_text="سرآیند Cookie، خروجی JSON یا فایل Netscape. خالی: کوکی‌های فعلی می‌مانند.",
    )
    user_agent = forms.CharField(label="User-Agent", required=False, max_length=500, widget=forms.TextInput(attrs=LTR))
    viewport_width = NumberField(label="عرض صفحه", min_value=200, max_value=4000, initial=1280)
    viewport_height = NumberField(label="ارتفاع صفحه", min_value=200, max_value=4000, initial=800)
    proxy = forms.TypedChoiceField(
        label="پراکسی ثابت",
        required=False,
        coerce=int,
        empty_value=None,
        help_text="پراکسی بخشی از مسیر کوکی‌هاست: تغییر آن در حسابی که کوکی دارد، کوکی‌ها را دوباره می‌خواهد "
        "(یا نقش مالک یا مدیر فضای کاری).",
    )
    use_proxy_pool = forms.BooleanField(
        label="استفاده از پراکسی‌های فضای کاری",
        required=False,
        help_text="بدون پراکسی ثابت، کارهای این حساب از یکی از پراکسی‌های فضای کاری می‌روند. "
        "خاموش: حسابی که کوکی دارد مستقیم می‌رود، نه از پراکسی‌ای که کسی برایش انتخاب نکرده.",
    )

    def __init__(self, *args, proxies=(), platforms=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["proxy"].choices = [("", "— بدون پراکسی ثابت —")] + [(p.id, str(p)) for p in proxies]
        current = (self.initial or {}).get("platform")
        names = sorted({*platforms, *([current] if current else [])})  # an account keeps its platform
        self.fields["platform"].choices = [("", "— انتخاب کنید —")] + [(name, name) for name in names]

    def service_data(self, *, editing: bool) -> dict:
        data = dict(self.cleaned_data)
        data["proxy_id"] = data.pop("proxy")
        if editing and not data["cookies"]:
            del data["cookies"]  # empty box: keep the stored cookies
        return data


class ProxyForm(ServiceErrorsMixin, StrictTextFormMixin, forms.Form):
    """The password is write-only; changing protocol, host or port needs it again."""

    visible_name_fields = ("label",)

    label = forms.CharField(label="نام", max_length=120, required=False)
    protocol = forms.ChoiceField(label="پروتکل", choices=ProxyProtocol.choices)
    host = forms.CharField(label="میزبان", max_length=255, widget=forms.TextInput(attrs=LTR))
    port = NumberField(label="درگاه", min_value=1, max_value=65535)
    username = forms.CharField(label="نام کاربری", max_length=255, required=False, widget=forms.TextInput(attrs=LTR))
    password = forms.CharField(
        label="گذرواژه",
        max_length=255,
        required=False,
        widget=forms.PasswordInput(render_value=False, attrs={**LTR, "autocomplete": "new-password"}),
        help_text="خالی: گذرواژه فعلی می‌ماند (با تغییر میزبان یا درگاه، گذرواژه تازه لازم است).",
    )
    clear_password = forms.BooleanField(label="حذف گذرواژه ذخیره‌شده", required=False)

    def service_data(self, *, editing: bool) -> dict:
        data = dict(self.cleaned_data)
        clear = data.pop("clear_password")
        if editing and not data["password"] and not clear:
            del data["password"]  # empty box: keep the stored password (refused if the destination moves)
        return data
