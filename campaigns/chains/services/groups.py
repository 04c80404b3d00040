"""Campaign groups: create, rename, soft delete, add/remove/move independent campaigns.

Every membership change bumps the group's ``revision`` with a conditional
UPDATE (``status = ACTIVE``) inside the same transaction as the campaign
write: the UPDATE takes the group's row lock, so a delete and an add are
serialised and an add after a delete finds no ACTIVE row and writes nothing.
"""

from dataclasses import dataclass, field

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from campaigns.chains.choices import ChainControl, GroupStatus
from campaigns.chains.errors import CampaignInChain, GroupDeleted, GroupHasUnfinishedChains, GroupNameTaken
from campaigns.chains.models import CampaignGroup
from campaigns.chains.node_models import ChainNode
from campaigns.chains.nodes import node_rows_ensure
from campaigns.chains.text import clean_name, name_key, search_text
from campaigns.chains.tree import FINISHED_STATUSES, INDEPENDENT
from campaigns.platform.errors import NotFound, StaleRevision, ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, get_scoped, scoped
from campaigns.platform.text import text_check


def _max_add() -> int:
    return settings.CHAINS_MAX_ADD_IDS


def _validate(name: str | None, description: str | None) -> tuple[str | None, str | None]:
    text_check(names={"name": name}, texts={"description": description})
    errors: dict[str, list[str]] = {}
    if name is not None:
        name = clean_name(name)
        if not 1 <= len(name) <= 255:
            errors["name"] = ["نام گروه باید ۱ تا ۲۵۵ نویسه باشد."]
    if description is not None:
        description = description.strip()
        if len(description) > 500:
            errors["description"] = ["توضیحات حداکثر ۵۰۰ نویسه است."]
    if errors:
        raise ValidationFailed(details=errors)
    return name, description


def _name_taken(actor: Actor, key: str, exclude_id: int | None = None) -> bool:
    qs = scoped(CampaignGroup, actor.workspace).filter(status=GroupStatus.ACTIVE, name_key=key)
    if exclude_id:
        qs = qs.exclude(pk=exclude_id)
    return qs.exists()


def active_group(actor: Actor, group_id) -> CampaignGroup:
    return get_scoped(
        CampaignGroup,
        actor.workspace,
        group_id,
        queryset=scoped(CampaignGroup, actor.workspace).filter(status=GroupStatus.ACTIVE),
    )


def group_create(*, actor: Actor, name: str, description: str = "") -> CampaignGroup:
    actor.require(Perm.MANAGE_CAMPAIGNS)
    name, description = _validate(name, description or "")
    key = name_key(name)
    if _name_taken(actor, key):
        raise GroupNameTaken(details={"name": ["این نام برای گروه فعال دیگری استفاده شده است."]})
    try:
        with transaction.atomic():
            return CampaignGroup.objects.create(
                workspace=actor.workspace,
                name=name,
                name_key=key,
                name_search=search_text(name),
                description=description,
                created_by=actor.user,
                updated_by=actor.user,
            )
    except IntegrityError:  # a concurrent create won the partial unique index
        raise GroupNameTaken(details={"name": ["این نام برای گروه فعال دیگری استفاده شده است."]}) from None


def bump_group(*, workspace, group_id: int, expected_revision: int | None = None, actor_user=None) -> None:
    """Conditional revision bump of an ACTIVE group (takes its row lock). Raises GroupDeleted / StaleRevision."""
    qs = CampaignGroup.objects.filter(pk=group_id, workspace=workspace, status=GroupStatus.ACTIVE)
    if expected_revision is not None:
        qs = qs.filter(revision=expected_revision)
    values = {"revision": F("revision") + 1, "updated_at": timezone.now()}
    if actor_user is not None:
        values["updated_by"] = actor_user
    if qs.update(**values) == 1:
        return
    current = CampaignGroup.objects.filter(pk=group_id, workspace=workspace).first()
    if current is None:
        raise NotFound()
    if current.status != GroupStatus.ACTIVE:
        raise GroupDeleted()
    raise StaleRevision(details={"current_revision": current.revision})


def group_update(
    *, actor: Actor, group_id: int, expected_revision: int, name: str | None = None, description: str | None = None
) -> CampaignGroup:
    actor.require(Perm.MANAGE_CAMPAIGNS)
    group = active_group(actor, group_id)
    name, description = _validate(name, description)
    values: dict = {"revision": F("revision") + 1, "updated_at": timezone.now(), "updated_by": actor.user}
    if name is not None:
        key = name_key(name)
        if _name_taken(actor, key, exclude_id=group.id):
            raise GroupNameTaken(details={"name": ["این نام برای گروه فعال دیگری استفاده شده است."]})
        values.update(name=name, name_key=key, name_search=search_text(name))
    if description is not None:
        values["description"] = description
    try:
        with transaction.atomic():
            updated = CampaignGroup.objects.filter(
                pk=group.id, workspace=actor.workspace, status=GroupStatus.ACTIVE, revision=expected_revision
            ).update(**values)
    except IntegrityError:
        raise GroupNameTaken(details={"name": ["این نام برای گروه فعال دیگری استفاده شده است."]}) from None
    if updated != 1:
        group.refresh_from_db()
        if group.status != GroupStatus.ACTIVE:
            raise GroupDeleted()
        raise StaleRevision(details={"current_revision": group.revision})
    group.refresh_from_db()
    return group


def unfinished_chain_roots(*, workspace, group_id: int) -> list[ChainNode]:
    """Chain roots of the group whose chain is not finished (any node not completed/cancelled)."""
    open_roots = (
        scoped(ChainNode, workspace)
        .filter(group_id=group_id, root__isnull=False)
        .exclude(status__in=FINISHED_STATUSES)
        .values("root_id")
    )
    return list(
        scoped(ChainNode, workspace)
        .filter(pk__in=open_roots)
        .filter(~Q(chain_control=ChainControl.STOPPED))
        .order_by("id")
    )


def group_delete(*, actor: Actor, group_id: int, expected_revision: int) -> None:
    """Soft delete. Refused while an unfinished chain is in the group; independent campaigns are detached."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    active_group(actor, group_id)
    with transaction.atomic():
        group = CampaignGroup.objects.select_for_update().get(pk=group_id, workspace=actor.workspace)
        if group.status != GroupStatus.ACTIVE:
            raise GroupDeleted()
        if group.revision != expected_revision:
            raise StaleRevision(details={"current_revision": group.revision})
        blocking = unfinished_chain_roots(workspace=actor.workspace, group_id=group.id)
        if blocking:
            raise GroupHasUnfinishedChains(
                details={
                    "blocking_chains": [
                        {"root_campaign_id": c.id, "name": c.name, "status": c.status} for c in blocking
                    ]
                }
            )
        CampaignGroup.objects.filter(pk=group.id).update(
            status=GroupStatus.DELETED, revision=F("revision") + 1, updated_at=timezone.now(), updated_by=actor.user
        )
        # Independent campaigns leave the group; finished chains keep group/parent/root for history.
        ChainNode.objects.filter(workspace=actor.workspace, group_id=group.id, root__isnull=True).update(
            group=None, updated_at=timezone.now()
        )


@dataclass
class AddResult:
    added_ids: list[int] = field(default_factory=list)
    rejected_items: list[dict] = field(default_factory=list)
    revision: int = 0


_REJECT_MESSAGES = {
    "NOT_FOUND": "کمپین پیدا نشد.",
    "ALREADY_IN_GROUP": "کمپین از قبل در همین گروه است.",
    "IN_OTHER_GROUP": "کمپین در گروه دیگری است؛ ابتدا آن را جابه‌جا کنید.",
    "IN_CHAIN": "کمپین عضو یک زنجیره است.",
    "CHANGED_CONCURRENTLY": "کمپین در این فاصله تغییر کرد.",
}
REJECT_REASONS = tuple(_REJECT_MESSAGES)  # why a campaign was not added to a group (the API's enum)


def _reject(campaign_id: int, reason: str) -> dict:
    return {"campaign_id": campaign_id, "reason": reason, "message": _REJECT_MESSAGES[reason]}


def group_add_campaigns(
    *, actor: Actor, group_id: int, campaign_ids: list[int], expected_revision: int | None = None
) -> AddResult:
    """Add independent campaigns; per-id outcome, one refused id never undoes the others."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    active_group(actor, group_id)
    ids = list(dict.fromkeys(int(i) for i in campaign_ids))
    if not ids:
        raise ValidationFailed.field("campaign_ids", "دست‌کم یک کمپین لازم است.")
    if len(ids) > _max_add():
        raise ValidationFailed.field("campaign_ids", f"حداکثر {_max_add()} کمپین در هر درخواست.")
    result = AddResult()
    with transaction.atomic():
        bump_group(
            workspace=actor.workspace, group_id=group_id, expected_revision=expected_revision, actor_user=actor.user
        )
        node_rows_ensure(workspace=actor.workspace, campaign_ids=ids)  # a journey/SMS/browser campaign's first
        found = {c.id: c for c in scoped(ChainNode, actor.workspace).filter(pk__in=ids)}
        for campaign_id in ids:
            campaign = found.get(campaign_id)
            if campaign is None:
                result.rejected_items.append(_reject(campaign_id, "NOT_FOUND"))
                continue
            if campaign.root_id is not None or campaign.parent_id is not None:
                result.rejected_items.append(_reject(campaign_id, "IN_CHAIN"))
                continue
            if campaign.group_id == group_id:
                result.rejected_items.append(_reject(campaign_id, "ALREADY_IN_GROUP"))
                continue
            if campaign.group_id is not None:
                result.rejected_items.append(_reject(campaign_id, "IN_OTHER_GROUP"))
                continue
            updated = ChainNode.objects.filter(
                INDEPENDENT, pk=campaign_id, workspace=actor.workspace, deleted_at__isnull=True
            ).update(group_id=group_id, updated_at=timezone.now())
            if updated:
                result.added_ids.append(campaign_id)
            else:
                result.rejected_items.append(_reject(campaign_id, "CHANGED_CONCURRENTLY"))
        if not result.added_ids:
            transaction.set_rollback(True)  # nothing changed: leave the revision alone
    result.revision = CampaignGroup.objects.get(pk=group_id).revision
    return result


def _independent_member(actor: Actor, group_id: int, campaign_id: int) -> ChainNode:
    campaign = get_scoped(
        ChainNode, actor.workspace, campaign_id, queryset=scoped(ChainNode, actor.workspace).filter(group_id=group_id)
    )
    if campaign.root_id is not None or campaign.parent_id is not None:
        raise CampaignInChain()
    return campaign


def group_remove_campaign(*, actor: Actor, group_id: int, campaign_id: int, expected_revision: int) -> CampaignGroup:
    """Take an independent campaign out of the group; its status/schedule/runs stay as they are."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    active_group(actor, group_id)
    _independent_member(actor, group_id, campaign_id)
    with transaction.atomic():
        bump_group(
            workspace=actor.workspace, group_id=group_id, expected_revision=expected_revision, actor_user=actor.user
        )
        _regroup(campaign_id, group_id, None)
    return CampaignGroup.objects.get(pk=group_id)


def group_move_campaign(
    *,
    actor: Actor,
    group_id: int,
    campaign_id: int,
    to_group_id: int,
    expected_revision: int,
    expected_target_revision: int | None = None,
) -> CampaignGroup:
    """Move an independent campaign to another group: one transaction, both groups ACTIVE, both bumped."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    active_group(actor, group_id)
    if to_group_id == group_id:
        raise ValidationFailed.field("to_group_id", "گروه مقصد همان گروه فعلی است.")
    try:
        active_group(actor, to_group_id)
    except NotFound:
        raise ValidationFailed.field("to_group_id", "گروه مقصد پیدا نشد.") from None
    _independent_member(actor, group_id, campaign_id)
    expected = {group_id: expected_revision, to_group_id: expected_target_revision}
    with transaction.atomic():
        for gid in sorted(expected):  # fixed lock order: no deadlock between opposite moves
            bump_group(workspace=actor.workspace, group_id=gid, expected_revision=expected[gid], actor_user=actor.user)
        _regroup(campaign_id, group_id, to_group_id)
    return CampaignGroup.objects.get(pk=to_group_id)


def _regroup(campaign_id: int, group_id: int, to_group_id: int | None) -> None:
    """An independent member of ``group_id`` leaves it for ``to_group_id`` (None: no group) by a conditional
    UPDATE: a campaign that joined a chain meanwhile is refused (409 ``CAMPAIGN_IN_CHAIN``)."""
    updated = ChainNode.objects.filter(
        pk=campaign_id, group_id=group_id, root__isnull=True, parent__isnull=True
    ).update(group_id=to_group_id, updated_at=timezone.now())
    if updated != 1:
        raise CampaignInChain()
