"""The chains policy of the campaign lifecycle: chain members change only through their chain.

Nothing outside this module calls these directly: every status change and configuration edit of a campaign
runs them through the policy registered below, whoever asks:

* ``assert_campaign_editable`` — config edits of a chain member must go
  through the chain services (root lock + revision), approved chains are locked;
* ``assert_not_chain_member`` — chain members are submitted, approved and activated by their
  package (the approval of a standalone campaign and the workspace's approval gate are the core's:
  ``campaigns.services.approval``, ``campaigns.services.lifecycle``);
* ``route_campaign_control`` — the old per-campaign pause / resume / stop
  (cancel) on a chain root runs chain control (the same code as
  ``/campaign/{root}/chain/...``); on a child it answers 409 ``CHAIN_MEMBER``.

``campaigns.chains.apps`` registers them with the campaign lifecycle (``campaigns.services.lifecycle``):
``chain_transition_policy`` runs before every requested status change, ``chain_edit_policy``
before every configuration edit.
"""

from campaigns.chains.errors import ChainLocked, ChainMemberControlled, ChainMemberNeedsPackage
from campaigns.chains.nodes import node_of
from campaigns.models import Campaign
from campaigns.services.lifecycle import START_TRANSITIONS

# Requests a chain member never takes alone: its package submits, approves and starts it.
PACKAGE_TRANSITIONS = (*START_TRANSITIONS, "submit", "approve", "reject")
# The old per-campaign lifecycle actions → chain control at the root.
CHAIN_CONTROL_OF = {"pause": "pause", "resume": "resume", "cancel": "stop", "stop": "stop"}


def chain_root_id(campaign: Campaign) -> int | None:
    """The campaign's chain root (None: not in a chain, or a campaign chains never took)."""
    node = node_of(campaign)
    return node.root_id if node is not None else None


def is_chain_member(campaign: Campaign) -> bool:
    return chain_root_id(campaign) is not None


def assert_campaign_editable(campaign: Campaign) -> None:
    if is_chain_member(campaign):
        raise ChainLocked("کمپین‌های زنجیره فقط از مسیر ویرایش زنجیره تغییر می‌کنند.")


def assert_not_chain_member(campaign: Campaign) -> None:
    root_id = chain_root_id(campaign)
    if root_id is not None:
        raise ChainMemberNeedsPackage(details={"root_campaign_id": root_id})


def route_campaign_control(*, actor, campaign: Campaign, action: str) -> Campaign | None:
    """``None`` for a campaign outside chains (the caller goes on); else the chain-control result or 409."""
    node = node_of(campaign)
    if node is None or node.root_id is None:
        return None
    if action == "activate":
        raise ChainMemberNeedsPackage(details={"root_campaign_id": node.root_id})
    chain_action = CHAIN_CONTROL_OF.get(action)
    if chain_action is None:
        return None
    if node.root_id != node.id:
        raise ChainMemberControlled(
            details={
                "root_campaign_id": node.root_id,
                "route": f"/api/v1/campaign/{node.root_id}/chain/{chain_action}",
            }
        )
    from campaigns.chains.services.approval import chain_control_set

    return chain_control_set(
        actor=actor, campaign_id=node.id, action=chain_action, expected_chain_revision=node.chain_revision
    )


def chain_edit_policy(*, campaign: Campaign) -> None:
    assert_campaign_editable(campaign)


def chain_transition_policy(*, actor, campaign: Campaign, transition: str) -> Campaign | None:
    """The lifecycle policy of chains: a member is submitted, approved and started by its package, control
    is routed to the chain."""
    if transition in PACKAGE_TRANSITIONS:
        assert_not_chain_member(campaign)
        return None
    return route_campaign_control(actor=actor, campaign=campaign, action=transition)
