"""Opt-out words in every spelling recipients type them: Arabic or Persian letters and digits, spaces, ZWNJ,
tatweel, diacritics, case, a full stop — and never a word inside a sentence (hypothesis)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sms.inbound.keywords import (
    DEFAULT_OPT_IN_WORDS,
    DEFAULT_OPT_OUT_WORDS,
    OPT_IN,
    OPT_OUT,
    keyword_of,
)

VARIANTS = {
    "1": ["1", "۱", "١"],
    "ی": ["ی", "ي", "ى"],
    "ک": ["ک", "ك"],
    "و": ["و", "ﻮ"],
    "ل": ["ل", "ﻟ"],
}
GLUE = ["", "", " ", "\u200c", "\u0640", "\u200f", "  "]
MARKS = ["", "", "\u064e", "\u0650"]  # a diacritic after a letter
PERSIAN_LETTERS = "ابپتثجچحخدذرزژسشصضطظعغفقکگلمنوهی"


@st.composite
def spelled(draw, word: str) -> str:
    out = [draw(st.sampled_from(["", " ", "\u200c", "\n"]))]
    for ch in word:
        variants = VARIANTS.get(ch) or ([ch, ch.upper()] if ch.isascii() and ch.isalpha() else [ch])
        out.append(draw(st.sampled_from(variants)))
        if not ch.isascii():
            out.append(draw(st.sampled_from(MARKS)))
        out.append(draw(st.sampled_from(GLUE)))
    out.append(draw(st.sampled_from(["", ".", "!", "؟", " ", "\u200c"])))
    return "".join(out)


def classify(text: str) -> str:
    return keyword_of(text, opt_out_words=DEFAULT_OPT_OUT_WORDS, opt_in_words=DEFAULT_OPT_IN_WORDS)


@given(st.sampled_from(DEFAULT_OPT_OUT_WORDS).flatmap(spelled))
def test_every_spelling_of_an_opt_out_word_opts_out(text):
    assert classify(text) == OPT_OUT, repr(text)


@given(st.sampled_from(DEFAULT_OPT_IN_WORDS).flatmap(spelled))
def test_every_spelling_of_an_opt_in_word_opts_in(text):
    assert classify(text) == OPT_IN, repr(text)


@given(
    st.sampled_from(DEFAULT_OPT_OUT_WORDS).flatmap(spelled),
    st.text(alphabet=PERSIAN_LETTERS, min_size=2, max_size=12),
    st.booleans(),
)
def test_an_opt_out_word_inside_a_sentence_never_opts_out(word, other, before):
    sentence = f"{other} {word}" if before else f"{word} {other}"
    assert classify(sentence) == "", repr(sentence)
