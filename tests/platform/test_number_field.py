"""The staff pages' number field (``campaigns.platform.widgets.NumberField``): a text input with the numeric keypad
(not ``type=number``, which drops Persian digits in Chromium) that reads Latin, Persian and Arabic-Indic digits
and a typed minus sign, and still refuses what is not a whole number in its range, in Persian;
the admin's numbers with a fraction (``DecimalNumberField``, ``FloatNumberField``) too."""

from decimal import Decimal

from django import forms

from campaigns.platform.widgets import DecimalNumberField, FloatNumberField, NumberField


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


class PriceForm(forms.Form):
    latitude = DecimalNumberField(label="عرض جغرافیایی", max_digits=9, decimal_places=6, required=False)
    score = FloatNumberField(label="امتیاز", min_value=0, required=False)


def test_a_number_with_a_fraction_reads_persian_digits_and_the_persian_decimal_separator():
    form = PriceForm({"latitude": "۳۵٫۶۸۹۲", "score": "۱.۵"})
    assert form.is_valid(), form.errors
    assert form.cleaned_data == {"latitude": Decimal("35.6892"), "score": 1.5}
    assert not PriceForm({"latitude": "۳۵٫۶۸۹۲۱۲۳", "score": "-۱"}).is_valid()
    score, latitude = str(PriceForm()["score"]), str(PriceForm()["latitude"])
    assert 'type="text"' in score and 'inputmode="decimal"' in score and 'dir="ltr"' in score
    assert 'inputmode="text"' in latitude and 'type="number"' not in latitude + score
