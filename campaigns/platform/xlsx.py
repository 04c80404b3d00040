"""A streaming reader of the first worksheet of an .xlsx, values only, with hard limits.

openpyxl (even ``read_only``) loads the whole shared-strings table, the styles and the theme before
the first row: a 43 KB file can hold millions of strings. This reader parses the parts it needs
with expat, fed in chunks straight from the zip member, never builds a tree and never trusts a
declared count:

- the zip directory: at most ``Limits.members`` entries (the central-directory records in the file,
  counted before zipfile reads the directory; the end record's 16-bit count is not trusted) whose
  declared uncompressed sizes add up to at most ``Limits.unzipped_bytes`` (zipfile never inflates a
  member past its declared size);
- XML: every element of every part read counts against ``Limits.elements`` (one budget per reader),
  elements nest at most ``Limits.depth`` deep (expat keeps one stack entry per open element: unclosed
  ``<a><a>…`` cost 40 bytes of memory per compressed byte), and one tag, comment or other markup is at
  most ``MAX_MARKUP_BYTES`` (expat holds an unfinished one whole);
- shared strings: at most ``Limits.strings`` of them, ``Limits.string_bytes`` of UTF-8 together (kept
  in one ``bytearray`` with an offset array, so the count adds 8 bytes each, not a Python object)
  and ``EXCEL_MAX_CELL_CHARS`` each (Excel's own cell limit), checked while the text arrives;
- cells: every ``<c>`` of the sheet counts against ``Limits.cells``, also those right of the
  columns that are read; rows must ascend; a DOCTYPE (entity declarations) is refused.

``read_header`` answers the first row within ``budget`` bytes of each part it reads (for a web
request), or ``None`` when the answer lies further in. ``iter_rows`` streams ``(row number,
{column: value})``; values are what openpyxl's ``data_only`` gives (str, int, float, bool,
datetime).
"""

import io
import posixpath
import zipfile
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from xml.parsers import expat

from openpyxl.styles.numbers import BUILTIN_FORMATS, is_date_format, is_timedelta_format
from openpyxl.utils.cell import column_index_from_string
from openpyxl.utils.datetime import CALENDAR_MAC_1904, CALENDAR_WINDOWS_1900, from_excel, from_ISO8601

EXCEL_MAX_CELL_CHARS = 32_767
EXCEL_MAX_CELL_FORMATS = 65_490
SMALL_PART_BYTES = 1024 * 1024  # package and workbook relationships, the workbook's sheet list
CHUNK = 64 * 1024
# Bytes of a part that may pass without a tag being completed (the longest legitimate stretch is the text of
# one cell, 32,767 characters); past it the markup being read is refused before expat buffers more of it.
MAX_MARKUP_BYTES = 1024 * 1024


class FileTooLarge(ValueError):
    """A limit was hit; the argument names it (members, unzipped size, elements, depth, markup, strings,
    string bytes, string, cells, columns, rows, styles)."""


class XlsxError(ValueError):
    """Not a workbook this reader understands (corrupt, missing parts, rows out of order)."""


class _Stop(Exception):
    """Raised inside a handler: the answer is known, stop parsing."""


class _OverBudget(Exception):
    pass


@dataclass(frozen=True)
class Limits:
    unzipped_bytes: int
    strings: int
    string_bytes: int
    cells: int
    elements: int
    members: int = 1000
    depth: int = 20


class _Elements:
    """The element budget of one reader, spent by every part it parses."""

    def __init__(self, limits: Limits) -> None:
        self.left = limits.elements
        self.depth = limits.depth


def _local(name: str) -> str:
    return name.rpartition("}")[2]


def _refuse_doctype(*args) -> None:
    raise XlsxError("DOCTYPE")


class _Part:
    """The handlers of one part. Every ``start`` spends one element of the reader's budget and one level of
    depth, inline (a wrapper around each handler would double the cost of an element); ``end`` gives the
    level back."""

    chars = None
    left = depth = max_depth = 0

    def refuse(self) -> None:
        raise FileTooLarge("elements" if self.left < 0 else "depth")

    def end(self, name) -> None:
        self.depth -= 1


class _Callback(_Part):
    """A ``start`` function as a part's handler (the small parts: relationships, the sheet list)."""

    def __init__(self, start: Callable[[str, dict], None]) -> None:
        self.on_start = start

    def start(self, name, attrs) -> None:
        self.left -= 1
        self.depth += 1
        if self.left < 0 or self.depth > self.max_depth:
            self.refuse()
        self.on_start(name, attrs)


def _parse(archive: zipfile.ZipFile, name: str, part: _Part, *, elements: _Elements, budget: int | None = None):
    """Feed one member to expat chunk by chunk; yields after each chunk (callers drain their output)."""
    parser = expat.ParserCreate(namespace_separator="}")
    if hasattr(parser, "SetReparseDeferralEnabled"):
        parser.SetReparseDeferralEnabled(False)  # the markup check below reads where parsing got to
    parser.StartDoctypeDeclHandler = _refuse_doctype
    part.left, part.max_depth, part.depth = elements.left, elements.depth, 0
    parser.StartElementHandler = part.start
    parser.EndElementHandler = part.end
    if part.chars:
        parser.CharacterDataHandler = part.chars
    read = 0
    try:
        with archive.open(name) as stream:
            while chunk := stream.read(CHUNK):
                read += len(chunk)
                if budget is not None and read > budget:
                    raise _OverBudget
                parser.Parse(chunk, False)
                if read - parser.CurrentByteIndex > MAX_MARKUP_BYTES:
                    raise FileTooLarge("markup")
                yield
            parser.Parse(b"", True)
            yield
    except _Stop:
        yield  # what the last chunk produced before the stop
    except expat.ExpatError as exc:
        raise XlsxError(str(exc)) from None
    finally:
        elements.left = max(part.left, 0)


def _run(archive, name, part: _Part, *, elements: _Elements, budget: int | None = None) -> None:
    for _ in _parse(archive, name, part, elements=elements, budget=budget):
        pass


class _Text:
    """Collects the text of one string or cell, refusing more than Excel's cell limit as it arrives."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0

    def add(self, data: str) -> None:
        self.size += len(data)
        if self.size > EXCEL_MAX_CELL_CHARS:
            raise FileTooLarge("string")
        self.parts.append(data)

    def take(self) -> str:
        value = "".join(self.parts)
        self.parts, self.size = [], 0
        return value


class _StringTable(_Part):
    """The shared strings, parsed until ``upto`` (an index) or the end; ``wanted`` keeps only those indices."""

    def __init__(self, limits: Limits, *, wanted: set[int] | None = None) -> None:
        self.limits = limits
        self.wanted = wanted
        self.found: dict[int, str] = {}
        self.data = bytearray()
        self.ends = array("Q")
        self.count = 0
        self.text = _Text()
        self.depth_t = 0  # inside <t> (not of a phonetic run)
        self.in_phonetic = False

    def start(self, name, attrs) -> None:
        self.left -= 1
        self.depth += 1
        if self.left < 0 or self.depth > self.max_depth:
            self.refuse()
        tag = _local(name)
        if tag == "t" and not self.in_phonetic:
            self.depth_t = 1
        elif tag == "rPh":
            self.in_phonetic = True

    def end(self, name) -> None:
        self.depth -= 1
        tag = _local(name)
        if tag == "t":
            self.depth_t = 0
        elif tag == "rPh":
            self.in_phonetic = False
        elif tag == "si":
            self._add(self.text.take())

    def chars(self, data: str) -> None:
        if self.depth_t:
            self.text.add(data)

    def _add(self, value: str) -> None:
        index = self.count
        self.count += 1
        if self.count > self.limits.strings:
            raise FileTooLarge("strings")
        if self.wanted is not None:
            if index in self.wanted:
                self.found[index] = value
                if len(self.found) == len(self.wanted):
                    raise _Stop
            return
        self.data += value.encode()
        if len(self.data) > self.limits.string_bytes:
            raise FileTooLarge("string bytes")
        self.ends.append(len(self.data))

    def __getitem__(self, index: int) -> str:
        if self.wanted is not None:
            return self.found[index]
        if index < 0:
            raise IndexError(index)
        start = self.ends[index - 1] if index else 0
        return self.data[start : self.ends[index]].decode()


class _Styles(_Part):
    """Indices of the cell formats that show a date (or a duration), as openpyxl converts them."""

    def __init__(self) -> None:
        self.custom: dict[int, str] = {}
        self.formats: list[int] = []
        self.in_cell_xfs = False

    def start(self, name, attrs) -> None:
        self.left -= 1
        self.depth += 1
        if self.left < 0 or self.depth > self.max_depth:
            self.refuse()
        tag = _local(name)
        if tag == "numFmt" and len(self.custom) < EXCEL_MAX_CELL_FORMATS:
            self.custom[int(attrs.get("numFmtId", 0))] = attrs.get("formatCode", "")
        elif tag == "cellXfs":
            self.in_cell_xfs = True
        elif tag == "xf" and self.in_cell_xfs:
            if len(self.formats) >= EXCEL_MAX_CELL_FORMATS:
                raise FileTooLarge("styles")
            self.formats.append(int(attrs.get("numFmtId", 0)))

    def end(self, name) -> None:
        self.depth -= 1
        if _local(name) == "cellXfs":
            raise _Stop

    def kinds(self) -> dict[int, bool]:
        """style index → timedelta? (only date and duration formats are listed)"""
        result = {}
        for index, fmt_id in enumerate(self.formats):
            code = self.custom.get(fmt_id) or BUILTIN_FORMATS.get(fmt_id)
            if code and is_date_format(code):
                result[index] = is_timedelta_format(code)
        return result


class _Sheet(_Part):
    """Cells of the worksheet as (row, {column: (type, style, text)}) for columns ≤ ``max_col``."""

    def __init__(self, *, max_col: int, max_cells: int, last_row: int | None = None) -> None:
        self.max_col = max_col
        self.max_cells = max_cells
        self.last_row = last_row  # stop after this row (the header scan)
        self.cells = 0
        self.row = 0
        self.col = 0
        self.values: dict[int, tuple[str, str | None, str]] = {}
        self.ready: list[tuple[int, dict]] = []
        self.cell: tuple[str, str | None] | None = None
        self.text = _Text()
        self.reading = False
        self.in_inline = False
        self.in_phonetic = False

    def start(self, name, attrs) -> None:
        self.left -= 1
        self.depth += 1
        if self.left < 0 or self.depth > self.max_depth:
            self.refuse()
        tag = _local(name)
        if tag == "c":
            self._start_cell(attrs)
        elif tag == "row":
            ref = attrs.get("r")
            number = int(ref) if ref else self.row + 1
            if number <= self.row:
                raise XlsxError("rows out of order")
            if self.last_row is not None and number > self.last_row:
                raise _Stop
            self.row, self.col, self.values = number, 0, {}
        elif self.cell is not None and (tag == "v" or (tag == "t" and self.in_inline and not self.in_phonetic)):
            self.reading = True
        elif tag == "is":
            self.in_inline = True
        elif tag == "rPh":
            self.in_phonetic = True

    def _start_cell(self, attrs) -> None:
        self.cells += 1
        if self.cells > self.max_cells:
            raise FileTooLarge("cells")
        ref = attrs.get("r")
        if ref:
            letters = ref.rstrip("0123456789").upper()
            try:
                self.col = column_index_from_string(letters)
            except ValueError:
                raise XlsxError(f"cell reference {ref[:20]!r}") from None
        else:
            self.col += 1
        self.cell = (attrs.get("t", "n"), attrs.get("s")) if self.col <= self.max_col else None

    def end(self, name) -> None:
        self.depth -= 1
        tag = _local(name)
        if tag in ("v", "t"):
            self.reading = False
        elif tag == "is":
            self.in_inline = False
        elif tag == "rPh":
            self.in_phonetic = False
        elif tag == "c":
            if self.cell is not None:
                self.values[self.col] = (*self.cell, self.text.take())
            self.cell = None
        elif tag == "row":
            self.ready.append((self.row, self.values))
            if self.last_row is not None and self.row >= self.last_row:
                raise _Stop
        elif tag == "sheetData":
            raise _Stop

    def chars(self, data: str) -> None:
        if self.reading:
            self.text.add(data)


class XlsxReader:
    def __init__(self, content: bytes, limits: Limits) -> None:
        self.limits = limits
        self.elements = _Elements(limits)
        if _member_count(content) > limits.members:
            raise FileTooLarge("members")
        try:
            self.archive = zipfile.ZipFile(io.BytesIO(content))
        except zipfile.BadZipFile as exc:
            raise XlsxError(str(exc)) from None
        if sum(info.file_size for info in self.archive.infolist()) > limits.unzipped_bytes:
            raise FileTooLarge("unzipped size")
        self.names = set(self.archive.namelist())
        self._locate()

    def _locate(self) -> None:
        package = self._relationships("_rels/.rels", "")
        workbook = package.get("officeDocument", "xl/workbook.xml")
        sheet_id, self.epoch = self._first_sheet(workbook)
        folder = posixpath.dirname(workbook)
        parts = self._relationships(posixpath.join(folder, "_rels", posixpath.basename(workbook) + ".rels"), folder)
        self.sheet = parts.get(sheet_id) or posixpath.join(folder, "worksheets/sheet1.xml")
        self.shared_strings = parts.get("sharedStrings")
        self.styles = parts.get("styles")
        if self.sheet not in self.names:
            raise XlsxError("no worksheet")

    def _relationships(self, name: str, folder: str) -> dict[str, str]:
        """Relationship targets by id and by the last word of their type (officeDocument, styles …)."""
        found: dict[str, str] = {}

        def start(tag, attrs):
            if _local(tag) == "Relationship" and attrs.get("TargetMode") != "External":
                target = attrs.get("Target", "")
                path = target.lstrip("/") if target.startswith("/") else posixpath.join(folder, target)
                path = posixpath.normpath(path)
                found[attrs.get("Id", "")] = path
                found.setdefault(attrs.get("Type", "").rpartition("/")[2], path)

        if name in self.names:
            self._small(name, start)
        return found

    def _first_sheet(self, name: str) -> tuple[str, float]:
        state = {"id": "", "epoch": CALENDAR_WINDOWS_1900}

        def start(tag, attrs):
            tag = _local(tag)
            if tag == "workbookPr" and attrs.get("date1904") in ("1", "true"):
                state["epoch"] = CALENDAR_MAC_1904
            elif tag == "sheet":
                state["id"] = next((v for k, v in attrs.items() if _local(k) == "id"), "")
                raise _Stop

        if name not in self.names:
            raise XlsxError("no workbook")
        self._small(name, start)
        return state["id"], state["epoch"]

    def _small(self, name: str, start) -> None:
        try:
            _run(self.archive, name, _Callback(start), elements=self.elements, budget=SMALL_PART_BYTES)
        except _OverBudget:
            raise FileTooLarge("members") from None

    def read_header(self, *, max_col: int, budget: int) -> list | None:
        """The values of row 1 (up to ``max_col`` columns), or None when ``budget`` bytes of a part did not tell."""
        sheet = _Sheet(max_col=max_col, max_cells=self.limits.cells, last_row=1)
        try:
            _run(self.archive, self.sheet, sheet, elements=self.elements, budget=budget)
        except _OverBudget:
            return None
        row = dict(sheet.ready).get(1, {})
        wanted = {int(text) for kind, _style, text in row.values() if kind == "s" and text.strip().isdigit()}
        strings = _StringTable(self.limits, wanted=wanted)
        if wanted:
            if max(wanted) >= self.limits.strings:
                raise FileTooLarge("strings")
            if self.shared_strings in self.names:
                try:
                    _run(self.archive, self.shared_strings, strings, elements=self.elements, budget=budget)
                except _OverBudget:
                    return None
        convert = _converter(strings, {}, self.epoch)
        return [convert(row[col]) if col in row else None for col in range(1, max(row, default=0) + 1)]

    def iter_rows(self, *, max_col: int) -> Iterator[tuple[int, dict[int, object]]]:
        """Every row of the sheet in order (rows without cells are not listed)."""
        strings = _StringTable(self.limits)
        if self.shared_strings in self.names:
            _run(self.archive, self.shared_strings, strings, elements=self.elements)
        styles = _Styles()
        if self.styles in self.names:
            _run(self.archive, self.styles, styles, elements=self.elements)
        convert = _converter(strings, styles.kinds(), self.epoch)
        sheet = _Sheet(max_col=max_col, max_cells=self.limits.cells)
        for _ in _parse(self.archive, self.sheet, sheet, elements=self.elements):
            for number, values in sheet.ready:
                yield number, {col: convert(raw) for col, raw in values.items()}
            sheet.ready = []


def _converter(strings: _StringTable, dates: dict[int, bool], epoch) -> Callable[[tuple], object]:
    def convert(raw: tuple[str, str | None, str]) -> object:
        kind, style, text = raw
        try:
            if kind == "s":
                return strings[int(text)] if text else None
            if kind in ("inlineStr", "str", "e"):
                return text
            if kind == "b":
                return text.strip() not in ("", "0", "false")
            if kind == "d":
                return from_ISO8601(text) if text else None
            if not text:
                return None
            number = float(text) if any(ch in text for ch in ".eE") else int(text)
            if style and int(style) in dates:
                try:
                    return from_excel(number, epoch, timedelta=dates[int(style)])
                except (ValueError, OverflowError):
                    return number  # outside the calendar: the number itself
            return number
        except (IndexError, KeyError, ValueError, OverflowError) as exc:
            raise XlsxError(f"cell value {text[:20]!r}: {exc}") from None

    return convert


def _member_count(content: bytes) -> int:
    """The central-directory records of the zip, counted before zipfile builds its directory.

    zipfile reads the directory by its byte size, not by the end record's 16-bit entry count (a file
    declaring 5 entries may hold 150,005), so the count is of the record signatures before the end
    record: never fewer than the records zipfile would read.
    """
    end = content.rfind(b"PK\x05\x06", max(0, len(content) - 22 - 65535))
    if end < 0 or end + 22 > len(content):
        raise XlsxError("not a zip file")
    return content.count(b"PK\x01\x02", 0, end)
