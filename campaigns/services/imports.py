"""Target import: every row gets an outcome (created/updated/duplicate/invalid).

The upload is checked for size before it is read and for a usable header (within
a bounded read: a header the request cannot reach is checked by the task); the
rows are counted and processed by a Celery task, which reads an .xlsx with the
streaming reader and its limits (``campaigns.tables``). One task run parses the file
once and walks it with a cursor (``processed_rows``): it skips the rows already
done and commits batches of ``BATCH_SIZE``, each in one transaction holding the
import's row lock together with the cursor, so a task delivered twice or
restarted after a crash continues where the last committed batch ended. Each
row is validated (lengths against the model, numbers) and written inside its
own savepoint, so a bad row is ``invalid`` and never loses the good ones. A run
that ends without committing progress counts as an attempt; after
``IMPORT_MAX_ATTEMPTS`` of them the import is ``failed`` instead of requeued forever.
"""

import itertools
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db import DataError, IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from campaigns.choices import ImportOutcome, ImportStatus, TargetStatus
from campaigns.models import Membership, Target, TargetImport, TargetImportRow, TargetList
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.jalali import fa_digits
from campaigns.platform.permissions import Perm
from campaigns.platform.phones import ContactError, TargetContact, display_phone
from campaigns.platform.tenancy import Actor, get_scoped, scoped
from campaigns.platform.xlsx import EXCEL_MAX_CELL_CHARS
from campaigns.services.targets import target_list_create
from campaigns.tables import SUPPORTED, FileTooLarge, map_columns, read_header, read_rows

BATCH_SIZE = 200
MAX_ATTRIBUTE_CHARS = 1000  # one custom attribute value (JSON has no column limit of its own)
_INT_RANGE = (-(2**31), 2**31 - 1)  # Target.priority is a 4-byte integer
_STATUS_BY_LABEL = {label: value for value, label in TargetStatus.choices} | {v: v for v in TargetStatus.values}
_TEXT_FIELDS = ("name", "first_name", "last_name", "province", "city")
_FINISHED = (ImportStatus.COMPLETED, ImportStatus.FAILED)


def _too_large_message(exc: FileTooLarge) -> str:
    what = str(exc)
    split = "؛ آن را به چند فایل بشکنید."
    if what == "rows":
        return f"فایل بیش از {fa_digits(settings.IMPORT_MAX_ROWS)} ردیف دارد{split}"
    if what == "columns":
        return f"فایل بیش از {fa_digits(settings.IMPORT_MAX_COLUMNS)} ستون دارد."
    if what == "cells":
        return f"فایل بیش از {fa_digits(settings.IMPORT_MAX_CELLS)} خانه دارد{split}"
    if what == "strings":
        return f"فایل بیش از {fa_digits(settings.IMPORT_MAX_STRINGS)} متن یکتا دارد{split}"
    if what == "string bytes":
        megabytes = fa_digits(settings.IMPORT_MAX_STRING_BYTES // (1024 * 1024))
        return f"متن‌های فایل روی هم بیش از {megabytes} مگابایت است{split}"
    if what == "string":
        return f"خانه‌ای از فایل بیش از {fa_digits(EXCEL_MAX_CELL_CHARS)} نویسه دارد."
    if what == "elements":
        return f"ساختار فایل بیش از {fa_digits(settings.IMPORT_MAX_XML_ELEMENTS)} جزء دارد{split}"
    if what in ("depth", "markup"):
        return "ساختار فایل اکسل نامعمول است (جزءهای بیش از حد تودرتو یا بزرگ)؛ آن را در اکسل دوباره ذخیره کنید."
    return "محتوای فایل پس از بازشدن بیش از حد بزرگ است."


PHONE_COLUMN_MESSAGE = "ستون شماره تلفن (مثلاً «موبایل»، «تلفن» یا phone) پیدا نشد."


def _has_phone_column(header: list[str]) -> bool:
    return "phone" in map_columns(header)


def _column_map(header: list[str]) -> list[list]:
    return [[cell, field] for cell, field in zip(header, map_columns(header), strict=True) if cell]


def size_message() -> str:
    """The refusal of a file over IMPORT_MAX_BYTES."""
    return f"حجم فایل بیش از {fa_digits(settings.IMPORT_MAX_BYTES // (1024 * 1024))} مگابایت است."


def target_import_check_size(*, size: int | None) -> None:
    """Refuse an upload by its declared size, before any of it is read."""
    if size is not None and size > settings.IMPORT_MAX_BYTES:
        raise ValidationFailed.field("file", size_message())


IMPORT_TASK = "campaigns.target_import_process"


def target_import_start(
    *,
    actor: Actor,
    file_name: str,
    content,
    target_list_id: int | None = None,
    update_existing: bool = True,
    new_list_name: str = "",
) -> TargetImport:
    """Validate the file's size and header, store it and queue the background import.

    ``content`` is bytes or an uploaded file; a file is measured by its ``size`` before reading
    and never read past the limit. The rows are counted by the background task, not here.
    ``new_list_name`` (when no ``target_list_id``) makes a new list for the file's targets — only once the
    file is accepted, in the import's own transaction, so a refused file leaves no empty list behind.
    """
    actor.require(Perm.MANAGE_TARGETS)
    new_list_name = (new_list_name or "").strip() if not target_list_id else ""
    if new_list_name and scoped(TargetList, actor.workspace).filter(name=new_list_name).exists():
        raise ValidationFailed.field("new_list", "فهرستی با این نام وجود دارد.")
    if not file_name.lower().endswith(SUPPORTED):
        raise ValidationFailed.field("file", "فقط فایل‌های .xlsx و .csv پذیرفته می‌شوند.")
    if not isinstance(content, bytes | bytearray):
        target_import_check_size(size=getattr(content, "size", None))
        content = content.read(settings.IMPORT_MAX_BYTES + 1)
    if len(content) > settings.IMPORT_MAX_BYTES:
        raise ValidationFailed.field("file", size_message())
    try:
        header = read_header(file_name, bytes(content))  # bounded: None when it lies too deep to tell here
    except FileTooLarge as exc:
        raise ValidationFailed.field("file", _too_large_message(exc)) from None
    except Exception:  # a corrupt workbook/CSV is bad input, not a server error
        raise ValidationFailed.field("file", "فایل خوانده نشد؛ آیا فایل اکسل یا CSV سالم است؟") from None
    if header is not None and not _has_phone_column(header):
        raise ValidationFailed.field("file", PHONE_COLUMN_MESSAGE)
    target_list = get_scoped(TargetList, actor.workspace, target_list_id) if target_list_id else None
    with transaction.atomic():
        if new_list_name:
            target_list = _new_list(actor, new_list_name)
        target_import = TargetImport.objects.create(
            workspace=actor.workspace,
            created_by=actor.user,
            file_name=file_name[:255],
            content=bytes(content),
            target_list=target_list,
            update_existing=update_existing,
            column_map=_column_map(header or []),
        )
        _queue_import(target_import.id)
    return target_import


def _new_list(actor: Actor, name: str) -> TargetList:
    try:
        return target_list_create(actor=actor, name=name)
    except ValidationFailed as exc:  # a list of that name made meanwhile
        messages = [m for problems in (exc.details or {}).values() for m in problems] or [exc.message]
        raise ValidationFailed.field("new_list", str(messages[0])) from None


def target_import_process(*, import_id: int) -> TargetImport | None:
    """Count (first run) and process the remaining rows of one import (safe to run twice)."""
    with transaction.atomic():
        target_import = TargetImport.objects.select_for_update().filter(pk=import_id).first()
        if target_import is None or target_import.status in _FINISHED:
            return target_import
        if target_import.attempts >= settings.IMPORT_MAX_ATTEMPTS:
            _fail_after_attempts(target_import)
            return TargetImport.objects.get(pk=import_id)
        TargetImport.objects.filter(pk=import_id).update(attempts=F("attempts") + 1, updated_at=timezone.now())
    try:
        _run(target_import)
    except Exception as exc:  # a crashed run (time limit included): counted, failed at the cap, else resumed
        _record_crash(import_id, exc)
        raise
    return TargetImport.objects.get(pk=import_id)


def _run(target_import: TargetImport) -> None:
    content = bytes(target_import.content or b"")
    if target_import.status == ImportStatus.PENDING or not target_import.total_rows:
        try:
            header, rows = read_rows(target_import.file_name, content)
            total = sum(1 for _ in rows)
        except FileTooLarge as exc:
            return _finish(target_import, status=ImportStatus.FAILED, error=_too_large_message(exc))
        except Exception:
            return _finish(target_import, status=ImportStatus.FAILED, error="فایل خوانده نشد.")
        if not _has_phone_column(header):  # an upload whose header was too deep to check in the request
            return _finish(target_import, status=ImportStatus.FAILED, error=PHONE_COLUMN_MESSAGE)
        TargetImport.objects.filter(pk=target_import.pk).exclude(status__in=_FINISHED).update(
            total_rows=total, status=ImportStatus.PROCESSING, updated_at=timezone.now()
        )
    header, rows = read_rows(target_import.file_name, content)
    columns = map_columns(header)
    TargetImport.objects.filter(pk=target_import.pk).update(column_map=_column_map(header))
    ctx = _RowContext(target_import, header=header, columns=columns)
    cursor = target_import.processed_rows
    remaining = itertools.islice(rows, cursor, None)  # one parse per run: skip what is done, then walk on
    while True:
        batch = list(itertools.islice(remaining, BATCH_SIZE))
        if not _process_batch(target_import.pk, ctx, batch, cursor=cursor):
            return
        cursor += len(batch)


def _process_batch(import_id: int, ctx: "_RowContext", batch: list[tuple[int, list[str]]], *, cursor: int) -> bool:
    """Commit one batch with the cursor under the import's row lock. False when the run should stop."""
    with transaction.atomic():
        current = TargetImport.objects.select_for_update().get(pk=import_id)
        if current.status in _FINISHED or current.processed_rows != cursor:
            return False  # finished, or another run of the same import got here first
        counts = dict.fromkeys(ImportOutcome.values, 0)
        for line, cells in batch:
            counts[ctx.process(line, cells)] += 1
        TargetImport.objects.filter(pk=import_id).update(
            status=ImportStatus.PROCESSING,
            processed_rows=F("processed_rows") + len(batch),
            created_count=F("created_count") + counts[ImportOutcome.CREATED],
            updated_count=F("updated_count") + counts[ImportOutcome.UPDATED],
            duplicate_count=F("duplicate_count") + counts[ImportOutcome.DUPLICATE],
            invalid_count=F("invalid_count") + counts[ImportOutcome.INVALID],
            attempts=0,
            error="",
            updated_at=timezone.now(),
        )
        if len(batch) < BATCH_SIZE:
            _finish(current, status=ImportStatus.COMPLETED)
            return False
    return True


def _record_crash(import_id: int, exc: BaseException) -> None:
    target_import = TargetImport.objects.filter(pk=import_id).exclude(status__in=_FINISHED).first()
    if target_import is None:
        return
    error = f"پردازش متوقف شد ({type(exc).__name__}); دوباره تلاش می‌شود."
    TargetImport.objects.filter(pk=import_id).update(error=error[:500], updated_at=timezone.now())
    if target_import.attempts >= settings.IMPORT_MAX_ATTEMPTS:
        _fail_after_attempts(target_import)


def _fail_after_attempts(target_import: TargetImport) -> None:
    error = (
        f"ورود پس از {fa_digits(settings.IMPORT_MAX_ATTEMPTS)} تلاش بی‌نتیجه متوقف شد؛ "
        f"{fa_digits(target_import.processed_rows)} ردیف پردازش شده بود."
    )
    _finish(target_import, status=ImportStatus.FAILED, error=error)


def _finish(target_import: TargetImport, *, status: str, error: str = "") -> None:
    finished = (
        TargetImport.objects.filter(pk=target_import.pk)
        .exclude(status__in=_FINISHED)
        .update(status=status, error=error[:500], content=None, finished_at=timezone.now(), updated_at=timezone.now())
    )
    if finished and target_import.created_by_id:
        _notify_finished(target_import, status=status, error=error)


def _notify_finished(target_import: TargetImport, *, status: str, error: str) -> None:
    from django.urls import reverse

    from campaigns.notifications.services import notification_send

    ok = status == ImportStatus.COMPLETED
    notification_send(
        workspace=target_import.workspace_id,
        recipients=[target_import.created_by_id],
        kind="import_finished" if ok else "import_failed",
        title="ورود مخاطبان تمام شد" if ok else "ورود مخاطبان ناموفق بود",
        body=error or f"فایل «{target_import.file_name}» پردازش شد.",
        link=reverse("target-import-detail", args=[target_import.pk]),
        dedupe_key=f"import_finished:{target_import.pk}",
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
        except DataError:  # a value the column cannot hold that validation missed: this row only
            outcome, reason, target = ImportOutcome.INVALID, "مقداری از این ردیف در پایگاه داده جا نمی‌شود.", None
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
                warnings.append(f"اولویت «{fields.pop('priority')[:20]}» عدد نیست و نادیده گرفته شد.")
            else:
                if not _INT_RANGE[0] <= fields["priority"] <= _INT_RANGE[1]:
                    fields.pop("priority")
                    warnings.append("اولویت بیش از حد بزرگ است و نادیده گرفته شد.")
        if "status" in fields:
            status = _STATUS_BY_LABEL.get(str(fields["status"]).strip())
            if status is None:
                warnings.append(f"وضعیت «{fields.pop('status')}» شناخته نشد.")
            else:
                fields["status"] = status
        if not fields.get("name"):
            full = " ".join(x for x in (fields.get("first_name"), fields.get("last_name")) if x)
            fields["name"] = full or display_phone(contact.mobile or contact.landline)
        too_long = _too_long(fields, attributes)
        if too_long:
            return ImportOutcome.INVALID, too_long, None
        matches = self._matches(contact)
        if len(matches) > 1:
            message = "موبایل و تلفن ثابت این ردیف به دو مخاطب متفاوت تعلق دارند"
            if self.force_owner:  # an operator never learns the names of targets they do not own
                return ImportOutcome.INVALID, f"{message}.", None
            names = "، ".join(t.name for t in matches)
            return ImportOutcome.INVALID, f"{message} ({names}).", None
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


def _too_long(fields: dict, attributes: dict) -> str:
    """The first value longer than its column allows, as a row reason ("" when all fit)."""
    for name in _TEXT_FIELDS:
        value = fields.get(name)
        field = Target._meta.get_field(name)
        if value and len(str(value)) > field.max_length:
            return (
                f"«{field.verbose_name}» {fa_digits(len(str(value)))} نویسه است؛ "
                f"بیشینه {fa_digits(field.max_length)} نویسه."
            )
    for key, value in attributes.items():
        if len(str(key)) > MAX_ATTRIBUTE_CHARS or len(str(value)) > MAX_ATTRIBUTE_CHARS:
            return f"ستون «{str(key)[:40]}» بیش از {fa_digits(MAX_ATTRIBUTE_CHARS)} نویسه است."
    return ""


def target_imports_resume(*, stale_after_seconds: int = 600) -> list[int]:
    """Re-queue imports whose task was lost (no progress for a while)."""
    cutoff = timezone.now() - timedelta(seconds=stale_after_seconds)
    ids = list(
        TargetImport.objects.filter(
            status__in=[ImportStatus.PENDING, ImportStatus.PROCESSING], updated_at__lt=cutoff
        ).values_list("id", flat=True)[:50]
    )
    for import_id in ids:
        TargetImport.objects.filter(pk=import_id).update(updated_at=timezone.now())
        _queue_import(import_id)
    return ids


def _queue_import(import_id: int) -> None:
    """Hand the import to a worker after commit, by task name (the task module imports this one)."""
    transaction.on_commit(lambda: current_app.signature(IMPORT_TASK).delay(import_id))
