"""Form widgets of the Persian pages.

``Time24Input``: a 24-hour "HH:MM" text input (the browser's ``type=time`` shows AM/PM for many locales).
It is labelled by ``aria-label`` (the send-window tables show the day in a row header, not a <label>),
accepts Persian or Latin digits and posts the ISO time the field parses.
"""

from django import forms

from campaigns.platform.jalali import to_latin_digits

TIME_PATTERN = r"([01]?[0-9]|2[0-3]):[0-5][0-9]"


class Time24Input(forms.TimeInput):
    input_type = "text"

    def __init__(self, attrs=None):
        base = {
            "dir": "ltr",
            "lang": "en",
            "inputmode": "numeric",
            "pattern": TIME_PATTERN,
            "placeholder": "HH:MM",
            "maxlength": 5,
            "size": 5,
            "autocomplete": "off",
            "class": "time24",
        }
        super().__init__(attrs={**base, **(attrs or {})}, format="%H:%M")

    def value_from_datadict(self, data, files, name):
        value = super().value_from_datadict(data, files, name)
        return to_latin_digits(value).strip() if isinstance(value, str) else value


def time_field(label: str) -> forms.TimeField:
    """An optional 24-hour time, labelled for assistive technology by ``label``."""
    return forms.TimeField(
        label=label, required=False, input_formats=["%H:%M"], widget=Time24Input(attrs={"aria-label": label})
    )
