"""Role → permission map. One place decides what a role may do."""

from django.db import models

from campaigns.platform.choices import Role


class Perm(models.TextChoices):
    VIEW = "view", "مشاهده"
    MANAGE_TARGETS = "manage_targets", "مدیریت مخاطبان"
    OWN_TARGETS_ONLY = "own_targets_only", "فقط مخاطبان خود"
    MANAGE_WORKFLOWS = "manage_workflows", "مدیریت گردش‌کارها"
    MANAGE_CAMPAIGNS = "manage_campaigns", "مدیریت کمپین‌ها"
    APPROVE_CHAINS = "approve_chains", "تأیید زنجیره‌ها"
    VIEW_SMS_LOGS = "view_sms_logs", "مشاهده گزارش پیامک‌ها"
    MANAGE_BLACKLIST = "manage_blacklist", "مدیریت لیست سیاه"
    MANAGE_BROWSER = "manage_browser", "مدیریت حساب‌ها و پراکسی‌ها"
    # Proxy hosts/usernames, platform metadata and failure screenshots (not for viewers and operators).
    VIEW_BROWSER_DETAILS = "view_browser_details", "مشاهده جزئیات پراکسی، پیکربندی و تصاویر مرورگر"
    MANAGE_WORKSPACE = "manage_workspace", "مدیریت فضای کاری و اعضا"


_STAFF = {
    Perm.VIEW,
    Perm.MANAGE_TARGETS,
    Perm.MANAGE_WORKFLOWS,
    Perm.MANAGE_CAMPAIGNS,
    Perm.VIEW_SMS_LOGS,
    Perm.MANAGE_BLACKLIST,
    Perm.MANAGE_BROWSER,
    Perm.VIEW_BROWSER_DETAILS,
}

ROLE_PERMISSIONS: dict[str, frozenset[str]] = {
    Role.OWNER: frozenset(_STAFF | {Perm.APPROVE_CHAINS, Perm.MANAGE_WORKSPACE}),
    Role.ADMIN: frozenset(_STAFF | {Perm.APPROVE_CHAINS, Perm.MANAGE_WORKSPACE}),
    Role.MANAGER: frozenset(_STAFF),
    # An operator works on the targets they own and sees nothing else's.
    Role.OPERATOR: frozenset({Perm.VIEW, Perm.MANAGE_TARGETS, Perm.OWN_TARGETS_ONLY}),
    Role.VIEWER: frozenset({Perm.VIEW}),
}


def role_has(role: str, perm: str) -> bool:
    return perm in ROLE_PERMISSIONS.get(role, frozenset())
