"""One shared guard for old single-campaign APIs (edit, approve, activate) touching chain members.

Other apps call these before changing a campaign outside the chain services:

* ``assert_single_approval_allowed`` — the single-campaign approve/reject API
  answers 409 for chain members (they are approved as one package);
* ``assert_campaign_editable`` — config edits of a chain member must go
  through the chain services (root lock + revision), approved chains are locked;
* ``assert_can_activate_directly`` — chain members are activated by their
  package; standalone campaigns in a workspace with "campaigns need approval"
  must be approved first, elsewhere they activate directly.
"""

from ..choices import CampaignStatus
from ..models import Campaign
from .errors import ApprovalRequired, ChainLocked, ChainMemberNeedsPackage


def is_chain_member(campaign: Campaign) -> bool:
    return campaign.root_id is not None


def assert_single_approval_allowed(campaign: Campaign) -> None:
    if is_chain_member(campaign):
        raise ChainMemberNeedsPackage(details={"root_campaign_id": campaign.root_id})


def assert_campaign_editable(campaign: Campaign) -> None:
    if is_chain_member(campaign):
        raise ChainLocked("کمپین‌های زنجیره فقط از مسیر ویرایش زنجیره تغییر می‌کنند.")


def assert_can_activate_directly(campaign: Campaign) -> None:
    from .services.approval import workspace_needs_approval

    if is_chain_member(campaign):
        raise ChainMemberNeedsPackage(details={"root_campaign_id": campaign.root_id})
    if campaign.status == CampaignStatus.DRAFT and workspace_needs_approval(campaign.workspace):
        raise ApprovalRequired()
