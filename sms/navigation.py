"""The SMS section in the staff menu; it opens on the first tab the role may see (``sms.views.TABS``)."""

from campaigns.platform.navigation import MenuGroup, MenuItem

MENU = (
    MenuGroup(
        "sms",
        order=60,
        items=(
            MenuItem("sms-home", "پیامک", testid="nav-sms"),
            MenuItem("sms-inbox", "پاسخ‌ها", testid="nav-sms-inbox"),
        ),
    ),
)
