"""Small .xlsx files that unfold into millions of strings or cells: bounded in the request and the task."""

import io
import json
import os
import struct
import subprocess
import sys
import tracemalloc
import zipfile
from datetime import datetime
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from openpyxl import Workbook, load_workbook

from campaigns.choices import ImportStatus, Role
from campaigns.models import Target, TargetImport
from campaigns.services.imports import PHONE_COLUMN_MESSAGE, target_import_process, target_import_start
from campaigns.tables import _cell, read_header, read_rows

from ..conftest import api_client_for, make_member

pytestmark = pytest.mark.django_db

MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
DOC = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
CT = "application/vnd.openxmlformats-officedocument.spreadsheetml"


def workbook_parts(rows_xml: str, strings_xml: str = "") -> dict[str, str]:
    """The parts of a minimal workbook (openpyxl opens it too): one sheet, a shared-strings part."""
    return {
        "[Content_Types].xml": (
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            f'<Override PartName="/xl/workbook.xml" ContentType="{CT}.sheet.main+xml"/>'
            f'<Override PartName="/xl/worksheets/sheet1.xml" ContentType="{CT}.worksheet+xml"/>'
            f'<Override PartName="/xl/sharedStrings.xml" ContentType="{CT}.sharedStrings+xml"/></Types>'
        ),
        "_rels/.rels": f'<Relationships xmlns="{RELS}"><Relationship Id="rId1" '
        f'Type="{DOC}/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": f'<workbook xmlns="{MAIN}" xmlns:r="{DOC}"><sheets>'
        '<sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": f'<Relationships xmlns="{RELS}">'
        f'<Relationship Id="rId1" Type="{DOC}/worksheet" Target="worksheets/sheet1.xml"/>'
        f'<Relationship Id="rId2" Type="{DOC}/sharedStrings" Target="sharedStrings.xml"/></Relationships>',
        "xl/worksheets/sheet1.xml": f'<worksheet xmlns="{MAIN}"><sheetData>{rows_xml}</sheetData></worksheet>',
        "xl/sharedStrings.xml": f'<sst xmlns="{MAIN}">{strings_xml}</sst>',
    }


def workbook_zip(rows_xml: str, strings_xml: str = "") -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, text in workbook_parts(rows_xml, strings_xml).items():
            archive.writestr(name, text)
    return out.getvalue()


HEADER_ROW = '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>'
DATA_ROW = '<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>9120000001</v></c></row>'
STRINGS = "<si><t>name</t></si><si><t>phone</t></si><si><t>علی</t></si>"


def peak_bytes(call) -> tuple[object, int]:
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def upload(user, workspace, name: str, content: bytes):
    api = api_client_for(user, workspace)
    return api.post("/api/v1/targets/import", {"file": SimpleUploadedFile(name, content)}, format="multipart")


def start(actor, content: bytes, django_capture_on_commit_callbacks) -> TargetImport:
    with django_capture_on_commit_callbacks(execute=False):
        return target_import_start(actor=actor, file_name="bomb.xlsx", content=content)


@pytest.mark.timeout(120)
def test_shared_strings_bomb_costs_the_request_only_the_header_and_fails_the_import(
    actor, settings, django_capture_on_commit_callbacks
):
    settings.IMPORT_MAX_STRINGS = 300_000
    content = workbook_zip(HEADER_ROW + DATA_ROW, STRINGS + "<si><t/></si>" * 1_500_000)
    assert len(content) < 100_000  # ~20 MB of shared strings behind a small file
    started, request_peak = peak_bytes(lambda: start(actor, content, django_capture_on_commit_callbacks))
    assert started.status == ImportStatus.PENDING
    assert request_peak < 8 * 1024 * 1024  # openpyxl held ~100 MB here: the whole table as Python strings
    done, task_peak = peak_bytes(lambda: target_import_process(import_id=started.id))
    assert done.status == ImportStatus.FAILED
    assert "متن یکتا" in done.error and "۳۰۰۰۰۰" in done.error
    assert task_peak < 16 * 1024 * 1024  # the table is bytes plus offsets, not 300,000 str objects
    assert done.content is None and not Target.objects.exists()


@pytest.mark.timeout(120)
def test_many_cells_bomb_fails_the_import_at_the_cell_limit(actor, settings, django_capture_on_commit_callbacks):
    settings.IMPORT_MAX_CELLS = 100_000
    wide = '<row r="2">' + "<c/>" * 3_000_000 + "</row>"  # cells right of the header's columns count too
    content = workbook_zip(HEADER_ROW + wide, STRINGS)
    assert len(content) < 100_000
    started = start(actor, content, django_capture_on_commit_callbacks)
    done, peak = peak_bytes(lambda: target_import_process(import_id=started.id))
    assert done.status == ImportStatus.FAILED
    assert "خانه" in done.error and "۱۰۰۰۰۰" in done.error
    assert peak < 8 * 1024 * 1024


def test_a_string_longer_than_excel_allows_fails_the_import(actor, django_capture_on_commit_callbacks):
    content = workbook_zip(HEADER_ROW + DATA_ROW, STRINGS + f"<si><t>{'x' * 40_000}</t></si>")
    done = target_import_process(import_id=start(actor, content, django_capture_on_commit_callbacks).id)
    assert done.status == ImportStatus.FAILED and "۳۲۷۶۷" in done.error


def test_the_strings_together_are_bounded(actor, settings, django_capture_on_commit_callbacks):
    settings.IMPORT_MAX_STRING_BYTES = 1024 * 1024
    content = workbook_zip(HEADER_ROW + DATA_ROW, STRINGS + f"<si><t>{'x' * 20_000}</t></si>" * 60)
    done = target_import_process(import_id=start(actor, content, django_capture_on_commit_callbacks).id)
    assert done.status == ImportStatus.FAILED and "مگابایت" in done.error


def test_a_header_string_past_the_limit_is_refused_at_upload(workspace):
    user = make_member(workspace, Role.MANAGER)
    header = '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>99999999</v></c></row>'
    response = upload(user, workspace, "bomb.xlsx", workbook_zip(header, STRINGS))
    assert response.status_code == 400
    assert "متن یکتا" in response.json()["error"]["details"]["file"][0]
    assert not TargetImport.objects.exists()


def test_a_header_too_deep_for_the_request_is_checked_by_the_task(actor, django_capture_on_commit_callbacks):
    filler = "<si><t>filler</t></si>" * 200_000  # 4 MB before the header's strings: past the request's budget
    header = '<row r="1"><c r="A1" t="s"><v>200003</v></c><c r="B1" t="s"><v>200004</v></c></row>'
    content = workbook_zip(header + DATA_ROW, STRINGS + filler + "<si><t>name</t></si><si><t>city</t></si>")
    assert read_header("a.xlsx", content) is None
    header_cells, _rows = read_rows("a.xlsx", content)
    assert header_cells == ["name", "city"]  # what the task reads
    started = start(actor, content, django_capture_on_commit_callbacks)
    done = target_import_process(import_id=started.id)
    assert (done.status, done.error) == (ImportStatus.FAILED, PHONE_COLUMN_MESSAGE)


def test_entity_declarations_are_refused(workspace):
    user = make_member(workspace, Role.MANAGER)
    laughs = '<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
    content = workbook_zip(HEADER_ROW, "")
    source = zipfile.ZipFile(io.BytesIO(content))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for item in source.infolist():
            data = source.read(item.filename)
            archive.writestr(item, laughs.encode() + data if item.filename.endswith("sheet1.xml") else data)
    response = upload(user, workspace, "bomb.xlsx", out.getvalue())
    assert response.status_code == 400
    assert "خوانده نشد" in response.json()["error"]["details"]["file"][0]


def test_ordinary_workbooks_read_as_openpyxl_reads_them(actor):
    workbook = Workbook()
    sheet = workbook.active
    sheet.append(["name", "phone", "joined", "score", "vip", "note"])
    sheet.append(["مریم", 9123456789, datetime(2024, 3, 20, 8, 30), 12.5, True, None])
    sheet.append([None, None, None, None, None, None])
    sheet.append(["رضا", "09351112233", datetime(1999, 1, 1), -3, False, "=1+1"])
    sheet["A10"] = "دور"
    sheet["B10"] = 1.5e10
    buffer = io.BytesIO()
    workbook.save(buffer)
    content = buffer.getvalue()
    header, rows = read_rows("a.xlsx", content)
    expected = list(load_workbook(io.BytesIO(content), read_only=True, data_only=True).active.values)
    assert header == [_cell(v) for v in expected[0]] == read_header("a.xlsx", content)
    wanted = [(line, [_cell(v) for v in row]) for line, row in enumerate(expected[1:], start=2) if any(row)]
    assert list(rows) == wanted
    assert wanted[0][1][2] == "2024-03-20 08:30:00" and wanted[-1][0] == 10


# --- bombs measured in a process of their own: peak memory (VmHWM) of reading one file ---

READER = """
import json, resource, sys, time
import django
django.setup()
from campaigns.services.imports import _too_large_message
from campaigns.tables import FileTooLarge, read_rows
content = open(sys.argv[1], "rb").read()
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # an unbounded reader dies here, not the machine
started = time.monotonic()
try:
    header, rows = read_rows("bomb.xlsx", content)
    result = f"read {sum(1 for _ in rows)} rows"
except FileTooLarge as exc:
    result = _too_large_message(exc)
except MemoryError:
    result = "MemoryError"
seconds = time.monotonic() - started
usage = resource.getrusage(resource.RUSAGE_SELF)
cpu_seconds = usage.ru_utime + usage.ru_stime
# the high-water mark of this process's own memory (ru_maxrss would carry the forking parent's over exec)
peak_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"result": result, "seconds": seconds, "cpu_seconds": cpu_seconds, "peak_mb": peak_kb / 1024}))
"""
PHONE_HEADER = '<row r="1"><c r="A1" t="inlineStr"><is><t>phone</t></is></c></row>'


def streamed_bomb(path: Path, head: str, unit: str, count: int, tail: str = "") -> bytes:
    """A workbook whose sheet is ``head`` + ``unit`` × ``count`` + ``tail``, written without holding it."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, text in workbook_parts("", "").items():
            if name != "xl/worksheets/sheet1.xml":
                archive.writestr(name, text)
        with archive.open("xl/worksheets/sheet1.xml", "w") as sheet:
            sheet.write(f'<worksheet xmlns="{MAIN}"><sheetData>{head}'.encode())
            block = (unit * 100_000).encode()
            for _ in range(count // 100_000):
                sheet.write(block)
            sheet.write(f"{tail}</sheetData></worksheet>".encode())
    return path.read_bytes()


def read_in_a_process(path: Path) -> dict:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", READER, str(path)], cwd=root, env=env, capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


BOMBS = {
    # expat keeps a stack entry per open element: ~30 M unclosed <a> took the reader past 4 GB
    "unclosed nested elements": (PHONE_HEADER, "<a>", 30_000_000, "", "تودرتو"),
    # elements the reader does not use cost time only: 20 M of them took ~20 s
    "millions of fillers": (PHONE_HEADER + '<row r="2">', "<x/>", 20_000_000, "</row>", "جزء دارد"),
    # one tag of 50 MB: expat holds an unfinished tag whole, then Python builds its attributes
    "one huge tag": (PHONE_HEADER + '<row r="2"><c r="A2" title="', "a", 50_000_000, '"/></row>', "تودرتو"),
}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("bomb", BOMBS, ids=list(BOMBS))
def test_a_small_xml_bomb_is_refused_quickly_within_200_mb(bomb, tmp_path):
    head, unit, count, tail, message = BOMBS[bomb]
    content = streamed_bomb(tmp_path / "bomb.xlsx", head, unit, count, tail)
    assert len(content) < 120_000
    measured = read_in_a_process(tmp_path / "bomb.xlsx")
    assert message in measured["result"], measured
    assert measured["peak_mb"] < 200, measured
    # bounded work (IMPORT_MAX_XML_ELEMENTS at most): ~10 s of one core, Django's start included; unbounded, the
    # fillers took a minute. CPU time, not wall time: a shared machine's load does not make it fail.
    assert measured["cpu_seconds"] < 45, measured


def test_an_ordinary_workbook_reads_within_the_bounds_in_a_process(tmp_path):
    rows = "".join(
        f'<row r="{n}"><c r="A{n}" t="inlineStr"><is><t>0912{n:07d}</t></is></c></row>' for n in range(2, 20_002)
    )
    (tmp_path / "ok.xlsx").write_bytes(workbook_zip(PHONE_HEADER + rows))
    measured = read_in_a_process(tmp_path / "ok.xlsx")
    assert measured["result"] == "read 20000 rows", measured


def with_declared_entries(content: bytes, declared: int) -> bytes:
    """The same zip with its end record claiming ``declared`` entries (a 16-bit field zipfile ignores)."""
    end = content.rfind(b"PK\x05\x06")
    return content[: end + 8] + struct.pack("<HH", declared, declared) + content[end + 12 :]


def test_the_zip_directory_is_bounded_by_its_records_not_its_declared_count(workspace):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in workbook_parts(HEADER_ROW + DATA_ROW, STRINGS).items():
            archive.writestr(name, text)
        for n in range(1_000):
            archive.writestr(f"filler/{n}.xml", "")
    content = with_declared_entries(out.getvalue(), 5)
    assert len(zipfile.ZipFile(io.BytesIO(content)).infolist()) == 1_006  # what zipfile would build
    response = upload(make_member(workspace, Role.MANAGER), workspace, "bomb.xlsx", content)
    assert response.status_code == 400
    assert "بیش از حد بزرگ" in response.json()["error"]["details"]["file"][0]
    assert not TargetImport.objects.exists()


def test_the_bulk_import_preview_reads_with_the_budget_of_its_rows(actor, tmp_path):
    from campaigns.platform.errors import ValidationFailed
    from workers.services.imports import import_preview

    header = (
        '<row r="1"><c r="A1" t="inlineStr"><is><t>label</t></is></c>'
        '<c r="B1" t="inlineStr"><is><t>platform</t></is></c></row><row r="2">'
    )
    content = streamed_bomb(tmp_path / "accounts.xlsx", header, "<x/>", 5_000_000, "</row>")

    def preview():
        with pytest.raises(ValidationFailed) as refused:
            import_preview(actor=actor, kind="accounts", file_name="accounts.xlsx", content=content)
        return refused.value

    refused, peak = peak_bytes(preview)
    assert "بیش از حد بزرگ" in str(refused.details["file"])
    # a preview (a web request) of at most 1,000 rows spends the elements of 1,000 rows, not of an import
    assert peak < 16 * 1024 * 1024
