"""What the providers will refuse in a text, found before the send (the step editor's live lint, the launch
check): message parts, the opt-out line an advertising multi-recipient send needs (Melipayamak 15), links
(Kavenegar 420, Melipayamak 13/14 on an account not allowed links)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sms.segments import count_segments

_LINK = re.compile(r"(https?://|www\.)\S+|\b[\w-]+\.(ir|com|net|org|me|io|co|app|link|ly)\b(/\S*)?", re.IGNORECASE)
_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")


def _plain(text: str) -> str:
    return re.sub(r"\s+", "", (text or "").translate(_DIGITS))


@dataclass(frozen=True)
class TextLint:
    parts: int
    has_link: bool
    has_opt_out: bool

    def as_dict(self) -> dict:
        return {"parts": self.parts, "has_link": self.has_link, "has_opt_out": self.has_opt_out}


def has_link(text: str) -> bool:
    return bool(_LINK.search(text or ""))


def has_opt_out_line(text: str, opt_out_text: str) -> bool:
    """The text carries the opt-out line (digits in any script, spaces ignored: «لغو ۱۱» = «لغو11»)."""
    wanted = _plain(opt_out_text) or "لغو11"
    return wanted in _plain(text)


def lint_text(text: str, *, append_opt_out: bool, opt_out_text: str) -> TextLint:
    """The text as it will go (the opt-out line appended when the step says so)."""
    full = f"{text}\n{opt_out_text}" if append_opt_out and opt_out_text else text
    return TextLint(
        parts=count_segments(full).segments,
        has_link=has_link(full),
        has_opt_out=has_opt_out_line(full, opt_out_text),
    )
