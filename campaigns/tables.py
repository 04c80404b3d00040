"""Reading .xlsx/.csv files into rows of strings (import) and header mapping.

Uploaded files are untrusted: an .xlsx may declare any dimension (A1:XFD1048576),
hold a row at line 1,048,576, millions of shared strings or cells, and a small zip
may inflate to gigabytes. An .xlsx is read by the streaming reader of
``campaigns.platform.xlsx`` (limits: ``IMPORT_MAX_UNZIPPED_BYTES``,
``IMPORT_MAX_STRINGS``, ``IMPORT_MAX_STRING_BYTES``, ``IMPORT_MAX_CELLS``,
``IMPORT_MAX_XML_ELEMENTS``, element depth), only the header's columns are kept and
reading stops at ``IMPORT_MAX_ROWS`` lines. Every reader is made by ``xlsx_limits``,
so every caller gets the same budget; a caller that reads fewer rows (a bulk-import
preview) gets it scaled down to those rows. A web request of the target import reads
only the header, within ``HEADER_SCAN_BYTES`` of each part.
"""

import csv
import io
from collections.abc import Iterator

from django.conf import settings

from campaigns.platform.xlsx import FileTooLarge, Limits, XlsxReader

MAX_BYTES = settings.IMPORT_MAX_BYTES
SUPPORTED = (".xlsx", ".csv")
HEADER_SCAN_BYTES = 1024 * 1024  # unzipped bytes of the sheet and of the shared strings a web request reads


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


# A bare «نام» / "name" beside a surname column is the first name (a Persian sheet's «نام», «نام خانوادگی»).
_BARE_NAMES = {normalize_header(n) for n in ("name", "نام")}


# What each mapped column fills, in the words of the import report.
FIELD_LABELS = {
    "name": "نام کامل",
    "first_name": "نام کوچک",
    "last_name": "نام خانوادگی",
    "phone": "شماره تلفن",
    "province": "استان",
    "city": "شهر",
    "priority": "اولویت",
    "status": "وضعیت",
    "lists": "فهرست‌ها",
    "ignore": "نادیده (ستون فقط‌خواندنی خروجی)",
}
CUSTOM_ATTRIBUTE_LABEL = "ویژگی سفارشی مخاطب"


def column_labels(column_map: list) -> list[tuple[str, str]]:
    """(header cell, what it fills) of a stored column map, for the import report; a full name built
    from the first and last name is named as such."""
    labels = [(str(h), FIELD_LABELS.get(f or "", CUSTOM_ATTRIBUTE_LABEL)) for h, f in column_map]
    fields = {f for _h, f in column_map}
    if "name" not in fields and fields & {"first_name", "last_name"}:
        parts = " + ".join(f"«{h}»" for h, f in column_map if f in ("first_name", "last_name"))
        labels.append((parts, FIELD_LABELS["name"]))
    return labels


def map_columns(header: list[str]) -> list[str | None]:
    """The target field of each header cell (None: kept as a custom attribute).

    When the sheet has a surname column and no first-name column, a bare «نام» is the first name,
    and the full name is built from the first and last name (unless a full-name column exists too).
    """
    columns = [map_header(h) for h in header]
    if "last_name" in columns and "first_name" not in columns:
        bare = [i for i, h in enumerate(header) if columns[i] == "name" and normalize_header(h) in _BARE_NAMES]
        if len(bare) == 1:
            columns[bare[0]] = "first_name"
    return columns


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


ELEMENTS_PER_CELL = 8  # a cell with an inline rich-text string is ~8 elements; a plain one 2


def xlsx_limits(*, max_rows: int | None = None) -> Limits:
    """The reader's limits from the settings; with ``max_rows`` (fewer rows than an import) the cells,
    strings and elements are scaled down to what that many rows of ``IMPORT_MAX_COLUMNS`` can hold."""
    cells, strings = settings.IMPORT_MAX_CELLS, settings.IMPORT_MAX_STRINGS
    elements = settings.IMPORT_MAX_XML_ELEMENTS
    if max_rows is not None:
        cells = min(cells, (max_rows + 1) * (settings.IMPORT_MAX_COLUMNS + 1))
        strings = min(strings, cells)
        elements = min(elements, cells * ELEMENTS_PER_CELL + 10_000)
    return Limits(
        unzipped_bytes=settings.IMPORT_MAX_UNZIPPED_BYTES,
        strings=strings,
        string_bytes=settings.IMPORT_MAX_STRING_BYTES,
        cells=cells,
        elements=elements,
    )


def _header(values: dict[int, object]) -> list[str]:
    header = [_cell(values.get(col)) for col in range(1, max(values, default=0) + 1)]
    while header and not header[-1]:
        header.pop()
    if len(header) > settings.IMPORT_MAX_COLUMNS:
        raise FileTooLarge("columns")
    return header


def _xlsx_rows(content: bytes, limits: Limits) -> Iterator[tuple[int, list[str]]]:
    rows = XlsxReader(content, limits).iter_rows(max_col=settings.IMPORT_MAX_COLUMNS + 1)
    first = next(rows, None)
    header = _header(first[1]) if first and first[0] == 1 else []
    yield 1, header
    if not header:
        return
    for number, values in rows:
        yield number, [_cell(values.get(col)) for col in range(1, len(header) + 1)]


def _csv_rows(content: bytes) -> Iterator[list[str]]:
    text = _decode(content)
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text), dialect)
    header = _header(dict(enumerate(next(reader, []), start=1)))
    yield 1, header
    for line, row in enumerate(reader, start=2):
        yield line, [_cell(v) for v in row[: len(header)]]


def read_header(file_name: str, content: bytes) -> list[str] | None:
    """The header cells, read within a bounded time and memory (a web request), or None when the
    answer lies deeper in an .xlsx than ``HEADER_SCAN_BYTES`` of each part (the import task decides then)."""
    if file_name.lower().endswith(".xlsx"):
        reader = XlsxReader(content, xlsx_limits())
        values = reader.read_header(max_col=settings.IMPORT_MAX_COLUMNS + 1, budget=HEADER_SCAN_BYTES)
        return None if values is None else _header(dict(enumerate(values, start=1)))
    header, _rows = read_rows(file_name, content)
    return header


def read_rows(
    file_name: str, content: bytes, *, max_rows: int | None = None
) -> tuple[list[str], Iterator[tuple[int, list[str]]]]:
    """Header cells and an iterator of (line number, cells) for non-empty data rows.

    Rows carry only the header's columns and their line in the file (an .xlsx row's own number).
    A line past ``max_rows`` (default ``IMPORT_MAX_ROWS``) + 1 raises ``FileTooLarge``, also after a
    gap of empty lines; an .xlsx is read with ``xlsx_limits(max_rows=max_rows)``.
    """
    lower = file_name.lower()
    if lower.endswith(".xlsx"):
        raw_rows = _xlsx_rows(content, xlsx_limits(max_rows=max_rows))
    elif lower.endswith(".csv"):
        raw_rows = _csv_rows(content)
    else:
        raise ValueError("unsupported")
    _first, header = next(raw_rows)
    last_line = (settings.IMPORT_MAX_ROWS if max_rows is None else max_rows) + 1

    def data() -> Iterator[tuple[int, list[str]]]:
        for line, row in raw_rows:
            if line > last_line:
                raise FileTooLarge("rows")
            if any(row):
                yield line, row

    return header, data()
