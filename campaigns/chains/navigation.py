"""Groups and chains in the staff menu: for the roles that build or approve chains (viewers open the pages
from a campaign, not from the menu); a chain member's page for the links of its notifications."""

from django.urls import reverse

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


def chain_campaign_page(campaign) -> str:
    """A chain member's runs page ("" for a standalone campaign: its kind's page)."""
    from campaigns.chains.guards import is_chain_member

    return reverse("chain-campaign-runs", args=[campaign.pk]) if is_chain_member(campaign) else ""
