"""The phone parsing table (TargetContact)."""

import pytest

from campaigns.choices import PhoneKind
from campaigns.platform.phones import ContactError, PhoneError, TargetContact, parse_phone


@pytest.mark.parametrize(
    ("raw", "e164", "kind"),
    [
        ("09123456789", "+989123456789", PhoneKind.MOBILE),
        ("۰۹۱۲۳۴۵۶۷۸۹", "+989123456789", PhoneKind.MOBILE),  # Persian digits
        ("٠٩١٢٣٤٥٦٧٨٩", "+989123456789", PhoneKind.MOBILE),  # Arabic-Indic digits
        ("+989123456789", "+989123456789", PhoneKind.MOBILE),
        ("00989123456789", "+989123456789", PhoneKind.MOBILE),
        ("0912 345-6789", "+989123456789", PhoneKind.MOBILE),
        ("9123456789", "+989123456789", PhoneKind.MOBILE),
        ("02188776655", "+982188776655", PhoneKind.LANDLINE),
        ("021-8877 6655", "+982188776655", PhoneKind.LANDLINE),
        ("۰۲۱۸۸۷۷۶۶۵۵", "+982188776655", PhoneKind.LANDLINE),
        ("0098 31 32223344", "+983132223344", PhoneKind.LANDLINE),
    ],
)
def test_parse_phone(raw, e164, kind):
    parsed = parse_phone(raw)
    assert (parsed.e164, parsed.kind) == (e164, kind)


def test_the_common_mobile_shortcut_answers_as_the_full_parse():
    import random

    import phonenumbers

    rng = random.Random(7)
    persian = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
    for _ in range(3000):  # every 9… prefix, valid or not: the shortcut must not accept what the parse refuses
        national = "9" + "".join(rng.choice("0123456789") for _ in range(9))
        raw = rng.choice(["0{}", "+98{}", "0098 {}", " 0{} "]).format(national)
        raw = raw.translate(persian) if rng.random() < 0.3 else raw
        number = phonenumbers.parse(raw, "IR")
        kind = phonenumbers.number_type(number) if phonenumbers.is_valid_number(number) else None
        try:
            parsed = parse_phone(raw)
        except PhoneError:
            parsed = None
        if kind == phonenumbers.PhoneNumberType.MOBILE:
            assert (parsed.e164, parsed.kind) == (f"+98{national}", PhoneKind.MOBILE), raw
        else:
            assert parsed is None or parsed.kind == PhoneKind.LANDLINE, raw


@pytest.mark.parametrize("raw", ["", "123", "abc", "0912", "+1 202 555 01"])
def test_parse_phone_rejects_garbage(raw):
    with pytest.raises(PhoneError):
        parse_phone(raw)


def test_landline_in_mobile_field_is_a_field_error():
    with pytest.raises(ContactError) as exc:
        TargetContact.from_fields(mobile="02188776655", landline=None)
    assert list(exc.value.errors) == ["mobile"]
    assert "تلفن ثابت" in exc.value.errors["mobile"][0]


def test_mobile_in_landline_field_is_a_field_error():
    with pytest.raises(ContactError) as exc:
        TargetContact.from_fields(mobile=None, landline="09123456789")
    assert list(exc.value.errors) == ["landline"]


def test_both_empty_is_an_error():
    with pytest.raises(ContactError) as exc:
        TargetContact.from_fields(mobile="", landline="  ")
    assert "non_field_errors" in exc.value.errors


def test_cells_are_classified_by_what_they_are():
    contact, warnings = TargetContact.from_cells(["021 8877 6655", "۰۹۱۲۳۴۵۶۷۸۹"])
    assert contact == TargetContact(mobile="+989123456789", landline="+982188776655")
    assert warnings == []


def test_cells_keep_first_of_each_kind_and_warn_about_extras():
    contact, warnings = TargetContact.from_cells(["09123456789, 09351234567", "bad"])
    assert contact.mobile == "+989123456789"
    assert len(warnings) == 2  # the invalid "bad" and the extra mobile
