"""Forms of the SMS pages: input parsing only; every rule lives in the services."""

from __future__ import annotations

import csv
import datetime as dt
import io
import zoneinfo

import jdatetime
from django import forms
from django.utils import timezone

from campaigns.platform.jalali import parse_jalali, to_jalali
from campaigns.platform.text import StrictTextFormMixin, validate_plain_text
from campaigns.platform.widgets import NumberField, WeekWindowFields
from sms import frequency_cap, quiet_days
from sms.choices import LOG_STATUS_CHOICES, MAX_PRICE, PRICE_FIELDS, BlacklistReason, CreditUnit, LineKind
from sms.filtered_words import clean_words
from sms.providers import credential_fields
from sms.selectors import latin_digits, provider_kind_choices
from sms.services import MAX_RETENTION_DAYS


def service_errors_to_form(form: forms.Form, exc) -> None:
    """A service's ValidationFailed details shown on the form (unknown fields as form errors)."""
    details = exc.details if isinstance(exc.details, dict) else {}
    if not details:
        form.add_error(None, exc.message)
    for field, errors in details.items():
        for error in errors if isinstance(errors, list) else [errors]:
            form.add_error(field if field in form.fields else None, str(error))


def parse_jalali_date(text: str) -> dt.date | None:
    """'1405/09/09' (Latin or Persian digits, / or -) → a Gregorian date; None when empty or unreadable."""
    text = latin_digits(text).strip().replace("-", "/")
    if not text:
        return None
    try:
        year, month, day = (int(part) for part in text.split("/"))
        return jdatetime.date(year, month, day).togregorian()
    except (ValueError, TypeError):
        return None


class JalaliDateField(forms.CharField):
    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)
        self.widget.attrs.update(
            {
                "placeholder": "۱۴۰۵/۰۱/۱۵",
                "dir": "ltr",
                "inputmode": "numeric",
                "size": 10,
                "data-jalali-picker": "jalali",
            }
        )

    def clean(self, value):
        value = super().clean(value)
        if not value:
            return None
        parsed = parse_jalali_date(value)
        if parsed is None:
            raise forms.ValidationError("تاریخ را شمسی بنویسید، مثل ۱۴۰۵/۰۱/۱۵.")
        return parsed


class AttemptFilterForm(StrictTextFormMixin, forms.Form):
    status = forms.ChoiceField(label="وضعیت", required=False, choices=[("", "همه"), *LOG_STATUS_CHOICES])
    campaign = forms.TypedChoiceField(label="کمپین", required=False, coerce=int, empty_value=None)
    number = forms.CharField(label="شماره", required=False, widget=forms.TextInput(attrs={"dir": "ltr", "size": 14}))
    since = JalaliDateField(label="از تاریخ")
    until = JalaliDateField(label="تا تاریخ")

    def __init__(self, *args, campaigns=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["campaign"].choices = [("", "همه")] + [(c.id, c.name) for c in campaigns]


class BlacklistAddForm(StrictTextFormMixin, forms.Form):
    number = forms.CharField(
        label="شماره", widget=forms.TextInput(attrs={"dir": "ltr", "inputmode": "tel", "placeholder": "0912…"})
    )
    reason = forms.ChoiceField(label="دلیل", choices=BlacklistReason.choices, initial=BlacklistReason.MANUAL)
    description = forms.CharField(label="توضیح", required=False, max_length=300)


class BlacklistImportForm(StrictTextFormMixin, forms.Form):
    numbers = forms.CharField(
        label="شماره‌ها (هر خط یک شماره)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "dir": "ltr"}),
    )
    file = forms.FileField(label="یا فایل CSV / متنی", required=False)

    def clean(self):
        cleaned = super().clean()
        lines = (cleaned.get("numbers") or "").splitlines()
        upload = cleaned.get("file")
        if upload is not None:
            if upload.size > 2 * 1024 * 1024:
                raise forms.ValidationError("فایل بزرگ‌تر از ۲ مگابایت است.")
            raw = upload.read()
            try:
                text = raw.decode("utf-8-sig")
            except UnicodeDecodeError:
                text = raw.decode("cp1256", errors="replace")
            for row in csv.reader(io.StringIO(text)):
                if row and row[0].strip():
                    lines.append(row[0])
        numbers = [line.strip() for line in lines if line.strip()]
        if numbers and not any(ch.isdigit() for ch in latin_digits(numbers[0])):
            numbers = numbers[1:]  # a header row ("number", "شماره")
        if not numbers:
            raise forms.ValidationError("شماره‌ای وارد نشده است.")
        cleaned["parsed_numbers"] = numbers
        return cleaned


class SmsTemplateForm(StrictTextFormMixin, forms.Form):
    visible_name_fields = ("name",)

    name = forms.CharField(label="نام", max_length=200)
    body = forms.CharField(label="متن", widget=forms.Textarea(attrs={"rows": 5}))


class AccountForm(StrictTextFormMixin, forms.Form):
    """Credentials are write-only: the inputs are never filled with the stored values.

    The credential inputs come from the provider registry (``sms.providers.credential_fields``): one input
    per kind and field (``cred_<kind>__<name>``), a password input for a secret, required for a new
    account when the provider's schema says so. A new provider plug-in needs no change here.
    """

    visible_name_fields = ("name",)

    name = forms.CharField(label="نام حساب", max_length=100)
    provider = forms.ChoiceField(label="سرویس‌دهنده")
    senders = forms.CharField(
        label="خطوط ارسال (هر خط یک شماره)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "dir": "ltr"}),
    )
    is_active = forms.BooleanField(label="فعال", required=False, initial=True)
    line_kind = forms.ChoiceField(
        label="نوع خط",
        choices=LineKind.choices,
        initial=LineKind.SERVICE,
        required=False,
        help_text="خط تبلیغاتی به شماره‌های مسدود تبلیغاتی نمی‌فرستد و ارسال گروهی آن بدون «لغو۱۱» پذیرفته نمی‌شود.",
    )
    # Price of one message part per operator (rials); labels short: the fieldset says what they are.
    price_mci = NumberField(label="همراه اول", min_value=0, max_value=MAX_PRICE, initial=0, required=False)
    price_irancell = NumberField(label="ایرانسل", min_value=0, max_value=MAX_PRICE, initial=0, required=False)
    price_rightel = NumberField(label="رایتل", min_value=0, max_value=MAX_PRICE, initial=0, required=False)
    use_typed_prices = forms.BooleanField(
        label="همین بها به‌کار رود، نه بهای سرویس‌دهنده",
        required=False,
        help_text="بهایی که سرویس‌دهنده می‌دهد (ملی‌پیامک) خودکار خوانده می‌شود و در برآورد هزینه به‌جای این بها "
        "می‌نشیند؛ با این گزینه بهای واردشده می‌ماند. رایتل را سرویس‌دهنده قیمت نمی‌دهد.",
    )

    credit_unit = forms.ChoiceField(
        label="واحد اعتبار",
        choices=[("", "همان واحد سرویس‌دهنده"), *CreditUnit.choices],
        required=False,
        help_text="ملی‌پیامک اعتبار را به شمار پیامک می‌دهد و کاوه‌نگار به ریال؛ اعتبار به پیامک با شمار پیامک‌های "
        "کمپین سنجیده می‌شود و اعتبار به ریال با هزینهٔ برآوردی.",
    )

    filtered_words = forms.CharField(
        label="کلمه‌های فیلترشده (هر خط یک کلمه)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="متنی که یکی از این‌ها را دارد در ویرایشگر هشدار می‌گیرد و شروع کمپین را می‌بندد؛ "
        "کلمه‌هایی که سرویس‌دهنده هنگام رد پیام نام ببرد خودکار افزوده می‌شوند.",
    )

    def clean_line_kind(self) -> str:
        return self.cleaned_data.get("line_kind") or LineKind.SERVICE

    def clean_filtered_words(self) -> list[str]:
        return clean_words((self.cleaned_data.get("filtered_words") or "").splitlines())

    def prices(self) -> dict[str, int]:
        return {field: self.cleaned_data.get(field) or 0 for field in PRICE_FIELDS}

    def __init__(self, *args, editing: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.editing = editing
        self.fields["provider"].choices = provider_kind_choices()
        if editing:
            self.fields["provider"].disabled = True
        self.schema = {kind: credential_fields(kind) for kind, _ in provider_kind_choices()}
        for kind, fields in self.schema.items():
            for spec in fields:
                attrs = {"autocomplete": "new-password" if spec["secret"] else "off", "dir": "ltr"}
                widget = (
                    forms.PasswordInput(render_value=False, attrs=attrs) if spec["secret"] else forms.TextInput(attrs)
                )
                self.fields[self.field_name(kind, spec["name"])] = forms.CharField(
                    label=spec["label"],
                    required=False,  # only the chosen provider's inputs count (clean)
                    widget=widget,
                    help_text="خالی بگذارید تا مقدار فعلی بماند." if editing else "",
                    validators=[validate_plain_text],
                )

    @staticmethod
    def field_name(kind: str, name: str) -> str:
        return f"cred_{kind}__{name}"

    def credential_inputs(self) -> dict[str, list]:
        """Per provider kind, its bound credential inputs (the page shows the chosen kind's)."""
        return {
            kind: [self[self.field_name(kind, spec["name"])] for spec in fields] for kind, fields in self.schema.items()
        }

    def clean(self):
        cleaned = super().clean()
        kind = cleaned.get("provider") or ""
        if not self.editing:
            for spec in self.schema.get(kind, []):
                field = self.field_name(kind, spec["name"])
                if spec["required"] and not cleaned.get(field):
                    self.add_error(field, "این فیلد لازم است.")
        return cleaned

    def credentials(self) -> dict[str, str]:
        """The chosen provider's credentials as typed (empty values: keep the stored one when editing)."""
        kind = self.cleaned_data.get("provider") or ""
        return {
            spec["name"]: self.cleaned_data.get(self.field_name(kind, spec["name"])) or ""
            for spec in self.schema.get(kind, [])
        }


class TestMessageForm(StrictTextFormMixin, forms.Form):
    number = forms.CharField(label="شماره گیرنده", widget=forms.TextInput(attrs={"dir": "ltr", "inputmode": "tel"}))
    text = forms.CharField(label="متن", initial="پیام آزمایشی سامانه کمپین", max_length=300)


# The zones a workspace here most likely uses, named in Persian, above the whole IANA list.
COMMON_TIME_ZONES = (
    ("Asia/Tehran", "تهران (ایران)"),
    ("Asia/Kabul", "کابل (افغانستان)"),
    ("Asia/Dubai", "دبی (امارات)"),
    ("Europe/Istanbul", "استانبول (ترکیه)"),
    ("Asia/Baghdad", "بغداد (عراق)"),
    ("Asia/Ho_Chi_Minh", "هوشی‌مین (ویتنام)"),
    ("Europe/London", "لندن"),
    ("Europe/Berlin", "برلین"),
    ("America/New_York", "نیویورک"),
    ("UTC", "زمان هماهنگ جهانی (UTC)"),
)


def time_zone_choices(current: str | None = None) -> list[tuple[str, str]]:
    """The common zones by Persian name, Tehran first, and the workspace's own zone when it is another (by its
    IANA name); any other zone is typed in «منطقهٔ زمانی دیگر», not picked from some 600 Latin names."""
    choices = list(COMMON_TIME_ZONES)
    if current and current not in dict(choices) and current in zoneinfo.available_timezones():
        choices.append((current, current))
    return choices


class TimeZoneField(forms.ChoiceField):
    """Offers the short list, accepts every IANA zone (the workspace's own zone is kept as it was)."""

    def valid_value(self, value) -> bool:
        return value in zoneinfo.available_timezones()


class ChannelSettingsForm(StrictTextFormMixin, WeekWindowFields, forms.Form):
    automation_enabled = forms.BooleanField(
        label="اجرای سفرها (اتوماسیون) روشن",
        required=False,
        help_text="خاموش: هیچ گام سفری در این فضای کاری اجرا نمی‌شود تا دوباره روشن شود؛ چیزی از دست نمی‌رود.",
    )
    time_zone = TimeZoneField(
        label="منطقه زمانی فضای کاری",
        required=False,
        help_text="روز سقف‌های روزانه، بازه‌های ارسال و تاریخ‌های صفحه‌ها با این منطقه حساب می‌شوند.",
        widget=forms.Select(),
    )
    other_time_zone = forms.CharField(
        label="منطقه زمانی دیگر",
        required=False,
        max_length=64,
        help_text="اگر منطقه شما در فهرست بالا نیست، نام بین‌المللی آن را بنویسید، مثل Europe/Paris.",
        widget=forms.TextInput(attrs={"dir": "ltr", "autocomplete": "off"}),
    )
    enabled = forms.BooleanField(label="ارسال پیامک فعال", required=False)
    primary_account = forms.TypedChoiceField(label="حساب اصلی", required=False, coerce=int, empty_value=None)
    fallback_account = forms.TypedChoiceField(label="حساب پشتیبان", required=False, coerce=int, empty_value=None)
    opt_out_text = forms.CharField(label="متن لغو", required=False, max_length=60)
    global_daily_limit = NumberField(
        label="سقف روزانه کل فضای کاری",
        required=False,
        min_value=1,
        help_text="خالی: بدون سقف کلی (سقف هر کمپین همچنان اعمال می‌شود).",
    )
    sms_retention_days = NumberField(
        label="نگهداری متن و شماره پیامک‌ها (روز)",
        required=False,
        min_value=0,
        max_value=MAX_RETENTION_DAYS,
        help_text="پس از این تعداد روز متن و شماره پیامک‌های ارسال‌شده پاک می‌شود؛ خالی یا ۰: برای همیشه نگه داشته می‌شود.",
    )
    notifications_email = forms.BooleanField(
        label="ارسال همه اعلان‌ها با ایمیل",
        required=False,
        help_text="هر اعلان فضای کاری به ایمیل گیرندگانش هم فرستاده می‌شود.",
    )
    frequency_cap_day = NumberField(
        label="سقف پیامک تبلیغاتی هر نفر در روز",
        required=False,
        min_value=0,
        max_value=frequency_cap.MAX_LIMIT[frequency_cap.DAY],
        help_text="همهٔ کمپین‌ها و زنجیره‌ها با هم، در هر روز تقویم فضای کاری؛ فقط خط‌های تبلیغاتی شمرده می‌شوند. "
        "خالی یا ۰: بدون سقف روزانه.",
    )
    frequency_cap_week = NumberField(
        label="سقف پیامک تبلیغاتی هر نفر در هفته (شنبه تا جمعه)",
        required=False,
        min_value=0,
        max_value=frequency_cap.MAX_LIMIT[frequency_cap.WEEK],
        help_text="هفتهٔ شمسی از شنبه تا پایان جمعه. خالی یا ۰: بدون سقف هفتگی.",
    )
    frequency_cap_month = NumberField(
        label="سقف پیامک تبلیغاتی هر نفر در ماه شمسی",
        required=False,
        min_value=0,
        max_value=frequency_cap.MAX_LIMIT[frequency_cap.MONTH],
        help_text="از یکم تا پایان هر ماه شمسی. خالی یا ۰: بدون سقف ماهانه. همهٔ سقف‌ها با هم رعایت می‌شوند؛ "
        "پیام بیش از سقف به آغاز روز، هفته یا ماه بعد می‌افتد یا، اگر گام گفته باشد، فرستاده نمی‌شود.",
    )
    CAP_FIELDS = {
        frequency_cap.DAY: "frequency_cap_day",
        frequency_cap.WEEK: "frequency_cap_week",
        frequency_cap.MONTH: "frequency_cap_month",
    }

    @classmethod
    def cap_initial(cls, settings) -> dict:
        """The cap fields filled from the stored rules (empty where there is none)."""
        limits = {r.period: r.limit for r in frequency_cap.rules_of(settings)}
        return {name: limits.get(period) for period, name in cls.CAP_FIELDS.items()}

    def cap_rules_value(self) -> list[dict]:
        """The rules as the service takes them (a field left empty or 0: no rule of that period)."""
        data = self.cleaned_data
        return [{"period": period, "limit": data[name]} for period, name in self.CAP_FIELDS.items() if data.get(name)]

    quiet_fridays = forms.BooleanField(label="جمعه‌ها پیامک تبلیغاتی فرستاده نشود", required=False)
    add_solar_holidays = forms.BooleanField(
        label="تعطیلات رسمی ثابت شمسی امسال و سال بعد افزوده شود",
        required=False,
        help_text="نوروز، ۱۲ و ۱۳ فروردین، ۱۴ و ۱۵ خرداد، ۲۲ بهمن و ۲۹ اسفند؛ تعطیلات قمری را خودتان بیفزایید.",
    )
    quiet_days = forms.CharField(
        label="روزهای بدون پیامک تبلیغاتی (هر خط یک تاریخ، مثل ۱۴۰۵/۰۱/۰۱)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "dir": "ltr"}),
        help_text="تعطیلات رسمی و روزهای دیگر؛ پیامک تبلیغاتی این روزها به نخستین روز مجاز بعدی می‌افتد.",
    )

    def clean_other_time_zone(self) -> str:
        """A zone typed by its IANA name replaces the one picked from the list."""
        value = (self.cleaned_data.get("other_time_zone") or "").strip()
        if value and value not in zoneinfo.available_timezones():
            raise forms.ValidationError("این منطقه زمانی شناخته نیست؛ نامی مثل Europe/Paris یا Asia/Tokyo بنویسید.")
        if value:
            self.cleaned_data["time_zone"] = value
        return value

    def clean_quiet_days(self) -> list[str]:
        """Jalali dates, one a line (Persian or Latin digits) → ISO dates."""
        days = []
        for line in (self.cleaned_data.get("quiet_days") or "").splitlines():
            if not line.strip():
                continue
            try:
                moment = parse_jalali(line)
            except ValueError as exc:
                raise forms.ValidationError(f"«{line.strip()}»: {exc}") from None
            days.append(moment.date().isoformat())
        return days

    def quiet_days_value(self) -> list[str]:
        """The typed days, with the fixed solar holidays of this Jalali year and the next when asked."""
        days = list(self.cleaned_data["quiet_days"])
        if self.cleaned_data.get("add_solar_holidays"):
            year = jdatetime.date.fromgregorian(date=timezone.localdate()).year
            days += [d.isoformat() for y in (year, year + 1) for d in quiet_days.solar_holidays(y)]
        return days

    @staticmethod
    def quiet_days_text(values) -> str:
        return "\n".join(to_jalali(dt.date.fromisoformat(v)) for v in values or [])

    def __init__(self, *args, accounts=(), window=None, **kwargs):
        super().__init__(*args, **kwargs)
        current = self.data.get("time_zone") if self.is_bound else self.initial.get("time_zone")
        self.fields["time_zone"].choices = time_zone_choices(current)
        choices = [("", "—")] + [(a.id, str(a)) for a in accounts]
        self.fields["primary_account"].choices = choices
        self.fields["fallback_account"].choices = choices
        # The workspace's default window (the workspace's time zone); all empty: always open.
        self.add_window_fields(config=window, time_zone=None)
