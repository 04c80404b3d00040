"""Opt-out / opt-in keywords of a reply: the WHOLE reply, normalised, must be one of the workspace's words.

Normalising (``reply_key``): Arabic code points mapped to Persian letters (ي/ى → ی, ك → ک …), diacritics and
tatweel removed, Persian and Arabic-Indic digits as Latin digits, case folded, every space, ZWNJ and other
invisible format character (bidi marks, ZWJ) removed, and punctuation around the text dropped («لغو.» is
«لغو»). Punctuation inside stays, so a sentence never collapses into a word: «لغو نکنید» is «لغونکنید», which is
no opt-out word.
"""

from __future__ import annotations

import string
import unicodedata

from campaigns.platform.search import search_digits

DEFAULT_OPT_OUT_WORDS = ("لغو", "لغو ۱۱", "لغو11", "11", "stop")
DEFAULT_OPT_IN_WORDS = ("شروع",)
MAX_WORDS = 30
MAX_WORD_LENGTH = 40
_EDGE_PUNCTUATION = string.punctuation + "،؛؟«»…“”‘’!؟٪"

OPT_OUT = "opt_out"
OPT_IN = "opt_in"


def default_opt_out_words() -> list[str]:
    return list(DEFAULT_OPT_OUT_WORDS)


def default_opt_in_words() -> list[str]:
    return list(DEFAULT_OPT_IN_WORDS)


def reply_key(text: str | None) -> str:
    """The form a reply and a keyword are compared in (see the module docstring)."""
    visible = "".join(" " if unicodedata.category(ch) == "Cf" else ch for ch in str(text or ""))
    folded = search_digits(visible)
    return "".join(folded.split()).strip(_EDGE_PUNCTUATION)


def keyword_of(text: str | None, *, opt_out_words, opt_in_words) -> str:
    """``opt_out``, ``opt_in`` or "" for a reply, by the workspace's words."""
    key = reply_key(text)
    if not key:
        return ""
    if key in {reply_key(word) for word in opt_out_words or ()}:
        return OPT_OUT
    if key in {reply_key(word) for word in opt_in_words or ()}:
        return OPT_IN
    return ""


def words_problem(words) -> str | None:
    """Why a list of keywords cannot be saved (Persian), or None."""
    if not isinstance(words, list) or not all(isinstance(word, str) for word in words):
        return "فهرستی از کلمه‌ها لازم است."
    if len(words) > MAX_WORDS:
        return f"حداکثر {MAX_WORDS} کلمه."
    for word in words:
        if not reply_key(word):
            return "کلمهٔ خالی پذیرفته نیست."
        if len(word) > MAX_WORD_LENGTH:
            return f"هر کلمه حداکثر {MAX_WORD_LENGTH} نویسه است."
    return None


def clean_words(words: list[str]) -> list[str]:
    """Trimmed, each normalised form once (the first spelling kept)."""
    seen: dict[str, str] = {}
    for word in words:
        seen.setdefault(reply_key(word), " ".join(word.split()))
    return list(seen.values())
