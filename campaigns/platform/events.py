"""One shape for the append-only history of a workspace (Saleor's ``events.py``).

``WorkspaceEvent`` is the abstract base of the audit tables: the workspace, a ``type`` out of the table's
own ``TextChoices``, the person who caused it (``actor``, empty for the system), when it was written
(``created_at``) and a JSON payload (``data``). Each app's ``events.py`` has one function per event type
and writes through ``event_write`` (or ``event_build`` + ``events_write_bulk``), which refuses a type the
table does not declare. Rows are never updated or deleted one by one (a workspace's deletion cascades).

Tables of this shape: ``CampaignEvent`` (``campaigns/events.py``), ``SmsChannelEvent`` (``sms/events.py``),
``BrowserEvent`` (``workers/events.py``). ``tests/platform/test_event_writers.py`` checks that every
concrete subclass declares its type choices and is written only by its app's ``events.py``.
"""

from collections.abc import Iterable
from typing import Any, TypeVar

from django.conf import settings
from django.db import models

from campaigns.platform.jalali import fa_digits


class EventImmutable(RuntimeError):
    """An event row was to be changed or deleted."""


class WorkspaceEvent(models.Model):
    """Append-only history row of a workspace; concrete tables redeclare ``type`` with their choices."""

    workspace = models.ForeignKey("platform.Workspace", on_delete=models.CASCADE, related_name="+")
    type = models.CharField("نوع", max_length=40)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField("زمان", auto_now_add=True)

    # Relations that must belong to the row's workspace (checked by ``clean``).
    WORKSPACE_RELATIONS: tuple[str, ...] = ()

    class Meta:
        abstract = True
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        label = dict(self._meta.get_field("type").choices or ()).get(self.type, self.type)
        return f"{self._meta.verbose_name} {fa_digits(self.pk)}: {label}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise EventImmutable(f"{type(self).__name__} rows are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise EventImmutable(f"{type(self).__name__} rows are append-only")

    def clean(self) -> None:
        super().clean()
        if self.WORKSPACE_RELATIONS:
            from campaigns.platform.integrity import require_same_workspace

            require_same_workspace(self, *self.WORKSPACE_RELATIONS)

    @classmethod
    def event_types(cls) -> frozenset[str]:
        """The values the table's ``type`` field declares."""
        return frozenset(value for value, _ in cls._meta.get_field("type").choices or ())


E = TypeVar("E", bound=WorkspaceEvent)


def event_build(
    model: type[E], *, workspace_id: int, type: str, actor=None, data: dict[str, Any] | None = None, **fields: Any
) -> E:
    """An unsaved row (for a bulk insert); a type the table does not declare is a programming error."""
    if type not in model.event_types():
        raise ValueError(f"{model.__name__} has no event type {type!r}")
    return model(workspace_id=workspace_id, type=type, actor=actor, data=data or {}, **fields)


def event_write(model: type[E], **kwargs: Any) -> E:
    """Insert one row (``event_build``'s arguments)."""
    event = event_build(model, **kwargs)
    event.save(force_insert=True)
    return event


def events_write_bulk(model: type[E], events: Iterable[E]) -> list[E]:
    """Insert rows built by ``event_build`` in one statement."""
    return model.objects.bulk_create(list(events))


def event_write_unless_repeated(model: type[E], *, scope: dict[str, Any], **kwargs: Any) -> E | None:
    """A system notice written once per change, not once per job run: nothing is written when the latest row
    matching ``scope`` (e.g. ``{"campaign_id": 7}``) has the same type and payload."""
    last = model.objects.filter(**scope).order_by("-id").values("type", "data").first()
    if last and last["type"] == kwargs["type"] and last["data"] == (kwargs.get("data") or {}):
        return None
    return event_write(model, **kwargs)
