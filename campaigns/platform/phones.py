"""TargetContact: the one place that interprets phone input.

Numbers are parsed with ``phonenumbers`` for region IR (Persian and
Arabic-Indic digits, ``+98``, ``0098``, ``09…``, spaces and dashes) and stored
as E.164. Each number is classified by what it is (mobile or landline), not
by the field or column it came in.
"""

import re
from dataclasses import dataclass

import phonenumbers
from phonenumbers import NumberParseException, PhoneNumberType

from campaigns.platform.choices import PhoneKind

REGION = "IR"
_MOBILE_TYPES = {PhoneNumberType.MOBILE}
_LANDLINE_TYPES = {PhoneNumberType.FIXED_LINE, PhoneNumberType.VOIP, PhoneNumberType.UAN}
_SPLIT = re.compile(r"[,،;|/\n]+")

MSG_INVALID = "شماره «{raw}» معتبر نیست."
MSG_LANDLINE_IN_MOBILE = "«{raw}» شماره تلفن ثابت است، نه موبایل؛ آن را در فیلد تلفن ثابت وارد کنید."
MSG_MOBILE_IN_LANDLINE = "«{raw}» شماره موبایل است، نه تلفن ثابت؛ آن را در فیلد موبایل وارد کنید."
MSG_NEITHER = "حداقل یکی از موبایل یا تلفن ثابت لازم است."


class PhoneError(ValueError):
    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


@dataclass(frozen=True)
class ParsedPhone:
    e164: str
    kind: str  # PhoneKind


# The common input, an Iranian mobile typed as 0912…, +98 912…, 0098 912… (Persian or Arabic-Indic digits,
# spaces or dashes): its national number is read without phonenumbers' parse, then classified by
# phonenumbers' own metadata (``number_type``), so the answer is the one the full parse gives.
_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789", " -")
_COMMON_MOBILE = re.compile(r"(?:\+98|0098|0)(9[0-9]{9})")


def parse_phone(raw: str) -> ParsedPhone:
    """Parse one number; raise PhoneError with a Persian message when invalid."""
    text = (raw or "").strip()
    if (common := _COMMON_MOBILE.fullmatch(text.translate(_DIGITS))) is not None:
        national = common.group(1)
        number = phonenumbers.PhoneNumber(country_code=98, national_number=int(national))
        if phonenumbers.number_type(number) in _MOBILE_TYPES:
            return ParsedPhone(f"+98{national}", PhoneKind.MOBILE)
    try:
        number = phonenumbers.parse(text, REGION)
    except NumberParseException:
        raise PhoneError(MSG_INVALID.format(raw=text)) from None
    if not phonenumbers.is_valid_number(number):
        raise PhoneError(MSG_INVALID.format(raw=text))
    number_type = phonenumbers.number_type(number)
    if number_type in _MOBILE_TYPES:
        kind = PhoneKind.MOBILE
    elif number_type in _LANDLINE_TYPES or number_type == PhoneNumberType.FIXED_LINE_OR_MOBILE:
        kind = PhoneKind.LANDLINE
    else:
        raise PhoneError(MSG_INVALID.format(raw=text))
    return ParsedPhone(phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164), kind)


def split_numbers(cell: str | None) -> list[str]:
    """A cell may hold several numbers separated by , ، ; | / or newlines."""
    if cell is None:
        return []
    return [part.strip() for part in _SPLIT.split(str(cell)) if part.strip()]


_IR_MOBILE = re.compile(r"\+989[0-9]{9}")


def display_phone(e164: str | None) -> str:
    """National format for people (0912 345 6789)."""
    if not e164:
        return ""
    if _IR_MOBILE.fullmatch(e164):  # the common case, as phonenumbers formats it, without its parse (exports)
        return f"0{e164[3:6]} {e164[6:9]} {e164[9:]}"
    try:
        return phonenumbers.format_number(phonenumbers.parse(e164, REGION), phonenumbers.PhoneNumberFormat.NATIONAL)
    except NumberParseException:
        return e164


@dataclass(frozen=True)
class TargetContact:
    """A validated pair of numbers for one target."""

    mobile: str | None
    landline: str | None

    @classmethod
    def from_fields(cls, *, mobile: str | None, landline: str | None) -> "TargetContact":
        """Form/API input: each field must hold its own kind. Raises {field: [msg]}."""
        errors: dict[str, list[str]] = {}
        found: dict[str, str] = {}
        for field, raw, kind, other_kind in (
            ("mobile", mobile, PhoneKind.MOBILE, MSG_LANDLINE_IN_MOBILE),
            ("landline", landline, PhoneKind.LANDLINE, MSG_MOBILE_IN_LANDLINE),
        ):
            if not (raw and str(raw).strip()):
                continue
            try:
                parsed = parse_phone(str(raw))
            except PhoneError as exc:
                errors[field] = [exc.message]
                continue
            if parsed.kind != kind:
                errors[field] = [other_kind.format(raw=str(raw).strip())]
            else:
                found[field] = parsed.e164
        if not errors and not found:
            errors["non_field_errors"] = [MSG_NEITHER]
        if errors:
            raise ContactError(errors)
        return cls(mobile=found.get("mobile"), landline=found.get("landline"))

    @classmethod
    def from_cells(cls, cells: list[str | None]) -> tuple["TargetContact", list[str]]:
        """Import input: classify every number by what it is, whatever its column.

        Returns the contact and warnings (extra numbers that were not kept).
        Raises ContactError when no valid number is present.
        """
        mobiles: list[str] = []
        landlines: list[str] = []
        invalid: list[str] = []
        for cell in cells:
            for raw in split_numbers(cell):
                try:
                    parsed = parse_phone(raw)
                except PhoneError as exc:
                    invalid.append(exc.message)
                    continue
                bucket = mobiles if parsed.kind == PhoneKind.MOBILE else landlines
                if parsed.e164 not in bucket:
                    bucket.append(parsed.e164)
        if not mobiles and not landlines:
            raise ContactError({"phone": invalid or [MSG_NEITHER]})
        warnings = list(invalid)
        warnings += [f"شماره موبایل اضافه {display_phone(n)} نگه داشته نشد." for n in mobiles[1:]]
        warnings += [f"تلفن ثابت اضافه {display_phone(n)} نگه داشته نشد." for n in landlines[1:]]
        return cls(mobile=mobiles[0] if mobiles else None, landline=landlines[0] if landlines else None), warnings


class ContactError(ValueError):
    def __init__(self, errors: dict[str, list[str]]) -> None:
        self.errors = errors
        super().__init__("; ".join(m for msgs in errors.values() for m in msgs))
