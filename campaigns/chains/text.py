"""Name keys for uniqueness and accent-free search text (Vietnamese and Persian alike)."""

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


def clean_name(value: str | None) -> str:
    """Trim and collapse inner whitespace."""
    return " ".join((value or "").split())


def name_key(value: str | None) -> str:
    """Case-insensitive identity of a name (accents are kept: «Việt» ≠ «Viet»)."""
    return clean_name(value).casefold()


def search_text(value: str | None) -> str:
    """Lowercase, diacritics removed: the form both stored names and queries are compared in."""
    folded = clean_name(value).casefold().translate(_FOLD)
    decomposed = unicodedata.normalize("NFKD", folded)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(unicodedata.normalize("NFC", stripped).split())
