"""A batch's subjects read as column values: no model instance per subject on the hot path.

The batched job reads every subject of its batch in one query. What the step loop, guards, conditions and
templates read of a subject — its columns (``mobile``, ``first_name``, ``status``, ``attributes``,
``deleted_at``, ``owner_id`` …) — comes from that row. Anything else (a relation, a property, a method) loads the
model instance once, so a reader gets what the per-row path would have given it; a node that needs the instance
itself (to store a relation to it) asks ``model_instance``.
"""

from __future__ import annotations

from typing import Any

from django.db import models

from campaigns.platform.bulk import ids_match, values_rows


class SubjectRow:
    __slots__ = ("_instance", "_model", "_values")

    def __init__(self, model: type[models.Model], values: dict[str, Any]) -> None:
        self._model, self._values, self._instance = model, values, None

    def __getattr__(self, name: str) -> Any:  # only called for what is not a slot or a class attribute
        if name.startswith("_"):
            raise AttributeError(name)
        values = self._values
        if name in values:
            return values[name]
        return getattr(self.instance, name)

    def __repr__(self) -> str:
        return f"<SubjectRow {self._model.__name__} {self.pk}>"

    @property
    def pk(self) -> Any:
        return self._values[self._model._meta.pk.attname]

    @property
    def instance(self) -> models.Model | None:
        """The model instance (loaded on first use; None if the row is gone)."""
        if self._instance is None:
            self._instance = self._model._default_manager.filter(pk=self.pk).first()
        return self._instance


def subject_rows(model: type[models.Model], ids: list[int]) -> dict[Any, SubjectRow]:
    """The rows of ``ids`` (one query, no ordering), by primary key."""
    names = [f.attname for f in model._meta.concrete_fields]
    pk_index = names.index(model._meta.pk.attname)
    found = model._default_manager.filter(ids_match(model._meta.pk.attname, ids)).order_by()
    rows = values_rows(found.values_list(*names))
    return {row[pk_index]: SubjectRow(model, dict(zip(names, row, strict=True))) for row in rows}


def model_instance(subject: Any) -> Any:
    """The model instance behind a subject (itself when it already is one)."""
    return subject.instance if isinstance(subject, SubjectRow) else subject
