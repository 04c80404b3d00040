"""Typed errors of targets, target lists and campaign approval (stable codes, Persian messages)."""

from campaigns.platform.errors import Conflict, PermissionDenied
from campaigns.platform.jalali import fa_digits

MAX_NAMED = 5  # campaigns named in the message; ``details`` lists them all


class TargetListInUse(Conflict):
    code = "TARGET_LIST_IN_USE"
    default_message = "کمپین‌هایی مخاطبان خود را از این فهرست می‌گیرند و فهرست حذف نمی‌شود."
    english = "Campaigns take their audience from this list; it cannot be deleted."

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


class ApprovalNotRequired(Conflict):
    code = "APPROVAL_NOT_REQUIRED"
    default_message = "این فضای کاری برای کمپین‌های مستقل تأیید لازم ندارد؛ کمپین را مستقیم فعال کنید."
    english = "This workspace does not require approval of standalone campaigns; activate the campaign directly."


class ApprovalRequired(Conflict):
    code = "APPROVAL_REQUIRED"
    default_message = "این کمپین پیش از فعال‌شدن باید تأیید شود."
    english = "This campaign must be approved before it is activated."


class SubmitterCannotApprove(PermissionDenied):
    code = "SUBMITTER_CANNOT_APPROVE"
    default_message = (
        "در این فضای کاری فرستنده بسته نمی‌تواند آن را تأیید کند (تأیید چهارچشمی)؛ تأییدکننده دیگری باید تأیید کند."
    )
    english = "The member who submitted a campaign cannot approve it; another member must."


class LaunchBlocked(Conflict):
    """Start or Approve refused while the launch check has blockers (``details["blockers"]``: each
    ``{code, message}``, docs/journeys.md "Launch check"); warnings never refuse."""

    code = "LAUNCH_BLOCKED"
    default_message = "بررسی پیش از شروع مانعی دارد؛ پیش از شروع یا تأیید آن را برطرف کنید."
    english = "The launch check has blockers (details.blockers); resolve them before starting or approving."

    @classmethod
    def naming(cls, blockers: list[dict], *, doing: str) -> "LaunchBlocked":
        """The refusal of ``doing`` («شروع» / «تأیید») naming every blocker."""
        rows = [{"code": b["code"], "message": b["message"]} for b in blockers]
        return cls(
            f"{doing} ممکن نیست: " + "؛ ".join(b["message"].rstrip(".") for b in rows), details={"blockers": rows}
        )
