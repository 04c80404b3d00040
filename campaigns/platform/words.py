"""Whole-word matching of free text (a reply against the words a journey or a chain looks for).

Both sides are folded alike: Arabic letters as Persian, Persian and Arabic-Indic digits as Latin, case folded,
ZWNJ and other invisible format characters removed (``می‌خواهم`` is ``میخواهم``), then split into words.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from campaigns.platform.search import search_digits

_WORD = re.compile(r"\w+")
MAX_WORDS = 20
MAX_WORD_LENGTH = 40


def text_words(text: Any) -> list[str]:
    """A text's words as ``has_word`` compares them."""
    visible = "".join(ch for ch in str(text or "") if unicodedata.category(ch) != "Cf")
    return _WORD.findall(search_digits(visible))


def has_word(text: Any, words: Any) -> bool:
    """Any of ``words`` (each a word or a phrase of several) appears whole in ``text``: «بله» matches «بله حتما»
    but not «بلهههه»; «نه ممنون» matches the two words side by side."""
    if text in (None, ""):
        return False
    have = text_words(text)
    for phrase in words if isinstance(words, list | tuple | set) else [words]:
        want = text_words(phrase)
        if want and any(have[i : i + len(want)] == want for i in range(len(have) - len(want) + 1)):
            return True
    return False


def words_problem(words: Any) -> str | None:
    """Why a list of words to look for cannot be saved (Persian), or None (an empty list is fine)."""
    if not isinstance(words, list) or not all(isinstance(word, str) for word in words):
        return "فهرستی از کلمه‌ها لازم است."
    if len(words) > MAX_WORDS:
        return f"حداکثر {MAX_WORDS} کلمه."
    if any(len(word) > MAX_WORD_LENGTH for word in words):
        return f"هر کلمه حداکثر {MAX_WORD_LENGTH} نویسه است."
    if any(not text_words(word) for word in words):
        return "کلمهٔ خالی پذیرفته نیست."
    return None
