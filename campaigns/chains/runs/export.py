"""Export of a run's frozen audience to .xlsx (a read: reports match exactly what the run froze), streamed.

The members sheet then the lift sheet, written by ``campaigns.platform.xlsx_stream`` as the response streams
(formula-like text written as text, the download starts before the first row is read). Bounded by
``TARGETS_EXPORT_MAX_ROWS`` like the target export, checked before the first byte.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

from django.conf import settings

from campaigns.chains.run_models import CampaignRun, RunExecution
from campaigns.chains.runs.lift import lift_rows, run_lift
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.jalali import fa_digits, to_jalali
from campaigns.platform.phones import display_phone
from campaigns.platform.tenancy import workspace_zone
from campaigns.platform.xlsx_stream import xlsx_sheets_stream

HEADERS = ["شناسه مخاطب", "نام", "نام کوچک", "نام خانوادگی", "موبایل", "گروه کنترل", "اجرا", "دلیل رد کانال"]
MEMBER_FIELDS = ("target_id", "target__name", "target__first_name", "target__last_name", "target__mobile")


def _member_rows(run: CampaignRun, snapshot, members, *, zone: dt.tzinfo) -> Iterator[list]:
    yield [f"اجرای {run.pk}", run.campaign.name, to_jalali(snapshot.frozen_at, with_time=True, tz=zone)]
    yield HEADERS
    links: dict[int, tuple[int | None, str]] = {}
    for target_id, execution_id, refused in RunExecution.objects.filter(run=run).values_list(
        "target_id", "execution_id", "refused_reason"
    ):
        links.setdefault(target_id, (execution_id, refused))
    rows = members.select_related(None).values_list(*MEMBER_FIELDS, "is_control")
    for target_id, name, first, last, mobile, is_control in rows.iterator(chunk_size=2000):
        execution_id, refused = links.get(target_id, (None, ""))
        control = "بله" if is_control else ""
        yield [target_id, name, first, last, display_phone(mobile), control, execution_id or "", refused]


def _lift_rows(run: CampaignRun) -> Iterator[list]:
    """Treated vs CONTROL, the same lines as the runs page (computed once the members are written)."""
    for label, value in lift_rows(run_lift(run)):
        yield [label, value]


def run_audience_xlsx(run: CampaignRun, snapshot, members) -> Iterator[bytes]:
    """The workbook in pieces for a ``StreamingHttpResponse``; the size check runs now, before any byte."""
    limit = settings.TARGETS_EXPORT_MAX_ROWS
    if members.order_by()[: limit + 1].count() > limit:
        message = f"مخاطبان این اجرا بیش از {fa_digits(limit)} نفرند و در یک فایل صادر نمی‌شوند."
        raise ValidationFailed(message, details={"non_field_errors": [message]})
    rows = _member_rows(run, snapshot, members, zone=workspace_zone(run.workspace))  # resolved before streaming
    sheets = [(f"اجرای {run.pk}", rows), ("اثر پیام", _lift_rows(run))]
    return xlsx_sheets_stream(sheets)
