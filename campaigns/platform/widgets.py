"""Form widgets and fields of the Persian pages and the admin.

``JalaliDateTimeField``: a moment typed as a Jalali date (and 24-hour time) in a time zone, with the
Jalali date picker (``static/js/jalali-picker.js``); the admin uses it for every date-time field.

``NumberField`` / ``NumberInput``: a whole number in a text input (Persian or Latin digits; not ``type=number``,
which drops Persian digits in Chromium), read with Latin digits. ``DecimalNumberField`` / ``FloatNumberField``: the
same for a number with a fraction (the admin's decimal and float columns), with the decimal keypad.

``Time24Input``: a 24-hour "HH:MM" text input (the browser's ``type=time`` shows AM/PM for many locales).
It is labelled by ``aria-label`` (the send-window tables show the day in a row header, not a <label>),
accepts Persian or Latin digits and posts the ISO time the field parses.
"""

import re
import zoneinfo
from datetime import datetime

from django import forms

from campaigns.platform.jalali import parse_jalali, to_jalali, to_latin_digits

_DIGIT = "[0-9۰-۹]"
# 00:00–23:59 in Latin or Persian digits (the browser checks ``pattern`` before the server turns them Latin)
TIME_PATTERN = f"([01۰۱]?{_DIGIT}|[2۲][0-3۰-۳]):[0-5۰-۵]{_DIGIT}"


class Time24Input(forms.TimeInput):
    input_type = "text"

    def __init__(self, attrs=None):
        base = {
            "dir": "ltr",
            "lang": "en",
            "inputmode": "numeric",
            "pattern": TIME_PATTERN,
            "placeholder": "--:--",  # the shape, with no Latin letters (a type=time input's own placeholder)
            "maxlength": 5,
            "size": 5,
            "autocomplete": "off",
            "class": "time24",
        }
        super().__init__(attrs={**base, **(attrs or {})}, format="%H:%M")

    def value_from_datadict(self, data, files, name):
        value = super().value_from_datadict(data, files, name)
        return to_latin_digits(value).strip() if isinstance(value, str) else value


class PhoneInput(forms.TextInput):
    """A phone number input: left-to-right whatever the page's direction, the telephone keypad on phones."""

    def __init__(self, attrs=None):
        super().__init__(attrs={"dir": "ltr", "inputmode": "tel", "autocomplete": "tel", **(attrs or {})})


class NumberInput(forms.TextInput):
    """A whole number typed left to right, with the numeric keypad on phones. A text input: Chromium's
    ``type=number`` drops the Persian and Arabic-Indic digits a Persian keyboard types, so «۱۲۳» would post
    nothing; the field reads them as Latin digits."""

    def __init__(self, attrs=None):
        base = {"dir": "ltr", "lang": "en", "inputmode": "numeric", "autocomplete": "off"}
        super().__init__(attrs={**base, **(attrs or {})})


class NumberField(forms.IntegerField):
    """A whole number typed in Latin, Persian or Arabic-Indic digits (``NumberInput``), read with Latin digits;
    a field that takes a negative number gets the full keyboard (the numeric keypad of phones has no minus)."""

    widget = NumberInput

    def widget_attrs(self, widget):
        attrs = super().widget_attrs(widget)
        if self.min_value is None or self.min_value < 0:
            attrs["inputmode"] = "text"
        return attrs

    def to_python(self, value):
        return super().to_python(_latin_number(value))


# Thousands separators a person may type between digit groups: the Persian «٬» (U+066C), the Arabic comma «،» and
# the Latin comma. Read only in a well-formed number (one kind, groups of three after the first group of 1-3).
_GROUP_SEPARATORS = "\u066c\u060c,"
_GROUPED = re.compile(r"[-+]?\d{1,3}(?:(?P<sep>[\u066c\u060c,])\d{3})(?:(?P=sep)\d{3})*(?:\.\d*)?")


def _latin_number(value):
    """A typed number with Latin digits, a typed minus sign (−) as "-", the Persian decimal separator (٫) as "."
    and its thousands separators dropped when its digit groups are well-formed («۱٬۰۰۰» is 1000; «۱٬۰۰» is kept as
    typed, so it is refused)."""
    if isinstance(value, str):
        value = to_latin_digits(value).replace("\u2212", "-").replace("\u066b", ".").strip()
        if any(sep in value for sep in _GROUP_SEPARATORS) and _GROUPED.fullmatch(value):
            value = re.sub(f"[{_GROUP_SEPARATORS}]", "", value)
    return value


class _FractionNumberField:
    """A number with a fraction in a ``NumberInput`` with the decimal keypad (the full keyboard if it may be
    negative), read like ``NumberField``."""

    widget = NumberInput

    def widget_attrs(self, widget):
        attrs = super().widget_attrs(widget)
        attrs["inputmode"] = "decimal" if self.min_value is not None and self.min_value >= 0 else "text"
        return attrs

    def to_python(self, value):
        return super().to_python(_latin_number(value))


class DecimalNumberField(_FractionNumberField, forms.DecimalField):
    pass


class FloatNumberField(_FractionNumberField, forms.FloatField):
    pass


def time_field(label: str) -> forms.TimeField:
    """An optional 24-hour time, labelled for assistive technology by ``label``."""
    return forms.TimeField(
        label=label, required=False, input_formats=["%H:%M"], widget=Time24Input(attrs={"aria-label": label})
    )


JALALI_INPUT_ATTRS = {"dir": "ltr", "lang": "en", "placeholder": "۱۴۰۵/۰۸/۱۰ ۰۹:۰۰", "data-jalali-picker": "jalali"}


class JalaliDateTimeField(forms.CharField):
    """'1405/08/10' or '1405/08/10 09:30' (Persian or Latin digits) in the workspace's time zone."""

    def __init__(self, *args, time_zone: str = "Asia/Tehran", **kwargs):
        self.time_zone = time_zone
        kwargs.setdefault("required", False)
        kwargs.setdefault("widget", forms.TextInput(attrs=JALALI_INPUT_ATTRS))
        super().__init__(*args, **kwargs)

    def prepare_value(self, value):
        """A stored moment shown in the workspace's calendar and time zone (Latin digits, as typed)."""
        if isinstance(value, datetime):
            return to_jalali(value, with_time=True, tz=zoneinfo.ZoneInfo(self.time_zone))
        return value

    def to_python(self, value):
        try:
            local = parse_jalali(super().to_python(value))
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None
        return local.replace(tzinfo=zoneinfo.ZoneInfo(self.time_zone)) if local else None


WEEK_DAYS = ("sat", "sun", "mon", "tue", "wed", "thu", "fri")  # the week as it reads here: Saturday first
WEEK_DAY_LABELS = {
    "sat": "شنبه",
    "sun": "یکشنبه",
    "mon": "دوشنبه",
    "tue": "سه‌شنبه",
    "wed": "چهارشنبه",
    "thu": "پنجشنبه",
    "fri": "جمعه",
}
BOTH_TIMES = "هر دو ساعت شروع و پایان را وارد کنید."


class WeekWindowFields:
    """A send window as one 24-hour interval a day, on any form: ``add_window_fields()`` adds
    ``win_<day>_start`` / ``win_<day>_end`` (``Time24Input``, Saturday first) filled from a stored window, and
    ``templates/_week_window.html`` renders them (``{% include "_week_window.html" with window=form %}``).

    ``window_config()`` gives the engine's window format (``{"timezone", "days": {day: [[start, end]] | None}}``,
    no ``timezone`` when the form is given none: the workspace's applies) or None when every day is empty. A
    stored window with more than one interval on some day (set through the API) is not ``window_editable``: the
    form has no window fields and the page keeps the window as it is."""

    window_editable = True
    window_time_zone: str | None = None

    def add_window_fields(self, *, config: dict | None, time_zone: str | None) -> None:
        days = (config or {}).get("days") or {}
        self.window_editable = all(len(v or []) <= 1 for v in days.values())
        self.window_time_zone = time_zone
        if not self.window_editable:
            return
        initial = {}
        for day in WEEK_DAYS:
            for part, word in (("start", "از"), ("end", "تا")):
                self.fields[f"win_{day}_{part}"] = time_field(f"{WEEK_DAY_LABELS[day]} {word}")
            if days.get(day):
                initial[f"win_{day}_start"], initial[f"win_{day}_end"] = days[day][0]
        self.initial = {**initial, **self.initial}

    def window_rows(self):
        if not self.window_editable:
            return []
        return [(WEEK_DAY_LABELS[day], self[f"win_{day}_start"], self[f"win_{day}_end"]) for day in WEEK_DAYS]

    def window_config(self) -> dict | None:
        """The window (call after ``is_valid()``); a day with only one of its two times is a field error."""
        days, any_open = {}, False
        for day in WEEK_DAYS:
            start, end = self.cleaned_data.get(f"win_{day}_start"), self.cleaned_data.get(f"win_{day}_end")
            if start and end:
                days[day] = [[start.strftime("%H:%M"), end.strftime("%H:%M")]]
                any_open = True
            elif start or end:
                self.add_error(f"win_{day}_start", BOTH_TIMES)
            else:
                days[day] = None
        if not any_open:
            return None
        return {"timezone": self.window_time_zone, "days": days} if self.window_time_zone else {"days": days}


class WeekWindowForm(WeekWindowFields, forms.Form):
    """The send window alone, for pages whose own form is hand-written (the chain pages)."""

    def __init__(self, data=None, *, config: dict | None = None, time_zone: str = "Asia/Tehran"):
        super().__init__(data)
        self.add_window_fields(config=config, time_zone=time_zone)
