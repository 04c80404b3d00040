"""SMS segment counter: GSM-7 160/153 (extension chars count 2) vs UCS-2 70/67.

Any character outside the GSM-7 basic and extension sets (every Persian
letter and digit, ZWNJ, «،», «؟») makes the whole message UCS-2. In UCS-2,
characters outside the BMP (emoji) take two code units and are not split
across parts.
"""

from dataclasses import asdict, dataclass

GSM_BASIC = set(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
GSM_EXTENSION = set("\f^{}\\[~]|€")


@dataclass(frozen=True)
class SegmentInfo:
    encoding: str  # "GSM-7" | "UCS-2"
    units: int  # septets or UTF-16 code units
    segments: int
    per_segment: int

    def as_dict(self) -> dict:
        return asdict(self)


def count_segments(text: str) -> SegmentInfo:
    text = text or ""
    if all(ch in GSM_BASIC or ch in GSM_EXTENSION for ch in text):
        sizes = [2 if ch in GSM_EXTENSION else 1 for ch in text]
        single, multi, encoding = 160, 153, "GSM-7"
    else:
        sizes = [2 if ord(ch) > 0xFFFF else 1 for ch in text]
        single, multi, encoding = 70, 67, "UCS-2"
    units = sum(sizes)
    if units == 0:
        return SegmentInfo(encoding, 0, 0, single)
    if units <= single:
        return SegmentInfo(encoding, units, 1, single)
    # Pack characters into parts of ``multi`` units without splitting a character (escape pair / surrogate pair).
    segments, used = 1, 0
    for size in sizes:
        if used + size > multi:
            segments += 1
            used = 0
        used += size
    return SegmentInfo(encoding, units, segments, multi)
