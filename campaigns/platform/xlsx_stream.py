"""A one-sheet .xlsx written as it is sent: bounded memory, first bytes before the last row is read.

openpyxl's write-only workbook spends ≈ 2 ms per row of eleven cells building each cell's XML element and
keeps the sheet in a temporary file until ``save()`` zips it, so a 20,000-row export took 13 s before its
first byte. Here each row is one string of inline-string and number cells, written into a deflated zip entry
of a ``ZipFile`` on an unseekable sink (sizes go in data descriptors, as every spreadsheet program reads),
and the sink's bytes are yielded after every batch of rows: the response streams, and the memory holds one
batch whatever the row count.

Text a spreadsheet would evaluate (``= + - @``, tab, carriage return) is a plain text cell with the quote
prefix (style 1), never a formula; characters XML 1.0 cannot carry are dropped.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterable, Iterator
from xml.sax.saxutils import escape

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
ILLEGAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
ROWS_PER_CHUNK = 500

SHEET_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" '
    'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
    'Target="xl/workbook.xml"/></Relationships>'
)


def _content_types(sheets: int) -> str:
    parts = "".join(
        f'<Override PartName="/xl/worksheets/sheet{n}.xml" ContentType="{SHEET_TYPE}"/>' for n in range(1, sheets + 1)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        f"{parts}"
        '<Override PartName="/xl/styles.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
        "</Types>"
    )


def _workbook_rels(sheets: int) -> str:
    kind = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    parts = "".join(
        f'<Relationship Id="rId{n}" Type="{kind}/worksheet" Target="worksheets/sheet{n}.xml"/>'
        for n in range(1, sheets + 1)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f'{parts}<Relationship Id="rId{sheets + 1}" Type="{kind}/styles" Target="styles.xml"/></Relationships>'
    )


STYLES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>'
    '<fills count="2"><fill><patternFill patternType="none"/></fill>'
    '<fill><patternFill patternType="gray125"/></fill></fills>'
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
    '<cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'
    '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0" quotePrefix="1"/></cellXfs>'
    '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>'
    "</styleSheet>"
)
SHEET_HEAD = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    '<sheetViews><sheetView {rtl}workbookViewId="0"/></sheetViews><sheetData>'
)
SHEET_TAIL = "</sheetData></worksheet>"


def _workbook(names: list[str]) -> str:
    sheets = "".join(
        f'<sheet name="{escape(name, {chr(34): "&quot;"})}" sheetId="{n}" r:id="rId{n}"/>'
        for n, name in enumerate(names, start=1)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
        f"<sheets>{sheets}</sheets></workbook>"
    )


def cell_xml(value) -> str:
    if value is None or value == "":
        return "<c/>"
    if isinstance(value, bool):
        return f'<c t="b"><v>{int(value)}</v></c>'
    if isinstance(value, int | float):
        return f"<c><v>{value}</v></c>"
    text = ILLEGAL.sub("", str(value))
    style = ' s="1"' if text.startswith(FORMULA_PREFIXES) else ""
    return f'<c t="inlineStr"{style}><is><t xml:space="preserve">{escape(text)}</t></is></c>'


def row_xml(values) -> str:
    return "<row>" + "".join(cell_xml(v) for v in values) + "</row>"


class _Sink(io.RawIOBase):
    """Collects what the zip writer writes until the stream takes it (unseekable: data descriptors)."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self.chunks.append(bytes(data))
        return len(data)

    def take(self) -> bytes:
        data = b"".join(self.chunks)
        self.chunks.clear()
        return data


def xlsx_stream(rows: Iterable, *, sheet_name: str, rtl: bool = True) -> Iterator[bytes]:
    """The bytes of a one-sheet workbook holding ``rows`` (lists of str/int/float/bool/None), in pieces."""
    return xlsx_sheets_stream([(sheet_name, rows)], rtl=rtl)


def xlsx_sheets_stream(sheets: list[tuple[str, Iterable]], *, rtl: bool = True) -> Iterator[bytes]:
    """A workbook of several sheets (name, rows), written one after the other; the workbook's fixed parts go out
    before the first row is read."""
    sink = _Sink()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("[Content_Types].xml", _content_types(len(sheets)))
        archive.writestr("_rels/.rels", ROOT_RELS)
        archive.writestr("xl/workbook.xml", _workbook([name for name, _ in sheets]))
        archive.writestr("xl/_rels/workbook.xml.rels", _workbook_rels(len(sheets)))
        archive.writestr("xl/styles.xml", STYLES)
        for n, (_, rows) in enumerate(sheets, start=1):
            with archive.open(f"xl/worksheets/sheet{n}.xml", "w", force_zip64=True) as sheet:
                sheet.write(SHEET_HEAD.format(rtl='rightToLeft="1" ' if rtl else "").encode())
                yield sink.take()  # the download starts before the sheet's first row is read
                batch: list[str] = []
                for values in rows:
                    batch.append(row_xml(values))
                    if len(batch) >= ROWS_PER_CHUNK:
                        sheet.write("".join(batch).encode())
                        batch.clear()
                        yield sink.take()
                sheet.write(("".join(batch) + SHEET_TAIL).encode())
    yield sink.take()
