"""Target import: every row gets an outcome (created/updated/duplicate/invalid).

The file is stored with the import row and processed by a Celery task in
batches. Each batch runs in one transaction holding the import's row lock and
advances ``processed_rows``, so a task delivered twice or restarted after a
crash continues where the last committed batch ended; each data row is
processed inside its own savepoint so a bad row never loses the good ones.
"""

from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from ..choices import ImportOutcome, ImportStatus, TargetStatus
from ..errors import ValidationFailed
from ..models import Membership, Target, TargetImport, TargetImportRow, TargetList
from ..permissions import Perm
from ..phones import ContactError, TargetContact, display_phone
from ..tables import MAX_BYTES, SUPPORTED, map_header, read_rows
from ..tenancy import Actor, get_scoped, scoped

BATCH_SIZE = 200
_STATUS_BY_LABEL = {label: value for value, label in TargetStatus.choices} | {v: v for v in TargetStatus.values}


def target_import_start(
    *, actor: Actor, file_name: str, content: bytes, target_list_id: int | None = None, update_existing: bool = True
) -> TargetImport:
    """Validate the file's shape, store it and queue the background import."""
    from ..tasks import target_import_process

    actor.require(Perm.MANAGE_TARGETS)
    if not file_name.lower().endswith(SUPPORTED):
        raise ValidationFailed.field("file", "فقط فایل‌های .xlsx و .csv پذیرفته می‌شوند.")
    if len(content) > MAX_BYTES:
        raise ValidationFailed.field("file", "حجم فایل بیش از ۱۰ مگابایت است.")
    try:
        header, rows = read_rows(file_name, content)
        total = sum(1 for _ in rows)
    except Exception:  # a corrupt workbook/CSV is bad input, not a server error
        raise ValidationFailed.field("file", "فایل خوانده نشد؛ آیا فایل اکسل یا CSV سالم است؟") from None
    if "phone" not in {map_header(h) for h in header}:
        raise ValidationFailed.field("file", "ستون شماره تلفن (مثلاً «موبایل»، «تلفن» یا phone) پیدا نشد.")
    target_list = get_scoped(TargetList, actor.workspace, target_list_id) if target_list_id else None
    with transaction.atomic():
        target_import = TargetImport.objects.create(
            workspace=actor.workspace,
            created_by=actor.user,
            file_name=file_name[:255],
            content=content,
            target_list=target_list,
            update_existing=update_existing,
            total_rows=total,
        )
        target_import_process.delay_on_commit(target_import.id)
    return target_import


def target_import_process(*, import_id: int) -> TargetImport:
    """Process the remaining batches of one import (safe to run twice)."""
    while True:
        with transaction.atomic():
            target_import = TargetImport.objects.select_for_update().get(pk=import_id)
            if target_import.status in (ImportStatus.COMPLETED, ImportStatus.FAILED):
                return target_import
            done = _process_batch(target_import)
        if done:
            return TargetImport.objects.get(pk=import_id)


def _process_batch(target_import: TargetImport) -> bool:
    """One batch under the import's row lock. Returns True when finished."""
    try:
        header, rows = read_rows(target_import.file_name, bytes(target_import.content or b""))
    except Exception:
        _finish(target_import, status=ImportStatus.FAILED, error="فایل خوانده نشد.")
        return True
    columns = [map_header(h) for h in header]
    ctx = _RowContext(target_import, header=header, columns=columns)
    start = target_import.processed_rows
    counts = {o: 0 for o in ImportOutcome.values}
    processed = 0
    for index, (line, cells) in enumerate(rows):
        if index < start:
            continue
        if processed >= BATCH_SIZE:
            break
        outcome = ctx.process(line, cells)
        counts[outcome] += 1
        processed += 1
    TargetImport.objects.filter(pk=target_import.pk).update(
        status=ImportStatus.PROCESSING,
        processed_rows=F("processed_rows") + processed,
        created_count=F("created_count") + counts[ImportOutcome.CREATED],
        updated_count=F("updated_count") + counts[ImportOutcome.UPDATED],
        duplicate_count=F("duplicate_count") + counts[ImportOutcome.DUPLICATE],
        invalid_count=F("invalid_count") + counts[ImportOutcome.INVALID],
        updated_at=timezone.now(),
    )
    if processed < BATCH_SIZE:
        target_import.refresh_from_db()
        _finish(target_import, status=ImportStatus.COMPLETED)
        return True
    return False


def _finish(target_import: TargetImport, *, status: str, error: str = "") -> None:
    TargetImport.objects.filter(pk=target_import.pk).update(
        status=status, error=error, content=None, finished_at=timezone.now(), updated_at=timezone.now()
    )


class _RowContext:
    """Turns one data row into a target write plus its report row."""

    def __init__(self, target_import: TargetImport, *, header: list[str], columns: list[str | None]) -> None:
        self.imp = target_import
        self.workspace = target_import.workspace
        self.header = header
        self.columns = columns
        membership = Membership.objects.filter(workspace=self.workspace, user=target_import.created_by).first()
        self.force_owner = target_import.created_by if membership and membership.has(Perm.OWN_TARGETS_ONLY) else None

    def process(self, line: int, cells: list[str]) -> str:
        try:
            with transaction.atomic():
                outcome, reason, target = self._apply(cells)
        except IntegrityError:
            outcome, reason, target = ImportOutcome.DUPLICATE, "همزمان با همین شماره ثبت شد.", None
        except (ValueError, TypeError) as exc:
            outcome, reason, target = ImportOutcome.INVALID, str(exc)[:300], None
        TargetImportRow.objects.create(
            workspace=self.workspace,
            target_import=self.imp,
            row_number=line,
            outcome=outcome,
            reason=reason[:300],
            target=target,
        )
        return outcome

    def _fields(self, cells: list[str]) -> tuple[dict, list[str], dict]:
        fields: dict = {}
        phones: list[str] = []
        attributes: dict = {}
        for i, value in enumerate(cells):
            column = self.columns[i] if i < len(self.columns) else None
            if not value:
                continue
            if column == "ignore":
                continue
            if column == "phone":
                phones.append(value)
            elif column is None:
                key = str(self.header[i]).strip() if i < len(self.header) and self.header[i] else f"column_{i + 1}"
                attributes[key] = value
            else:
                fields[column] = value
        return fields, phones, attributes

    def _apply(self, cells: list[str]) -> tuple[str, str, Target | None]:
        fields, phones, attributes = self._fields(cells)
        try:
            contact, warnings = TargetContact.from_cells(phones)
        except ContactError as exc:
            return ImportOutcome.INVALID, "؛ ".join(m for ms in exc.errors.values() for m in ms), None
        if "priority" in fields:
            try:
                fields["priority"] = int(str(fields["priority"]).strip())
            except ValueError:
                warnings.append(f"اولویت «{fields.pop('priority')}» عدد نیست و نادیده گرفته شد.")
        if "status" in fields:
            status = _STATUS_BY_LABEL.get(str(fields["status"]).strip())
            if status is None:
                warnings.append(f"وضعیت «{fields.pop('status')}» شناخته نشد.")
            else:
                fields["status"] = status
        if not fields.get("name"):
            full = " ".join(x for x in (fields.get("first_name"), fields.get("last_name")) if x)
            fields["name"] = full or display_phone(contact.mobile or contact.landline)
        matches = self._matches(contact)
        if len(matches) > 1:
            names = "، ".join(t.name for t in matches)
            return ImportOutcome.INVALID, f"موبایل و تلفن ثابت این ردیف به دو مخاطب متفاوت تعلق دارند ({names}).", None
        list_ids = self._list_ids(fields.pop("lists", ""), warnings)
        note = "؛ ".join(warnings)
        if matches:
            return self._update(matches[0], contact, fields, attributes, note, list_ids)
        target = Target.objects.create(
            workspace=self.workspace,
            mobile=contact.mobile,
            landline=contact.landline,
            owner=self.force_owner or self.imp.created_by,
            attributes=attributes,
            **fields,
        )
        self._add_to_lists(target, list_ids)
        return ImportOutcome.CREATED, note, target

    def _matches(self, contact: TargetContact) -> list[Target]:
        found: dict[int, Target] = {}
        for field in ("mobile", "landline"):
            value = getattr(contact, field)
            if value:
                for t in scoped(Target, self.workspace).filter(**{field: value}):
                    found[t.id] = t
        return list(found.values())

    def _list_ids(self, cell: str, warnings: list[str]) -> list[int]:
        """Lists named in a "lists" column (existing lists only; unknown names are reported)."""
        names = [n.strip() for n in str(cell).replace("،", ",").split(",") if n.strip()]
        if not names:
            return []
        found = dict(scoped(TargetList, self.workspace).filter(name__in=names).values_list("name", "id"))
        warnings += [f"فهرست «{n}» وجود ندارد." for n in names if n not in found]
        return list(found.values())

    def _update(self, target, contact, fields, attributes, note, list_ids) -> tuple[str, str, Target | None]:
        earlier = (
            TargetImportRow.objects.filter(
                target_import=self.imp,
                target=target,
                outcome__in=[ImportOutcome.CREATED, ImportOutcome.UPDATED],
            )
            .order_by("row_number")
            .first()
        )
        if earlier is not None:
            return ImportOutcome.DUPLICATE, f"تکرار ردیف {earlier.row_number} همین فایل.", target
        if self.force_owner and target.owner_id != self.force_owner.id:
            return ImportOutcome.DUPLICATE, "این شماره متعلق به مخاطب کاربر دیگری است.", None
        if not self.imp.update_existing:
            return ImportOutcome.DUPLICATE, f"مخاطب «{target.name}» از قبل وجود دارد.", target
        for key, value in fields.items():
            setattr(target, key, value)
        target.mobile = contact.mobile or target.mobile
        target.landline = contact.landline or target.landline
        target.attributes = {**target.attributes, **attributes}
        target.save()
        self._add_to_lists(target, list_ids)
        return ImportOutcome.UPDATED, note, target

    def _add_to_lists(self, target: Target, list_ids: list[int]) -> None:
        ids = set(list_ids) | ({self.imp.target_list_id} if self.imp.target_list_id else set())
        if ids:
            target.lists.add(*ids)


def target_imports_resume(*, stale_after_seconds: int = 600) -> list[int]:
    """Re-queue imports whose task was lost (no progress for a while)."""
    from ..tasks import target_import_process as task

    cutoff = timezone.now() - timedelta(seconds=stale_after_seconds)
    ids = list(
        TargetImport.objects.filter(
            status__in=[ImportStatus.PENDING, ImportStatus.PROCESSING], updated_at__lt=cutoff
        ).values_list("id", flat=True)[:50]
    )
    for import_id in ids:
        TargetImport.objects.filter(pk=import_id).update(updated_at=timezone.now())
        task.delay_on_commit(import_id)
    return ids
