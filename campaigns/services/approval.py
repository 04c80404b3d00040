"""Approval of a standalone campaign (submit, approve, reject) and the four-eyes rule, beside the lifecycle.

In a workspace whose campaigns need approval (``campaigns.approval_selectors.workspace_needs_approval``) a
standalone campaign is submitted, then approved or rejected by a member with ``approve_chains``; under four
eyes (``four_eyes``) not by whoever submitted it — 403 ``SUBMITTER_CANNOT_APPROVE``. The rule is bound at
submit (the submit event's data; a chain package's ``four_eyes``) and decided by the bound value. Every decision is a
lifecycle request (``campaign_status_change`` with its policies): a chain member is refused there by the
chains policy (chains are approved as one package, ``campaigns.chains.services.approval``). The lifecycle
itself refuses to start a draft that needs approval (``campaigns.services.lifecycle.campaign_assert_startable``).
Approve is refused while the campaign's launch check has blockers (409 ``LAUNCH_BLOCKED``).
"""

from campaigns.approval_selectors import FOUR_EYES_SETTING, four_eyes, single_submission, workspace_needs_approval
from campaigns.errors import ApprovalNotRequired, SubmitterCannotApprove
from campaigns.models import Campaign
from campaigns.platform.errors import StaleRevision
from campaigns.platform.permissions import Perm
from campaigns.platform.registry import campaign_check
from campaigns.platform.tenancy import Actor, get_scoped
from campaigns.platform.text import text_check
from campaigns.services.lifecycle import campaign_assert_launch_clear, campaign_status_change


def assert_may_approve(actor: Actor, submitter_id: int | None, *, bound_four_eyes: bool) -> None:
    """Four eyes: whoever submitted may not approve (rejecting and withdrawing stay open). ``bound_four_eyes``:
    the rule the submission bound, never the workspace's setting now."""
    if bound_four_eyes and submitter_id is not None and submitter_id == actor.user.id:
        raise SubmitterCannotApprove(details={"submitted_by_id": submitter_id})


def campaign_single_submit(*, actor: Actor, campaign: Campaign) -> Campaign:
    """A standalone campaign asks for approval (only where the workspace needs it)."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    if not workspace_needs_approval(actor.workspace):
        raise ApprovalNotRequired()
    # The four-eyes rule is bound in the submit event: approval reads it there, not the setting later.
    bound = {FOUR_EYES_SETTING: four_eyes(actor.workspace)}
    return campaign_status_change(campaign=campaign, transition="submit", actor=actor, event_data=bound)


def campaign_single_approve(*, actor: Actor, campaign_id: int, expected_revision: int | None = None) -> Campaign:
    actor.require(Perm.APPROVE_CHAINS)
    return _single_decide(actor, campaign_id, expected_revision, "approve")


def campaign_single_reject(
    *, actor: Actor, campaign_id: int, expected_revision: int | None = None, reason: str = ""
) -> Campaign:
    actor.require(Perm.APPROVE_CHAINS)
    text_check(texts={"reason": reason})
    return _single_decide(actor, campaign_id, expected_revision, "reject", reason=reason)


def _single_decide(actor: Actor, campaign_id: int, expected_revision, transition: str, **data) -> Campaign:
    campaign = get_scoped(Campaign, actor.workspace, campaign_id)
    if expected_revision is not None and campaign.revision != expected_revision:
        raise StaleRevision(details={"current_revision": campaign.revision})

    def check() -> None:  # after the policies (a chain member is refused there), before the write
        if transition == "approve":
            submission = single_submission(campaign, actor.workspace)
            assert_may_approve(actor, submission.submitter_id, bound_four_eyes=submission.four_eyes)
            # the same check as Start: its blockers refuse the approval (409 LAUNCH_BLOCKED)
            campaign_assert_launch_clear(check=campaign_check(actor=actor, campaign_id=campaign.id), doing="تأیید")

    return campaign_status_change(campaign=campaign, transition=transition, actor=actor, event_data=data, check=check)
