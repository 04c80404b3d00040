"""Direct enrollment: subjects → executions at once (``POST /campaigns/{id}/enrollments``).

Invalid subjects (missing, deleted, refused by a channel — e.g. no valid
mobile), blacklisted ones and ones already live in this campaign are refused
and reported; the live unique index is the final race guard ("added
concurrently"). Every chunk is checked first — one set-based query each, live in another campaign
included, so conflicts are refused before anything is added — then goes through ``enroll_chunk``: one
insert of executions and events each (``enrollment_writer``).
"""

from __future__ import annotations

from automation.errors import CampaignClosed, CampaignNotJourney
from automation.selectors import campaign_journey_get
from automation.services.enrollment_core import (
    CHUNK,
    MAX_SUBJECTS,
    EnrollmentReport,
    chunk_check,
    enroll_chunk,
    live_elsewhere,
)
from campaigns.choices import CampaignStatus
from campaigns.models import Campaign, Target
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, get_scoped, scoped

MAX_LISTED_CONFLICTS = 200


def enroll_subjects(
    *, actor: Actor, campaign_id: int, target_ids: list[int], on_conflict: str | None = None
) -> EnrollmentReport:
    """Enroll at once. Subjects live in another campaign are added or skipped only as ``on_conflict``
    (``add``/``skip``) says; without it, their presence is a 400 ``CONFLICTS_PRESENT`` naming them."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    campaign = get_scoped(Campaign, actor.workspace, campaign_id)
    if campaign_journey_get(campaign) is None:
        raise CampaignNotJourney()
    if campaign.status in (CampaignStatus.COMPLETED, CampaignStatus.CANCELLED):
        raise CampaignClosed()
    ids = list(dict.fromkeys(int(i) for i in target_ids))
    if not ids:
        raise ValidationFailed.field("target_ids", "دست‌کم یک مخاطب انتخاب کنید.")
    if len(ids) > MAX_SUBJECTS:
        raise ValidationFailed.field("target_ids", f"حداکثر {MAX_SUBJECTS} مخاطب در هر بار.")
    if on_conflict not in (None, "add", "skip"):
        raise ValidationFailed.field("on_conflict", "add یا skip.")
    report = EnrollmentReport()
    # One set-based check per chunk, all of them before anything is added: found, live here and — unless
    # conflicts are to be added anyway — live in another campaign of the workspace (one query for both).
    targets = scoped(Target, actor.workspace)
    look_elsewhere = on_conflict != "add"
    checks = [
        (chunk, chunk_check(campaign, chunk, targets, elsewhere=look_elsewhere))
        for chunk in (ids[start : start + CHUNK] for start in range(0, len(ids), CHUNK))
    ]
    elsewhere = {tid for chunk, check in checks for tid in chunk if check.elsewhere(tid)}
    if elsewhere and on_conflict is None:
        from automation.errors import ConflictsPresent

        listed = sorted(elsewhere)[:MAX_LISTED_CONFLICTS]
        details = live_elsewhere(campaign, listed)
        raise ConflictsPresent(
            details={
                "on_conflict": ["add یا skip را صریحاً بفرستید."],
                "subject_ids": sorted(elsewhere),
                "conflicts": [{"subject_id": k, "conflicts": details[k]} for k in listed if k in details],
            }
        )
    report.conflict_skipped = sorted(elsewhere)
    for chunk, check in checks:
        enroll_chunk(actor, campaign, [i for i in chunk if i not in elsewhere], report, check=check)
    return report
