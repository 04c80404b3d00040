"""Text hygiene shared by every app: validators for user-supplied text and JSON documents.

- ``validate_no_nul``: PostgreSQL cannot store ``\\u0000`` in text or jsonb; refused as a field error.
- ``validate_plain_text``: no control characters except tab and newlines.
- ``validate_visible_name``: a name needs at least one visible character (not only zero-width,
  bidi-override or other format characters).
- ``validate_json_document``: NUL-free keys and values plus caps on key count, key length, total size.
- ``StrictCharField``: a DRF CharField that refuses numbers and booleans instead of coercing them.
- ``VisibleNameField``: a ``StrictCharField`` for names and labels (``validate_visible_name``).
- ``validate_description``: plain text of at most ``DESCRIPTION_MAX_LENGTH`` characters.
- ``text_check``: the same rules in a service (pages that post straight to a service, the admin), as a
  400 VALIDATION_ERROR naming each field.
- ``StrictTextFormMixin``: the same rules for every text field of a Django form (the Persian pages).
- ``typed_int``: an id or number typed as text (a form field, a header part), ASCII digits within a bigint.
"""

import json
import re
import unicodedata

from django import forms
from django.core.exceptions import ValidationError
from rest_framework import serializers

from campaigns.platform.errors import ValidationFailed

NUL_MESSAGE = "نویسه تهی (NUL) مجاز نیست."
CONTROL_MESSAGE = "نویسه‌های کنترلی مجاز نیستند."
INVISIBLE_MESSAGE = "نام باید دست‌کم یک نویسه دیدنی داشته باشد."
# A campaign's or a workflow's description (pages and API alike): stored as text, shown on the lists.
DESCRIPTION_MAX_LENGTH = 2000
DESCRIPTION_MESSAGE = "توضیحات حداکثر ۲۰۰۰ نویسه است."
# Unicode category Cc (C0, DEL, C1) minus tab, line feed and carriage return.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Target attributes (free-form per-target data): keys, key length, serialised size.
TARGET_ATTRIBUTES_MAX_KEYS = 100
TARGET_ATTRIBUTES_MAX_KEY_LENGTH = 100
TARGET_ATTRIBUTES_MAX_BYTES = 16 * 1024


MAX_BIGINT = 2**63 - 1


def typed_int(text: object) -> int | None:
    """The whole number ``text`` spells in ASCII digits (0 to a bigint: at most 19 digits), else None.

    ``str.isdigit()`` is no guard for ``int()``: it takes «²» and thousands of digits, which ``int()`` refuses
    (a ValueError, a 500 where a page or a webhook read an id or a time that way)."""
    text = text if isinstance(text, str) else ""
    if not (0 < len(text) <= 19 and text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if value <= MAX_BIGINT else None


def has_control_characters(value: str) -> bool:
    """NUL or another control character except tab and newlines."""
    return _CONTROL.search(value) is not None


def validate_no_nul(value) -> None:
    if isinstance(value, str) and "\x00" in value:
        raise ValidationError(NUL_MESSAGE, code="null_characters_not_allowed")


def validate_plain_text(value) -> None:
    if not isinstance(value, str):
        return
    validate_no_nul(value)
    if has_control_characters(value):
        raise ValidationError(CONTROL_MESSAGE, code="control_characters")


def validate_visible_name(value) -> None:
    """Refuses control characters and names made only of invisible characters (Cf: ZWJ, RLO, …)."""
    if not isinstance(value, str):
        return
    validate_plain_text(value)
    if value and not any(unicodedata.category(ch) not in {"Cf", "Zs", "Cc", "Zl", "Zp"} for ch in value):
        raise ValidationError(INVISIBLE_MESSAGE, code="invisible")


def json_strings(value):
    """Every string of a JSON document, keys included."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def validate_json_document(
    value, *, max_keys: int | None = None, max_key_length: int | None = None, max_bytes: int | None = None
) -> None:
    """NUL-free JSON; with caps, a flat object of at most ``max_keys`` keys of ``max_key_length``
    characters, at most ``max_bytes`` once serialised."""
    if any("\x00" in text for text in json_strings(value)):
        raise ValidationError(NUL_MESSAGE, code="null_characters_not_allowed")
    if max_keys is not None and isinstance(value, dict) and len(value) > max_keys:
        raise ValidationError(f"حداکثر {max_keys} کلید مجاز است.", code="too_many_keys")
    if max_key_length is not None and isinstance(value, dict):
        if any(len(str(key)) > max_key_length for key in value):
            raise ValidationError(f"طول هر کلید حداکثر {max_key_length} نویسه است.", code="key_too_long")
    if max_bytes is not None:
        size = len(json.dumps(value, ensure_ascii=False).encode())
        if size > max_bytes:
            raise ValidationError(f"حجم داده حداکثر {max_bytes} بایت است.", code="too_large")


class StrictCharField(serializers.CharField):
    """Accepts only strings (no silent ``123`` → ``"123"``); refuses control characters."""

    default_error_messages = {"invalid": "یک متن معتبر وارد کنید."}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.validators.append(validate_plain_text)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class VisibleNameField(StrictCharField):
    """A name or label: strict text with at least one visible character."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.validators.append(validate_visible_name)


def validate_description(value) -> None:
    """Plain text of at most ``DESCRIPTION_MAX_LENGTH`` characters (a campaign's or a workflow's description)."""
    validate_plain_text(value)
    if isinstance(value, str) and len(value) > DESCRIPTION_MAX_LENGTH:
        raise ValidationError(DESCRIPTION_MESSAGE)


def text_check(*, names: dict | None = None, texts: dict | None = None, descriptions: dict | None = None) -> None:
    """Raise one ``ValidationFailed`` naming every field whose value breaks the rules.

    ``names`` need a visible character (``validate_visible_name``), ``texts`` only plain text
    (``validate_plain_text``), ``descriptions`` plain text of at most ``DESCRIPTION_MAX_LENGTH`` characters;
    ``None`` values (field not sent) are skipped, other non-strings too.
    """
    errors: dict[str, list[str]] = {}
    rules = (
        (names or {}, validate_visible_name),
        (texts or {}, validate_plain_text),
        (descriptions or {}, validate_description),
    )
    for fields, validator in rules:
        for field, value in fields.items():
            try:
                validator(value)
            except ValidationError as exc:
                errors[field] = list(exc.messages)
    if errors:
        raise ValidationFailed(details=errors)


class StrictTextFormMixin:
    """Every ``CharField`` of the form refuses NUL and control characters; the fields named in
    ``visible_name_fields`` also need a visible character."""

    visible_name_fields: tuple[str, ...] = ()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, field in self.fields.items():
            if isinstance(field, forms.CharField):
                field.validators.append(
                    validate_visible_name if name in self.visible_name_fields else validate_plain_text
                )
