"""Iranian mobile operators by number prefix (E.164 ``+989…``), for pricing a send per operator.

MCI (Hamrah-e Aval) 0910–0919 and 0990–0994, Irancell 0930/0933/0935–0939, 0900–0905 and 0941, RighTel
0920–0922; anything else (MVNOs such as Shatel 0998, Talia 0932, TeleKish 0934) is ``other`` and priced like
MCI (docs/sms.md "Launch check: cost").
"""

from __future__ import annotations

from sms.choices import OPERATOR_PRICE_FIELD, Operator

_PREFIXES: dict[str, str] = {
    **{f"91{d}": Operator.MCI for d in "0123456789"},
    **{f"99{d}": Operator.MCI for d in "01234"},
    **{p: Operator.IRANCELL for p in ("930", "933", "935", "936", "937", "938", "939", "941")},
    **{f"90{d}": Operator.IRANCELL for d in "012345"},
    **{p: Operator.RIGHTEL for p in ("920", "921", "922")},
}


def operator_of(number: str | None) -> str:
    """The operator of an E.164 Iranian mobile (``+98912…``); ``other`` for anything else."""
    digits = (number or "").removeprefix("+")
    if digits.startswith("98"):
        digits = digits[2:]
    elif digits.startswith("0"):
        digits = digits[1:]
    return _PREFIXES.get(digits[:3], Operator.OTHER)


def part_price(account, operator: str) -> tuple[int, str]:
    """The price of one message part (rials) of ``account`` to ``operator`` and where it comes from: ``provider``
    (read from the provider, ``provider_prices``) unless staff keep their own prices (``use_typed_prices``) or the
    provider does not price that operator; else ``typed`` (the account form's price). ``other`` is priced like MCI."""
    priced = Operator.MCI if operator == Operator.OTHER else operator
    read = (account.provider_prices or {}).get(priced)
    if read is not None and not account.use_typed_prices:
        return int(read), "provider"
    return int(getattr(account, OPERATOR_PRICE_FIELD[operator]) or 0), "typed"
