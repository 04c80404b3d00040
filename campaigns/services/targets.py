"""Targets and target lists: create, update, soft delete."""

from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from campaigns.choices import TargetStatus
from campaigns.errors import TargetListInUse
from campaigns.models import Membership, Target, TargetList
from campaigns.platform.errors import StaleRevision, ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.phones import ContactError, TargetContact, display_phone
from campaigns.platform.tenancy import Actor, get_scoped, scoped
from campaigns.selectors import target_list_campaigns, target_number_clashes, target_queryset
from campaigns.signals import target_soft_deleted, target_status_changed

MSG_DUPLICATE = "این شماره قبلاً برای مخاطب «{name}» ثبت شده است."
MSG_NUMBER_TAKEN = "این شماره قبلاً برای مخاطب دیگری ثبت شده است."
EDITABLE = ("name", "first_name", "last_name", "status", "province", "city", "priority", "attributes")


def _duplicate_errors(*, actor: Actor, contact: TargetContact, exclude_id: int | None) -> dict[str, Any]:
    """Field errors for numbers another live target has; that target is named (and its id given in
    ``duplicate_of``) only when the actor may see it — an operator hears only that the number is taken."""
    clashes = target_number_clashes(
        workspace=actor.workspace, mobile=contact.mobile, landline=contact.landline, exclude_id=exclude_id
    )
    visible = set(
        target_queryset(actor=actor).filter(pk__in=[t.id for t in clashes.values()]).values_list("id", flat=True)
    )
    errors: dict[str, Any] = {
        field: [MSG_DUPLICATE.format(name=t.name) if t.id in visible else MSG_NUMBER_TAKEN]
        for field, t in clashes.items()
    }
    shown = {field: t.id for field, t in clashes.items() if t.id in visible}
    if shown:
        errors["duplicate_of"] = shown
    return errors


def _resolve_owner(*, actor: Actor, owner_id: int | None, current=None):
    if actor.has(Perm.OWN_TARGETS_ONLY):
        return actor.user  # an operator's targets are always their own
    if owner_id is None:
        return current
    if not Membership.objects.filter(workspace=actor.workspace, user_id=owner_id).exists():
        raise ValidationFailed.field("owner", "مسئول باید عضو همین فضای کاری باشد.")
    return get_user_model().objects.get(pk=owner_id)


def _resolve_lists(*, actor: Actor, list_ids) -> list[TargetList]:
    ids = sorted({int(i) for i in list_ids})
    lists = list(scoped(TargetList, actor.workspace).filter(pk__in=ids))
    if len(lists) != len(ids):
        missing = sorted(set(ids) - {tl.id for tl in lists})
        raise ValidationFailed.field("list_ids", f"فهرست‌های {missing} پیدا نشدند.")
    return lists


def _validate_fields(fields: dict[str, Any]) -> None:
    if "name" in fields and not str(fields["name"] or "").strip():
        raise ValidationFailed.field("name", "نام لازم است.")
    if "status" in fields and fields["status"] not in TargetStatus.values:
        raise ValidationFailed.field("status", "وضعیت نامعتبر است.")
    if "attributes" in fields and not isinstance(fields["attributes"], dict):
        raise ValidationFailed.field("attributes", "ویژگی‌ها باید یک شیء JSON باشد.")


def _save_unique(target: Target, *, actor: Actor, contact: TargetContact) -> None:
    """Save; a concurrent insert of the same number becomes the duplicate error."""
    try:
        with transaction.atomic():
            target.save()
    except IntegrityError:
        errors = _duplicate_errors(actor=actor, contact=contact, exclude_id=target.pk)
        raise ValidationFailed(details=errors or {"non_field_errors": ["این شماره تکراری است."]}) from None


def target_create(
    *,
    actor: Actor,
    name: str,
    mobile: str | None = None,
    landline: str | None = None,
    first_name: str = "",
    last_name: str = "",
    status: str = TargetStatus.NEW,
    owner_id: int | None = None,
    province: str = "",
    city: str = "",
    priority: int = 0,
    list_ids: list[int] | tuple = (),
    attributes: dict | None = None,
) -> Target:
    actor.require(Perm.MANAGE_TARGETS)
    fields = dict(
        name=name,
        first_name=first_name,
        last_name=last_name,
        status=status,
        province=province,
        city=city,
        priority=priority,
        attributes=attributes or {},
    )
    _validate_fields(fields)
    try:
        contact = TargetContact.from_fields(mobile=mobile, landline=landline)
    except ContactError as exc:
        raise ValidationFailed(details=exc.errors) from None
    errors = _duplicate_errors(actor=actor, contact=contact, exclude_id=None)
    if errors:
        raise ValidationFailed(details=errors)
    lists = _resolve_lists(actor=actor, list_ids=list_ids)
    owner = _resolve_owner(actor=actor, owner_id=owner_id)
    fields["name"] = fields["name"].strip()
    target = Target(workspace=actor.workspace, mobile=contact.mobile, landline=contact.landline, owner=owner, **fields)
    with transaction.atomic():
        _save_unique(target, actor=actor, contact=contact)
        if lists:
            target.lists.set(lists)
    return target


def target_update(
    *, actor: Actor, target_id: int, data: dict[str, Any], expected_revision: int | None = None
) -> Target:
    """Partial update: only keys present in ``data`` change. With ``expected_revision`` (the API's
    ``If-Match``) the row is locked and a target changed since that revision is a 409 ``STALE_REVISION``."""
    actor.require(Perm.MANAGE_TARGETS)
    target = get_scoped(Target, actor.workspace, target_id, queryset=target_queryset(actor=actor))
    fields = {k: v for k, v in data.items() if k in EDITABLE}
    _validate_fields(fields)
    contact = TargetContact(mobile=target.mobile, landline=target.landline)
    if "mobile" in data or "landline" in data:
        try:
            contact = TargetContact.from_fields(
                mobile=data.get("mobile", display_phone(target.mobile)),
                landline=data.get("landline", display_phone(target.landline)),
            )
        except ContactError as exc:
            raise ValidationFailed(details=exc.errors) from None
        errors = _duplicate_errors(actor=actor, contact=contact, exclude_id=target.pk)
        if errors:
            raise ValidationFailed(details=errors)
    lists = _resolve_lists(actor=actor, list_ids=data["list_ids"]) if "list_ids" in data else None
    if "owner_id" in data:
        target.owner = _resolve_owner(actor=actor, owner_id=data["owner_id"], current=target.owner)
    old_status = target.status
    for key, value in fields.items():
        setattr(target, key, value.strip() if key == "name" else value)
    target.mobile, target.landline = contact.mobile, contact.landline
    with transaction.atomic():
        if expected_revision is not None:
            current = Target.objects.select_for_update().filter(pk=target.pk).values_list("revision", flat=True).first()
            if current != expected_revision:
                raise StaleRevision(details={"revision": current})
            target.revision = expected_revision
        _save_unique(target, actor=actor, contact=contact)
        if lists is not None:
            target.lists.set(lists)
        if target.status != old_status:
            # A goal reached is recorded now (chains: ``campaigns.chains.runs.receivers``).
            target_status_changed.send(sender=Target, target=target, status=target.status)
    return target


def target_delete(*, actor: Actor, target_id: int) -> None:
    """Soft delete; the number becomes free for a new target."""
    actor.require(Perm.MANAGE_TARGETS)
    target = get_scoped(Target, actor.workspace, target_id, queryset=target_queryset(actor=actor))
    with transaction.atomic():
        updated = Target.objects.filter(pk=target.pk, deleted_at__isnull=True).update(deleted_at=timezone.now())
        if updated:
            target_soft_deleted.send(sender=Target, target=target, actor=actor)


def target_list_create(*, actor: Actor, name: str, description: str = "") -> TargetList:
    actor.require(Perm.MANAGE_TARGETS)
    name = (name or "").strip()
    if not name:
        raise ValidationFailed.field("name", "نام فهرست لازم است.")
    if scoped(TargetList, actor.workspace).filter(name=name).exists():
        raise ValidationFailed.field("name", "فهرستی با این نام وجود دارد.")
    try:
        with transaction.atomic():
            return TargetList.objects.create(workspace=actor.workspace, name=name, description=description)
    except IntegrityError:
        raise ValidationFailed.field("name", "فهرستی با این نام وجود دارد.") from None


def target_list_update(*, actor: Actor, list_id: int, data: dict[str, Any]) -> TargetList:
    """Rename or describe a list (campaigns build audiences on lists: the manage-campaigns level)."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    target_list = get_scoped(TargetList, actor.workspace, list_id)
    if "name" in data:
        name = (data["name"] or "").strip()
        if not name:
            raise ValidationFailed.field("name", "نام فهرست لازم است.")
        if scoped(TargetList, actor.workspace).filter(name=name).exclude(pk=list_id).exists():
            raise ValidationFailed.field("name", "فهرستی با این نام وجود دارد.")
        target_list.name = name
    if "description" in data:
        target_list.description = data["description"] or ""
    target_list.save()
    return target_list


def target_list_delete(*, actor: Actor, list_id: int) -> None:
    """Deletes the list only; its targets stay. Refused (409 naming them) while an open campaign builds its
    audience on it: deleting would silently empty that campaign."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    with transaction.atomic():
        # The row lock holds off a campaign being pointed at the list until the delete commits.
        locked = scoped(TargetList, actor.workspace).select_for_update()
        target_list = get_scoped(TargetList, actor.workspace, list_id, queryset=locked)
        users = target_list_campaigns(workspace=actor.workspace, list_id=target_list.id)
        if users:
            raise TargetListInUse.naming(users)
        target_list.delete()
