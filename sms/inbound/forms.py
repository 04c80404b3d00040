"""The inbox page's filters and the settings page's opt-out / opt-in words."""

from __future__ import annotations

from django import forms

from campaigns.platform.jalali import fa_digits
from campaigns.platform.text import StrictTextFormMixin
from sms.choices import InboundOutcome
from sms.inbound.keywords import MAX_WORD_LENGTH, MAX_WORDS

STATE_CHOICES = [("unread", "خوانده‌نشده"), ("all", "همه"), ("read", "خوانده‌شده")]
MATCHED_CHOICES = [("", "همه"), ("yes", "مخاطب شناخته‌شده"), ("no", "شماره ناشناس")]
OUTCOME_CHOICES = [("", "همه"), *[(value, label) for value, label in InboundOutcome.choices if value]]


class InboxFilterForm(StrictTextFormMixin, forms.Form):
    state = forms.ChoiceField(label="وضعیت", required=False, choices=STATE_CHOICES)
    campaign = forms.TypedChoiceField(label="کمپین", required=False, coerce=int, empty_value=None)
    line = forms.ChoiceField(label="خط", required=False)
    matched = forms.ChoiceField(label="فرستنده", required=False, choices=MATCHED_CHOICES)
    outcome = forms.ChoiceField(label="لغو / شروع", required=False, choices=OUTCOME_CHOICES)

    def __init__(self, *args, campaigns=(), lines=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["campaign"].choices = [("", "همه"), *[(c.id, c.name) for c in campaigns]]
        # A line is shown as in the inbox's rows and the account list (Persian digits); its value stays as stored.
        self.fields["line"].choices = [("", "همه"), *[(line, fa_digits(line)) for line in lines]]

    def filters(self) -> dict:
        """The selector's arguments (unread replies when nothing valid is chosen)."""
        if not (self.is_bound and self.is_valid()):
            return {"state": "unread"}
        data = self.cleaned_data
        return {
            "state": data["state"] or "unread",
            "campaign_id": data["campaign"],
            "line": data["line"],
            "matched": {"yes": True, "no": False}.get(data["matched"]),
            "outcome": data["outcome"],
        }


# One word per line; the text is bounded before it is split (the service checks the count and each word).
_WORDS_TEXT_LIMIT = MAX_WORDS * (MAX_WORD_LENGTH + 2)


def _words_field(label: str, help_text: str) -> forms.CharField:
    return forms.CharField(
        label=label,
        required=False,
        max_length=_WORDS_TEXT_LIMIT,
        strip=False,
        help_text=help_text,
        widget=forms.Textarea(attrs={"rows": 5, "cols": 24}),
    )


class InboundWordsForm(StrictTextFormMixin, forms.Form):
    opt_out_words = _words_field(
        "کلمه‌های لغو",
        f"هر خط یک کلمه (حداکثر {MAX_WORDS}). پاسخی که کل متنش یکی از این‌ها باشد شماره را در فهرست سیاه می‌گذارد؛ "
        "حروف عربی و فارسی، رقم‌ها، فاصله و نیم‌فاصله یکسان شمرده می‌شوند.",
    )
    opt_in_words = _words_field(
        "کلمه‌های شروع دوباره",
        "هر خط یک کلمه. لغوی را که با پاسخ ثبت شده برمی‌دارد، نه شماره‌ای را که کارمندان در فهرست سیاه گذاشته‌اند.",
    )

    @staticmethod
    def initial_for(settings) -> dict:
        return {field: "\n".join(getattr(settings, field) or ()) for field in ("opt_out_words", "opt_in_words")}

    def words(self) -> dict[str, list[str]]:
        """Each field as its non-empty lines (the service validates and normalises them)."""
        return {
            field: [line.strip() for line in self.cleaned_data[field].splitlines() if line.strip()]
            for field in ("opt_out_words", "opt_in_words")
        }
