"""The staff pages' number field (``campaigns.platform.widgets.NumberField``): a text input with the numeric keypad
(not ``type=number``, which drops Persian digits in Chromium) that reads Latin, Persian and Arabic-Indic digits,
a typed minus sign and thousands separators between well-formed digit groups, and still refuses what is not a
whole number in its range, in Persian; the admin's numbers with a fraction (``DecimalNumberField``,
``FloatNumberField``) too."""

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


class AmountForm(forms.Form):
    amount = NumberField(label="مبلغ", min_value=0, required=False)
    price = DecimalNumberField(label="بها", max_digits=12, decimal_places=2, required=False)


def test_a_thousands_separator_between_well_formed_digit_groups_is_read():
    """«۱٬۰۰۰» (the Persian separator U+066C), «۱،۰۰۰» (the Arabic comma) and «1,000» are 1000."""
    for typed in ("۱٬۰۰۰", "۱،۰۰۰", "1,000", "۱٬۲۳۴٬۵۶۷", " 12,345 "):
        form = AmountForm({"amount": typed, "price": typed})
        assert form.is_valid(), (typed, form.errors)
        expected = int(typed.strip().translate(str.maketrans("۰۱۲۳۴۵۶۷۸۹", "0123456789", "٬،,")))
        assert form.cleaned_data == {"amount": expected, "price": Decimal(expected)}
    form = AmountForm({"amount": "−۱٬۰۰۰", "price": "۱٬۲۵۰٫۵"})
    assert not form.is_valid() and set(form.errors) == {"amount"}  # a grouped negative reads, below min_value
    assert form.cleaned_data["price"] == Decimal("1250.5")
    form = LimitForm({"priority": "−۱٬۰۰۰"})
    assert form.is_valid() and form.cleaned_data["priority"] == -1000


def test_a_separator_between_ill_formed_groups_is_refused():
    for typed in ("۱٬۰۰", "۱۰۰۰٬۰۰۰", "٬۱۰۰", "۱۰۰٬", "۱٬۰۰۰،۰۰۰", "1,5", "۱٬٬۰۰۰", "۱٫۵٬۰۰۰"):
        form = AmountForm({"amount": typed, "price": typed})
        assert not form.is_valid(), typed
        assert set(form.errors) == {"amount", "price"}, typed
