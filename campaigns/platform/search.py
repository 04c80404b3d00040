"""The one folded form stored search columns and queries are compared in.

``search_text``: trimmed, whitespace collapsed, case folded, diacritics removed, the Arabic code points Persian
text often carries mapped to their Persian letters (ي→ی, ك→ک …). ``search_digits`` also maps Persian and
Arabic-Indic digits to Latin ones (phone numbers and numbers in names). Columns kept in this form carry a
``pg_trgm`` GIN index on PostgreSQL, so ``LIKE '%fragment%'`` of three characters or more is an index scan.
"""

import unicodedata

# Letters NFKD does not decompose, and Arabic code points Persian text often carries.
_FOLD = str.maketrans(
    {
        "đ": "d",
        "Đ": "d",
        "ي": "ی",
        "ى": "ی",
        "ك": "ک",
        "ة": "ه",
        "أ": "ا",
        "إ": "ا",
        "آ": "ا",
        "ؤ": "و",
        "\u200c": " ",  # ZWNJ: «می‌رود» matches «می رود»
        "\u0640": "",  # tatweel
    }
)
_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")


def clean_name(value: str | None) -> str:
    """Trim and collapse inner whitespace."""
    return " ".join((value or "").split())


def search_text(value: str | None) -> str:
    """Lowercase, diacritics removed: the form both stored names and queries are compared in."""
    folded = clean_name(value).casefold().translate(_FOLD)
    decomposed = unicodedata.normalize("NFKD", folded)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(unicodedata.normalize("NFC", stripped).split())


def search_digits(value: str | None) -> str:
    """``search_text`` with Persian and Arabic-Indic digits as Latin digits."""
    return search_text((value or "").translate(_DIGITS))
