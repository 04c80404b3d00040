"""Import bombs and poison rows: bounded reading, per-cell validation, a crash cap, size before reading."""

import io
import re
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from openpyxl import Workbook

from campaigns.choices import ImportOutcome, ImportStatus, Role
from campaigns.models import Target, TargetImport, TargetImportRow
from campaigns.services import imports
from campaigns.services.imports import target_import_process, target_import_start
from campaigns.tables import read_rows

from ..conftest import api_client_for, make_actor, make_member, make_target

pytestmark = pytest.mark.django_db


def xlsx_bytes(rows: list[list]) -> bytes:
    workbook = Workbook()
    for row in rows:
        workbook.active.append(row)
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def edit_sheet_xml(content: bytes, edit) -> bytes:
    """Rewrite xl/worksheets/sheet1.xml inside the workbook zip."""
    source = zipfile.ZipFile(io.BytesIO(content))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = edit(data.decode()).encode()
            target.writestr(item, data)
    return out.getvalue()


def bomb_xlsx(extra_xml: str = "") -> bytes:
    """A tiny workbook (header + 2 rows) that declares the largest possible sheet, A1:XFD1048576."""
    plain = xlsx_bytes([["name", "phone"], ["a", "09120000001"], ["b", "09120000002"]])

    def edit(xml: str) -> str:
        xml, n = re.subn(r'<dimension ref="[^"]*"\s*/>', '<dimension ref="A1:XFD1048576"/>', xml)
        assert n == 1
        return xml.replace("</sheetData>", extra_xml + "</sheetData>")

    return edit_sheet_xml(plain, edit)


def start_and_run(actor, name, content, django_capture_on_commit_callbacks) -> TargetImport:
    with django_capture_on_commit_callbacks(execute=False):
        started = target_import_start(actor=actor, file_name=name, content=content)
    return target_import_process(import_id=started.id)


@pytest.mark.timeout(60)  # generous: before the fix this file kept a worker busy for ~20 minutes
def test_import_bomb_declared_dimension_is_not_trusted(actor, django_capture_on_commit_callbacks):
    content = bomb_xlsx()
    assert len(content) < 10_000
    header, rows = read_rows("bomb.xlsx", content)
    rows = list(rows)
    assert header == ["name", "phone"]
    assert [len(cells) for _, cells in rows] == [2, 2]  # only the header's columns, no padding to XFD
    done = start_and_run(actor, "bomb.xlsx", content, django_capture_on_commit_callbacks)
    assert (done.status, done.total_rows, done.processed_rows, done.created_count) == ("completed", 2, 2, 2)


@pytest.mark.timeout(60)
def test_import_bomb_row_far_below_stops_at_the_row_cap(actor, settings, django_capture_on_commit_callbacks):
    settings.IMPORT_MAX_ROWS = 1000
    far = '<row r="1048576"><c r="A1048576" t="inlineStr"><is><t>x</t></is></c></row>'
    done = start_and_run(actor, "bomb.xlsx", bomb_xlsx(far), django_capture_on_commit_callbacks)
    assert done.status == ImportStatus.FAILED
    assert "ردیف" in done.error
    assert done.processed_rows == 0 and not Target.objects.exists()
    assert done.content is None


def test_import_bomb_too_many_columns_refused_at_upload(actor, settings):
    from campaigns.platform.errors import ValidationFailed

    settings.IMPORT_MAX_COLUMNS = 5
    content = xlsx_bytes([["name", "phone"] + [f"c{i}" for i in range(10)], ["a", "09120000001"]])
    with pytest.raises(ValidationFailed) as exc:
        target_import_start(actor=actor, file_name="wide.xlsx", content=content)
    assert "ستون" in exc.value.details["file"][0]
    assert not TargetImport.objects.exists()


def test_import_bomb_upload_is_header_checked_and_rows_counted_in_background(
    actor, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(imports, "BATCH_SIZE", 2)
    parses = {"n": 0}
    real_read_rows = imports.read_rows

    def counting_read_rows(*args, **kwargs):
        parses["n"] += 1
        return real_read_rows(*args, **kwargs)

    monkeypatch.setattr(imports, "read_rows", counting_read_rows)
    lines = ["name,phone"] + [f"t{i},0912000{i:04d}" for i in range(9)]
    with django_capture_on_commit_callbacks(execute=False):
        started = target_import_start(actor=actor, file_name="a.csv", content=("\n".join(lines) + "\n").encode())
    assert started.total_rows == 0  # the upload request does not walk the rows
    parses["n"] = 0
    done = target_import_process(import_id=started.id)
    assert (done.status, done.total_rows, done.created_count) == ("completed", 9, 9)
    assert parses["n"] == 2  # one count + one walk for five batches, not one parse per batch


def test_import_poison_row_over_long_name_is_one_invalid_row(actor, django_capture_on_commit_callbacks):
    long_name = "ن" * 250  # Target.name holds 200: PostgreSQL raised DataError for the whole batch
    lines = [
        "name,phone,city",
        "a,09120000001,",
        f"{long_name},09120000002,",
        "c,09120000003,",
        f"d,09120000004,{'x' * 81}",
    ]
    done = start_and_run(actor, "a.csv", ("\n".join(lines) + "\n").encode(), django_capture_on_commit_callbacks)
    assert (done.status, done.created_count, done.invalid_count) == ("completed", 2, 2)
    rows = {r.row_number: r for r in TargetImportRow.objects.filter(target_import=done)}
    assert rows[3].outcome == ImportOutcome.INVALID and "۲۵۰" in rows[3].reason and "۲۰۰" in rows[3].reason
    assert rows[5].outcome == ImportOutcome.INVALID and "شهر" in rows[5].reason
    assert sorted(Target.objects.values_list("name", flat=True)) == ["a", "c"]


def test_import_poison_row_huge_priority_is_a_warning_not_a_crash(actor, django_capture_on_commit_callbacks):
    lines = ["name,phone,priority", "a,09120000001,99999999999999999999"]
    done = start_and_run(actor, "a.csv", ("\n".join(lines) + "\n").encode(), django_capture_on_commit_callbacks)
    assert (done.status, done.created_count) == ("completed", 1)
    assert Target.objects.get().priority == 0


def test_import_crashing_every_run_ends_failed(actor, settings, monkeypatch, django_capture_on_commit_callbacks):
    settings.IMPORT_MAX_ATTEMPTS = 3
    with django_capture_on_commit_callbacks(execute=False):
        started = target_import_start(actor=actor, file_name="a.csv", content=b"name,phone\na,09120000001\n")

    def crash(*args, **kwargs):
        raise RuntimeError("poison batch")

    monkeypatch.setattr(imports, "_process_batch", crash)
    for _ in range(3):
        with pytest.raises(RuntimeError):
            target_import_process(import_id=started.id)
    failed = TargetImport.objects.get(pk=started.id)
    assert failed.status == ImportStatus.FAILED
    assert failed.content is None and failed.finished_at is not None
    assert "۳" in failed.error
    # the resume job no longer picks it up, and a late redelivery changes nothing
    assert imports.target_imports_resume(stale_after_seconds=0) == []
    assert target_import_process(import_id=started.id).status == ImportStatus.FAILED


def test_import_oversize_upload_refused_before_reading(client, workspace, settings, monkeypatch):
    settings.IMPORT_MAX_BYTES = 1000
    user = make_member(workspace, Role.MANAGER)
    client.force_login(user)

    def never(*args, **kwargs):
        raise AssertionError("the file must not be read")

    monkeypatch.setattr(imports, "read_rows", never)
    big = SimpleUploadedFile("big.csv", b"name,phone\n" + b"a,09120000001\n" * 20_000, "text/csv")
    response = client.post("/targets/import/", {"file": big})
    assert response.status_code == 400
    assert "مگابایت" in response.content.decode()
    api = api_client_for(user, workspace)
    big.seek(0)
    response = api.post("/api/v1/targets/import", {"file": big}, format="multipart")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert not TargetImport.objects.exists()


def test_import_oversize_file_stops_the_body_parser(rf, settings):
    """The upload handler stops reading the body at the limit instead of spooling all of it."""
    from django.core.handlers.wsgi import WSGIRequest

    settings.IMPORT_MAX_BYTES = 1000
    request = rf.post("/x", {"file": SimpleUploadedFile("a.csv", b"x" * 500_000)})
    read = {"n": 0}
    stream = request._stream

    class Counting:
        def read(self, *args):
            data = stream.read(*args)
            read["n"] += len(data)
            return data

        def readline(self, *args):
            data = stream.readline(*args)
            read["n"] += len(data)
            return data

    assert isinstance(request, WSGIRequest)
    request._stream = Counting()
    request.META["CONTENT_LENGTH"] = "2000"  # a client that under-declares: the handler still stops it
    assert "file" not in request.FILES
    assert request.upload_too_large
    assert read["n"] < 500_000


def test_operator_cannot_read_import_rows_of_targets_they_do_not_own(
    workspace, owner, django_capture_on_commit_callbacks
):
    operator = make_member(workspace, Role.OPERATOR)
    others = make_target(workspace, mobile="+989120000001", name="مال دیگری", owner=owner)
    manager_actor = make_actor(workspace, Role.MANAGER)
    manager_import = start_and_run(
        manager_actor, "m.csv", b"name,phone\nx,09120000001\n", django_capture_on_commit_callbacks
    )
    api = api_client_for(operator, workspace)
    assert api.get(f"/api/v1/targets/imports/{manager_import.id}/rows").status_code == 404
    assert api.get(f"/api/v1/targets/imports/{manager_import.id}").status_code == 404
    # the operator's own import that touched someone else's target reveals neither it nor its name
    operator_actor = make_actor(workspace, user=operator)
    content = b"name,phone\nmine,09120000002\nclash,09120000001\n"
    own_import = start_and_run(operator_actor, "o.csv", content, django_capture_on_commit_callbacks)
    rows = api.get(f"/api/v1/targets/imports/{own_import.id}/rows").json()["results"]
    assert [r["row_number"] for r in rows] == [2, 3]
    assert rows[1]["target_id"] is None and others.name not in rows[1]["reason"]
    TargetImportRow.objects.filter(target_import=own_import, row_number=3).update(target=others)
    rows = api.get(f"/api/v1/targets/imports/{own_import.id}/rows").json()["results"]
    assert [r["row_number"] for r in rows] == [2]
