"""The staff pages' number field (``campaigns.platform.widgets.NumberField``): a text input with the numeric keypad
(not ``type=number``, which drops Persian digits in Chromium) that reads Latin, Persian and Arabic-Indic digits
and a typed minus sign, and still refuses what is not a whole number in its range, in Persian."""

from django import forms

from campaigns.platform.widgets import NumberField


class LimitForm(forms.Form):
    limit = NumberField(label="سقف", min_value=1, max_value=1000, required=False)
    priority = NumberField(label="اولویت", required=False)


def test_persian_arabic_indic_and_latin_digits_are_read_as_the_number():
    form = LimitForm({"limit": " ۱۲۳ ", "priority": "−۵"})
    assert form.is_valid(), form.errors
    assert form.cleaned_data == {"limit": 123, "priority": -5}
    form = LimitForm({"limit": "٤٥", "priority": "-7"})
    assert form.is_valid() and form.cleaned_data == {"limit": 45, "priority": -7}


def test_what_is_no_whole_number_in_range_is_refused():
    form = LimitForm({"limit": "۱۲۳۴", "priority": "۱.۵"})
    assert not form.is_valid()
    assert set(form.errors) == {"limit", "priority"}


def test_the_input_is_text_left_to_right_with_the_numeric_keypad_unless_negatives_are_taken():
    html = str(LimitForm()["limit"])
    assert 'type="text"' in html and 'dir="ltr"' in html and 'inputmode="numeric"' in html
    assert 'type="number"' not in html
    assert 'inputmode="text"' in str(LimitForm()["priority"])  # the numeric keypad of phones has no minus
