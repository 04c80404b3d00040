"""Groups and chains in the staff menu: for the roles that build or approve chains (viewers open the pages
from a campaign, not from the menu)."""

from campaigns.platform.navigation import MenuGroup, MenuItem
from campaigns.platform.permissions import Perm

MENU = (
    MenuGroup(
        "chains",
        order=50,
        items=(
            MenuItem(
                "chain-groups",
                "زنجیره‌ها",
                permissions=(Perm.MANAGE_CAMPAIGNS, Perm.APPROVE_CHAINS),
                testid="nav-chains",
            ),
        ),
    ),
)
