"""Journeys in the staff menu: workflows (for who manages them) and SMS journey campaigns."""

from campaigns.platform.navigation import MenuGroup, MenuItem

MENU = (
    MenuGroup(
        "automation",
        order=30,
        items=(
            MenuItem("workflow-list", "اتوماسیون", testid="nav-automation"),
            MenuItem("journey-campaign-list", "کمپین‌های پیامکی", testid="nav-journeys"),
        ),
    ),
)
