"""Name keys for uniqueness and accent-free search text (Vietnamese and Persian alike)."""

from campaigns.platform.search import clean_name, search_text

__all__ = ["clean_name", "name_key", "search_text"]


def name_key(value: str | None) -> str:
    """Case-insensitive identity of a name (accents are kept: «Việt» ≠ «Viet»)."""
    return clean_name(value).casefold()
