"""Named choices for groups, chains and approval packages (Persian labels)."""

from django.db import models

__all__ = ["ChainControl", "GroupStatus", "InheritanceType", "PackageStatus"]


class ChainControl(models.TextChoices):
    """A chain root's control (``ChainNode.chain_control``)."""

    NORMAL = "NORMAL", "عادی"
    PAUSED = "PAUSED", "متوقف موقت"
    STOPPED = "STOPPED", "متوقف‌شده"


class GroupStatus(models.TextChoices):
    ACTIVE = "ACTIVE", "فعال"
    DELETED = "DELETED", "حذف‌شده"


class InheritanceType(models.TextChoices):
    NOT_CONVERTED = "NOT_CONVERTED", "تبدیل‌نشده‌ها"
    CONVERTED = "CONVERTED", "تبدیل‌شده‌ها"
    FAILED_DELIVERY = "FAILED_DELIVERY", "ارسال ناموفق"


class PackageStatus(models.TextChoices):
    SUBMITTED = "SUBMITTED", "در انتظار تأیید"
    APPROVED = "APPROVED", "تأییدشده"
    REJECTED = "REJECTED", "ردشده"
    WITHDRAWN = "WITHDRAWN", "پس‌گرفته"
