"""Bulk target upsert (``POST /api/v1/targets/bulk``): up to 10,000 rows per call, one outcome per row.

Numbers are read as the import reads them (``TargetContact.from_cells``: each number classified by what it
is, whatever field it came in), and a row is matched to a live target by its mobile or landline, so the
call is idempotent by phone: sending it again creates nothing and reports ``unchanged``. Outcomes:
``created``, ``updated`` (the given fields overwritten, attributes merged, lists added), ``unchanged``,
``duplicate`` (its number repeats an earlier row of the call, or — for an operator — belongs to another
member's target) and ``invalid`` (field errors, no valid number, or a mobile and a landline of two
different targets). Set-based: one query finds every match, one statement per 1,000 rows inserts the new
targets (PostgreSQL: ``INSERT … SELECT FROM unnest``) and one updates the changed ones, each updated row's
``revision`` up by one. A concurrent insert of the same number makes the whole call run again once, when
those rows are now matches.
"""

import json
from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from campaigns.models import Target, TargetList
from campaigns.models.core import target_search_text
from campaigns.platform.bulk import bulk_insert, texts_match
from campaigns.platform.database import is_postgresql
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.phones import ContactError, TargetContact, display_phone
from campaigns.platform.tenancy import Actor, scoped
from campaigns.signals import target_status_changed

MAX_ROWS = 10_000
BATCH = 1000  # rows per INSERT/UPDATE statement (PostgreSQL takes at most 65,535 parameters in one)
FIELDS = ("name", "first_name", "last_name", "status", "province", "city", "priority")
CREATED, UPDATED, UNCHANGED, DUPLICATE, INVALID = "created", "updated", "unchanged", "duplicate", "invalid"
OUTCOMES = (CREATED, UPDATED, UNCHANGED, DUPLICATE, INVALID)


@dataclass
class RowResult:
    index: int
    outcome: str
    id: int | None = None
    errors: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Row:
    index: int
    data: dict
    contact: TargetContact


def target_bulk_upsert(
    *, actor: Actor, rows: list[dict | ValidationFailed], list_ids: list[int] = ()
) -> list[RowResult]:
    """Create or update one target per row (a ``ValidationFailed`` in ``rows``: that row's field errors)."""
    actor.require(Perm.MANAGE_TARGETS)
    if len(rows) > MAX_ROWS:
        raise ValidationFailed.field("rows", f"at most {MAX_ROWS} rows per call")
    lists = _lists(actor=actor, list_ids=list_ids)
    for attempt in (1, 2):
        try:
            with transaction.atomic():
                return _upsert(actor=actor, rows=rows, lists=lists)
        except IntegrityError:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _lists(*, actor: Actor, list_ids) -> list[int]:
    ids = sorted(set(list_ids))
    found = set(scoped(TargetList, actor.workspace).filter(pk__in=ids).values_list("id", flat=True))
    if missing := sorted(set(ids) - found):
        raise ValidationFailed.field("list_ids", f"فهرست‌های {missing} پیدا نشدند.")
    return ids


def _upsert(*, actor: Actor, rows: list, lists: list[int]) -> list[RowResult]:
    results: list[RowResult] = []
    parsed: list[_Row] = []
    seen: dict[str, int] = {}
    for index, row in enumerate(rows):
        if isinstance(row, ValidationFailed):
            results.append(RowResult(index, INVALID, errors=row.details))
            continue
        try:
            contact, _ = TargetContact.from_cells([row.get("mobile"), row.get("landline")])
        except ContactError as exc:
            results.append(RowResult(index, INVALID, errors=exc.errors))
            continue
        numbers = [n for n in (contact.mobile, contact.landline) if n]
        earlier = next((seen[n] for n in numbers if n in seen), None)
        if earlier is not None:
            results.append(RowResult(index, DUPLICATE, errors={"phone": [f"تکرار ردیف {earlier} همین درخواست."]}))
            continue
        seen.update(dict.fromkeys(numbers, index))
        parsed.append(_Row(index, row, contact))
    matches = _matches(actor=actor, rows=parsed)
    own_only = actor.user.pk if actor.has(Perm.OWN_TARGETS_ONLY) else None
    new: list[tuple[_Row, dict]] = []
    changed: list[tuple[_Row, Target, str]] = []
    for row in parsed:
        found = {t.pk: t for n in (row.contact.mobile, row.contact.landline) if n and (t := matches.get(n))}
        if len(found) > 1:
            message = "موبایل و تلفن ثابت این ردیف به دو مخاطب متفاوت تعلق دارند."
            results.append(RowResult(row.index, INVALID, errors={"phone": [message]}))
        elif found:
            target = next(iter(found.values()))
            if own_only is not None and target.owner_id != own_only:
                message = "این شماره متعلق به مخاطب کاربر دیگری است."
                results.append(RowResult(row.index, DUPLICATE, errors={"phone": [message]}))
                continue
            old_status = target.status
            if _apply(target, row):
                changed.append((row, target, old_status))
                results.append(RowResult(row.index, UPDATED, target.pk))
            else:
                results.append(RowResult(row.index, UNCHANGED, target.pk))
        else:
            new.append((row, _new(actor=actor, row=row)))
    results += [RowResult(row.index, CREATED, pk) for row, pk in _insert(new)]
    if changed:
        _write_updates([t for _, t, _ in changed])
    if lists:
        ids = [r.id for r in results if r.id is not None]
        through = Target.lists.through
        through.objects.bulk_create(
            [through(target_id=t, targetlist_id=tl) for t in ids for tl in lists],
            ignore_conflicts=True,
            batch_size=BATCH,
        )
    for _, target, old_status in changed:
        if target.status != old_status:  # a goal reached is recorded (chains), as for one update
            target_status_changed.send(sender=Target, target=target, status=target.status)
    return sorted(results, key=lambda r: r.index)


UPDATED_COLUMNS = (*FIELDS, "mobile", "landline", "attributes", "search_text")


def _write_updates(targets: list[Target]) -> None:
    """The changed rows, their revision + 1. PostgreSQL: one ``UPDATE … FROM (VALUES …)`` per batch (Django's
    ``bulk_update`` builds a CASE per column and row: 40× slower at 10,000 rows); elsewhere ``bulk_update``."""
    now = timezone.now()
    for target in targets:
        target.refresh_search_text()
        target.updated_at = now
    if not is_postgresql():
        for target in targets:
            target.revision = F("revision") + 1
        Target.objects.bulk_update(targets, [*UPDATED_COLUMNS, "updated_at", "revision"], batch_size=BATCH)
        return
    table = Target._meta.db_table
    assign = ", ".join(f"{c} = v.{c}" for c in UPDATED_COLUMNS)
    columns = ", ".join(["id", *UPDATED_COLUMNS])
    row = "(" + ", ".join(["%s::bigint", *["%s"] * (len(UPDATED_COLUMNS) - 2), "%s::jsonb", "%s"]) + ")"
    with connection.cursor() as cursor:
        for start in range(0, len(targets), BATCH):
            chunk = targets[start : start + BATCH]
            params: list = []
            for t in chunk:
                params += [t.pk, *(getattr(t, c) for c in UPDATED_COLUMNS[:-2])]
                params += [json.dumps(t.attributes, ensure_ascii=False), t.search_text]
            values = ", ".join([row] * len(chunk))
            # table and columns are constants of this module; every value is a parameter
            sql = f"UPDATE {table} AS t SET {assign}, revision = t.revision + 1, updated_at = %s FROM (VALUES {values}) AS v({columns}) WHERE t.id = v.id"  # noqa: E501, S608
            cursor.execute(sql, [now, *params])


def _matches(*, actor: Actor, rows: list[_Row]) -> dict[str, Target]:
    mobiles = [r.contact.mobile for r in rows if r.contact.mobile]
    landlines = [r.contact.landline for r in rows if r.contact.landline]
    if not mobiles and not landlines:
        return {}
    found = scoped(Target, actor.workspace).filter(
        Q(texts_match("mobile", mobiles)) | Q(texts_match("landline", landlines))
    )
    by_number: dict[str, Target] = {}
    for target in found.select_for_update(of=("self",)):
        for number in (target.mobile, target.landline):
            if number:
                by_number[number] = target
    return by_number


def _apply(target: Target, row: _Row) -> bool:
    """Write the row's given fields on ``target``; True when anything changed."""
    before = (*(getattr(target, f) for f in FIELDS), target.mobile, target.landline, target.attributes)
    for name in FIELDS:
        if name in row.data:
            setattr(target, name, row.data[name])
    target.mobile = row.contact.mobile or target.mobile
    target.landline = row.contact.landline or target.landline
    if row.data.get("attributes"):
        target.attributes = {**target.attributes, **row.data["attributes"]}
    after = (*(getattr(target, f) for f in FIELDS), target.mobile, target.landline, target.attributes)
    return before != after


def _new(*, actor: Actor, row: _Row) -> dict:
    """The new target's column values (attname → value)."""
    data = {name: row.data[name] for name in FIELDS if name in row.data}
    if not data.get("name"):
        full = " ".join(x for x in (data.get("first_name"), data.get("last_name")) if x)
        data["name"] = full or display_phone(row.contact.mobile or row.contact.landline)
    phones = (row.contact.mobile, row.contact.landline)
    names = {key: data.get(key, "") for key in ("name", "first_name", "last_name")}
    return {
        **data,
        "workspace_id": actor.workspace.pk,
        "owner_id": actor.user.pk,
        "mobile": row.contact.mobile,
        "landline": row.contact.landline,
        "attributes": row.data.get("attributes") or {},
        "search_text": target_search_text(**names, phones=phones),
    }


def _insert(new: list[tuple[_Row, dict]]) -> list[tuple[_Row, int]]:
    """Insert the new targets; each row with its target's id. PostgreSQL: one ``INSERT … SELECT FROM unnest``
    per batch (``campaigns.platform.bulk.bulk_insert``), the ids matched back by the numbers (unique in the
    call); elsewhere ``bulk_create``."""
    if not is_postgresql():
        created = Target.objects.bulk_create([Target(**values) for _, values in new], batch_size=BATCH)
        return [(row, target.pk) for (row, _), target in zip(new, created, strict=True)]
    ids: dict[tuple, int] = {}
    for start in range(0, len(new), BATCH):
        chunk = [values for _, values in new[start : start + BATCH]]
        for pk, mobile, landline in bulk_insert(Target, chunk, returning=("id", "mobile", "landline")):
            ids[mobile, landline] = pk
    return [(row, ids[row.contact.mobile, row.contact.landline]) for row, _ in new]
