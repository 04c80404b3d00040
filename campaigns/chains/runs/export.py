"""Export of a run's frozen audience to .xlsx (a read: reports match exactly what the run froze).

Cells go through ``campaigns.exports.text_cell`` (formula-like text written as
text). Bounded by ``TARGETS_EXPORT_MAX_ROWS`` like the target export.
"""

from __future__ import annotations

import io

from django.conf import settings
from openpyxl import Workbook

from campaigns.chains.run_models import CampaignRun, RunExecution
from campaigns.chains.runs.lift import lift_rows, run_lift
from campaigns.exports import text_cell
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.jalali import fa_digits, to_jalali
from campaigns.platform.phones import display_phone

HEADERS = ["شناسه مخاطب", "نام", "نام کوچک", "نام خانوادگی", "موبایل", "گروه کنترل", "اجرا", "دلیل رد کانال"]


def run_audience_xlsx(run: CampaignRun, snapshot, members) -> bytes:
    limit = settings.TARGETS_EXPORT_MAX_ROWS
    if members.count() > limit:
        message = f"مخاطبان این اجرا بیش از {fa_digits(limit)} نفرند و در یک فایل صادر نمی‌شوند."
        raise ValidationFailed(message, details={"non_field_errors": [message]})
    links: dict[int, tuple[int | None, str]] = {}
    for target_id, execution_id, refused in RunExecution.objects.filter(run=run).values_list(
        "target_id", "execution_id", "refused_reason"
    ):
        links.setdefault(target_id, (execution_id, refused))
    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet(f"اجرای {run.pk}")
    sheet.sheet_view.rightToLeft = True
    title = [f"اجرای {run.pk}", run.campaign.name, to_jalali(snapshot.frozen_at, with_time=True)]
    sheet.append([text_cell(sheet, value) for value in title])
    sheet.append(HEADERS)
    for member in members.iterator(chunk_size=2000):
        target = member.target
        execution_id, refused = links.get(target.id, (None, ""))
        row = [
            target.id,
            target.name,
            target.first_name,
            target.last_name,
            display_phone(target.mobile),
            "بله" if member.is_control else "",
            execution_id or "",
            refused,
        ]
        sheet.append([text_cell(sheet, value) for value in row])
    lift = workbook.create_sheet("اثر پیام")  # treated vs CONTROL, the same lines as the runs page
    lift.sheet_view.rightToLeft = True
    for label, value in lift_rows(run_lift(run)):
        lift.append([text_cell(lift, label), text_cell(lift, value)])
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()
