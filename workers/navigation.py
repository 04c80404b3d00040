"""Browser tasks in the staff menu: one drop-down heading; accounts and proxies for the roles that see
browser details."""

from campaigns.platform.navigation import MenuGroup, MenuItem

MENU = (
    MenuGroup(
        "browser",
        order=20,
        label="کارهای مرورگر",
        testid="nav-browser",
        items=(
            MenuItem("browser-campaigns", "کمپین‌های مرورگر"),
            MenuItem("browser-accounts", "حساب‌ها"),
            MenuItem("browser-proxies", "پراکسی‌ها"),
        ),
    ),
)
