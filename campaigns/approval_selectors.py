"""Reads of campaign approval: the workspace's approval and four-eyes settings, who may approve, who submitted.

Standalone campaigns are approved one by one (``campaigns.services.approval``); chains are approved as one
package (``campaigns.chains.services.approval``) under the same settings and the same four-eyes rule.
The calendar a workspace counts schedule months in: ``campaigns.calendar``.
"""

from dataclasses import dataclass

from campaigns.choices import CampaignStatus
from campaigns.models import CampaignEvent, Membership
from campaigns.platform.permissions import Perm

WORKSPACE_APPROVAL_SETTING = "campaigns_need_approval"  # Workspace.settings key
FOUR_EYES_SETTING = "approval_four_eyes"  # Workspace.settings key


def workspace_needs_approval(workspace) -> bool:
    """The workspace setting: campaigns (chains and single campaigns) start only once approved."""
    return bool((workspace.settings or {}).get(WORKSPACE_APPROVAL_SETTING, False))


def four_eyes(workspace) -> bool:
    """The workspace's rule now: what a submission binds (a package's ``four_eyes``, a submit event's data)."""
    return bool((workspace.settings or {}).get(FOUR_EYES_SETTING, False))


@dataclass(frozen=True)
class SingleSubmission:
    """Who last submitted a standalone campaign and the four-eyes rule bound at that moment."""

    submitter_id: int | None
    four_eyes: bool


def single_submission(campaign, workspace) -> SingleSubmission:
    """Read from the campaign's latest ``submitted`` event (its events are the record). The rule is bound in the
    event's data at submit; an event written before binding existed falls back to the workspace's rule now."""
    event = CampaignEvent.objects.filter(campaign=campaign, to_status=CampaignStatus.SUBMITTED).order_by("-id").first()
    bound = (event.data or {}).get(FOUR_EYES_SETTING) if event else None
    return SingleSubmission(
        submitter_id=event.actor_id if event else None,
        four_eyes=four_eyes(workspace) if bound is None else bool(bound),
    )


def approver_ids(workspace, *, submitter_id: int | None, bound_four_eyes: bool) -> list[int]:
    """Members who may decide: ``approve_chains``, minus the submitter when the submission bound four eyes."""
    members = Membership.objects.filter(workspace=workspace).order_by("user_id")
    ids = [m.user_id for m in members if m.has(Perm.APPROVE_CHAINS)]
    if bound_four_eyes and submitter_id is not None:
        ids = [i for i in ids if i != submitter_id]
    return ids


def approvers(workspace, *, submitter_id: int | None, bound_four_eyes: bool) -> list[Membership]:
    ids = approver_ids(workspace, submitter_id=submitter_id, bound_four_eyes=bound_four_eyes)
    members = Membership.objects.filter(workspace=workspace, user_id__in=ids).select_related("user")
    return list(members.order_by("user_id"))
