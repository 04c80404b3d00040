"""The inbox page's filters."""

from __future__ import annotations

from django import forms

from campaigns.platform.text import StrictTextFormMixin
from sms.choices import InboundOutcome

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
        self.fields["line"].choices = [("", "همه"), *[(line, line) for line in lines]]

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
