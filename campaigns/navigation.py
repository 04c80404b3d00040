"""The campaigns app's part of the staff menu (``campaigns.platform.navigation``): the home page, targets
and their import first; the workspace's settings (owners and admins), the admin and the API documentation
last."""

from campaigns.platform.navigation import MenuGroup, MenuItem

MENU = (
    MenuGroup(
        "campaigns",
        order=10,
        items=(
            MenuItem("home", "پیشخوان"),
            MenuItem("target-list", "مخاطبان"),
            MenuItem("target-import", "ورود از اکسل"),
        ),
    ),
    MenuGroup(
        "tools",
        order=90,
        items=(
            MenuItem("workspace-settings", "تنظیمات فضای کاری", testid="nav-workspace-settings"),
            MenuItem("webhooks", "وب‌هوک‌ها", testid="nav-webhooks"),
            MenuItem("api-keys", "کلیدهای API", testid="nav-api-keys"),
            MenuItem("admin:index", "مدیریت", staff_only=True),
            MenuItem("api-docs", "مستندات API"),
        ),
    ),
)
