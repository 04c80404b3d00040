"""Typed errors of targets and target lists (stable codes, Persian messages)."""

from campaigns.platform.errors import Conflict
from campaigns.platform.jalali import fa_digits

MAX_NAMED = 5  # campaigns named in the message; ``details`` lists them all


class TargetListInUse(Conflict):
    code = "TARGET_LIST_IN_USE"
    default_message = "کمپین‌هایی مخاطبان خود را از این فهرست می‌گیرند و فهرست حذف نمی‌شود."

    @classmethod
    def naming(cls, campaigns) -> "TargetListInUse":
        """The refusal naming the campaigns (``[{id, name}, …]`` in ``details["campaigns"]``)."""
        names = "، ".join(f"«{c.name}»" for c in campaigns[:MAX_NAMED])
        more = len(campaigns) - MAX_NAMED
        if more > 0:
            names += f" و {fa_digits(more)} کمپین دیگر"
        return cls(
            f"این فهرست مخاطبان کمپین‌های {names} است و حذف نمی‌شود؛ "
            "ابتدا فهرست مبدأ آن‌ها را عوض کنید یا کمپین‌ها را به پایان برسانید.",
            details={"campaigns": [{"id": c.id, "name": c.name} for c in campaigns]},
        )
