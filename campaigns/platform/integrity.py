"""Cross-workspace integrity: a row never points at another workspace's row.

Models call ``require_same_workspace(self, "field", ...)`` from ``clean()`` (admin forms and any
``full_clean()``); services call ``assert_same_workspace(...)`` before they write a relation and get
the platform's typed ``ValidationFailed`` (400 ``VALIDATION_ERROR`` in the API).
"""

from __future__ import annotations

from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import models

from campaigns.platform.errors import ValidationFailed

WORKSPACE_MODEL = "platform.Workspace"  # named, not imported: the product models import this module
MSG_OTHER_WORKSPACE = "این مورد به فضای کاری دیگری تعلق دارد."
MSG_NOT_MEMBER = "مسئول باید عضو همین فضای کاری باشد."


def workspace_id_of(obj) -> int | None:
    """The workspace a row belongs to (a Workspace is its own)."""
    if obj is None:
        return None
    return obj.pk if obj._meta.label == WORKSPACE_MODEL else getattr(obj, "workspace_id", None)


def has_workspace(model: type[models.Model]) -> bool:
    try:
        model._meta.get_field("workspace")
    except FieldDoesNotExist:
        return False
    return True


def _related_workspace_id(instance: models.Model, field: models.ForeignKey) -> int | None:
    value = getattr(instance, field.attname)
    if value is None:
        return None
    if field.is_cached(instance):
        return workspace_id_of(field.get_cached_value(instance))
    return (
        field.related_model._base_manager.filter(pk=value).values_list("workspace_id", flat=True).first()
    )  # a missing row is the database's FK error, not ours


def cross_workspace_errors(instance: models.Model, *fields: str) -> dict[str, list[str]]:
    """Field errors for every named relation whose row belongs to another workspace than ``instance``."""
    own = instance.workspace_id
    errors: dict[str, list[str]] = {}
    if own is None:
        return errors
    for name in fields:
        field = instance._meta.get_field(name)
        if not has_workspace(field.related_model):
            continue
        other = _related_workspace_id(instance, field)
        if other is not None and other != own:
            errors[name] = [MSG_OTHER_WORKSPACE]
    return errors


def subject_errors(instance: models.Model, type_field: str = "subject_type", id_field: str = "subject_id") -> dict:
    """The generic subject (a target) must belong to the instance's workspace too."""
    ct_id, subject_id = getattr(instance, f"{type_field}_id"), getattr(instance, id_field)
    if ct_id is None or subject_id is None or instance.workspace_id is None:
        return {}
    from django.contrib.contenttypes.models import ContentType

    model = ContentType.objects.get_for_id(ct_id).model_class()
    if model is None or not has_workspace(model):
        return {}
    other = model._base_manager.filter(pk=subject_id).values_list("workspace_id", flat=True).first()
    return {id_field: [MSG_OTHER_WORKSPACE]} if other is not None and other != instance.workspace_id else {}


def require_same_workspace(instance: models.Model, *fields: str, extra: dict | None = None) -> None:
    """For ``Model.clean()``: raise ``ValidationError`` naming each relation that crosses workspaces."""
    errors = cross_workspace_errors(instance, *fields)
    for key, messages in (extra or {}).items():
        errors.setdefault(key, []).extend(messages)
    if errors:
        raise ValidationError(errors)


def assert_same_workspace(workspace, **related) -> None:
    """For services: every given row (or ``None``) belongs to ``workspace``, else ``ValidationFailed``."""
    own = workspace_id_of(workspace) if not isinstance(workspace, int) else workspace
    errors = {
        name: [MSG_OTHER_WORKSPACE] for name, obj in related.items() if obj is not None and workspace_id_of(obj) != own
    }
    if errors:
        raise ValidationFailed(details=errors)
