"""Reading .xlsx/.csv files into rows of strings (import) and header mapping.

Uploaded files are untrusted: an .xlsx may declare any dimension (A1:XFD1048576)
or hold a row at line 1,048,576, and a small zip may inflate to gigabytes. The
reader never trusts the declared dimension, reads only the header's columns,
stops at ``IMPORT_MAX_ROWS`` lines and refuses a workbook whose declared
uncompressed size is above ``IMPORT_MAX_UNZIPPED_BYTES``.
"""

import csv
import io
import zipfile
from collections.abc import Iterator

from django.conf import settings
from openpyxl import load_workbook

MAX_BYTES = settings.IMPORT_MAX_BYTES
SUPPORTED = (".xlsx", ".csv")


class FileTooLarge(ValueError):
    """The file holds more rows, columns or (unzipped) bytes than an import accepts."""


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


def _xlsx_rows(content: bytes) -> Iterator[list[str]]:
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        # zipfile never inflates a member past its declared size, so the declared total bounds the work.
        if sum(info.file_size for info in archive.infolist()) > settings.IMPORT_MAX_UNZIPPED_BYTES:
            raise FileTooLarge("unzipped size")
    workbook = load_workbook(io.BytesIO(content), read_only=True, data_only=True)
    sheet = workbook.worksheets[0]
    sheet.reset_dimensions()  # the declared dimension is the file's claim, not a fact
    limit = settings.IMPORT_MAX_COLUMNS
    first = next(sheet.iter_rows(min_row=1, max_row=1, max_col=limit + 1, values_only=True), ())
    header = [_cell(v) for v in first]
    while header and not header[-1]:
        header.pop()
    if len(header) > limit:
        raise FileTooLarge("columns")
    yield header
    if not header:
        return
    for row in sheet.iter_rows(min_row=2, max_col=len(header), values_only=True):
        yield [_cell(v) for v in row]


def _csv_rows(content: bytes) -> Iterator[list[str]]:
    text = _decode(content)
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text), dialect)
    header = [_cell(v) for v in next(reader, [])]
    while header and not header[-1]:
        header.pop()
    if len(header) > settings.IMPORT_MAX_COLUMNS:
        raise FileTooLarge("columns")
    yield header
    for row in reader:
        yield [_cell(v) for v in row[: len(header)]]


def read_rows(file_name: str, content: bytes) -> tuple[list[str], Iterator[tuple[int, list[str]]]]:
    """Header cells and an iterator of (line number, cells) for non-empty data rows.

    Rows carry only the header's columns. Iterating past ``IMPORT_MAX_ROWS`` lines
    (empty lines count: a gap of a million rows is work too) raises ``FileTooLarge``.
    """
    lower = file_name.lower()
    if lower.endswith(".xlsx"):
        raw_rows = _xlsx_rows(content)
    elif lower.endswith(".csv"):
        raw_rows = _csv_rows(content)
    else:
        raise ValueError("unsupported")
    header = next(raw_rows, [])
    last_line = settings.IMPORT_MAX_ROWS + 1

    def data() -> Iterator[tuple[int, list[str]]]:
        for line, row in enumerate(raw_rows, start=2):
            if line > last_line:
                raise FileTooLarge("rows")
            if any(row):
                yield line, row

    return header, data()
