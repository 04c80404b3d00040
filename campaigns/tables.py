"""Reading .xlsx/.csv files into rows of strings (import) and header mapping."""

import csv
import io
from collections.abc import Iterator

from openpyxl import load_workbook

MAX_BYTES = 10 * 1024 * 1024
SUPPORTED = (".xlsx", ".csv")


def normalize_header(value) -> str:
    text = str(value or "").strip().lower().replace("\u200c", " ").replace("ي", "ی").replace("ك", "ک")
    return " ".join(text.replace("-", " ").split()).replace(" ", "_") if text.isascii() else " ".join(text.split())


# normalized header -> target field; "phone" columns are classified per number.
HEADER_ALIASES: dict[str, str] = {}
for field, names in {
    "name": ["name", "full_name", "fullname", "نام", "نام کامل", "نام و نام خانوادگی", "عنوان"],
    "first_name": ["first_name", "firstname", "نام کوچک"],
    "last_name": ["last_name", "lastname", "نام خانوادگی"],
    "phone": [
        "phone",
        "mobile",
        "landline",
        "tel",
        "telephone",
        "phone_number",
        "cell",
        "تلفن",
        "موبایل",
        "تلفن همراه",
        "همراه",
        "تلفن ثابت",
        "شماره",
        "شماره تماس",
        "شماره تلفن",
    ],
    "province": ["province", "state", "استان"],
    "city": ["city", "شهر"],
    "priority": ["priority", "اولویت"],
    "status": ["status", "وضعیت"],
    "lists": ["lists", "list", "فهرست‌ها", "فهرست", "لیست"],
    "ignore": ["id", "created", "created_at", "ایجاد", "تاریخ ایجاد"],  # our own export's read-only columns
}.items():
    for n in names:
        HEADER_ALIASES[normalize_header(n)] = field


def map_header(value) -> str | None:
    return HEADER_ALIASES.get(normalize_header(value))


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # Excel stores 9123456789 as a float
    return str(value).strip()


def _decode(content: bytes) -> str:
    for encoding in ("utf-8-sig", "cp1256"):
        try:
            return content.decode(encoding)
        except UnicodeDecodeError:
            continue
    return content.decode("latin-1")


def read_rows(file_name: str, content: bytes) -> tuple[list[str], Iterator[tuple[int, list[str]]]]:
    """Header cells and an iterator of (line number, cells) for non-empty data rows."""
    lower = file_name.lower()
    if lower.endswith(".xlsx"):
        workbook = load_workbook(io.BytesIO(content), read_only=True, data_only=True)
        sheet = workbook.worksheets[0]
        raw_rows = ([_cell(v) for v in row] for row in sheet.iter_rows(values_only=True))
    elif lower.endswith(".csv"):
        text = _decode(content)
        try:
            dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
        except csv.Error:
            dialect = csv.excel
        raw_rows = ([_cell(v) for v in row] for row in csv.reader(io.StringIO(text), dialect))
    else:
        raise ValueError("unsupported")
    header = next(raw_rows, [])

    def data() -> Iterator[tuple[int, list[str]]]:
        for line, row in enumerate(raw_rows, start=2):
            if any(row):
                yield line, row

    return header, data()
