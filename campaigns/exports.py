"""Target export to .xlsx (a read: it only renders a queryset)."""

import io

from openpyxl import Workbook

from .jalali import to_jalali
from .phones import display_phone

HEADERS = [
    "نام",
    "نام کوچک",
    "نام خانوادگی",
    "موبایل",
    "تلفن ثابت",
    "وضعیت",
    "استان",
    "شهر",
    "اولویت",
    "فهرست‌ها",
    "ایجاد",
]


def targets_xlsx(queryset) -> bytes:
    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet("مخاطبان")
    sheet.sheet_view.rightToLeft = True
    sheet.append(HEADERS)
    for target in queryset.prefetch_related("lists").iterator(chunk_size=2000):
        sheet.append(
            [
                target.name,
                target.first_name,
                target.last_name,
                display_phone(target.mobile),
                display_phone(target.landline),
                target.get_status_display(),
                target.province,
                target.city,
                target.priority,
                "، ".join(tl.name for tl in target.lists.all()),
                to_jalali(target.created_at, with_time=True),
            ]
        )
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()
