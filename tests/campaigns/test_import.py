"""Target import from .csv/.xlsx: every row gets an outcome; good rows never lost."""

import io

import pytest
from openpyxl import Workbook

from campaigns.choices import ImportOutcome, ImportStatus
from campaigns.models import Target, TargetImport, TargetImportRow
from campaigns.services import imports
from campaigns.services.imports import target_import_process, target_import_start

from ..conftest import make_list, make_target

pytestmark = pytest.mark.django_db


def csv_bytes(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode("utf-8")


def xlsx_bytes(rows: list[list]) -> bytes:
    workbook = Workbook()
    for row in rows:
        workbook.active.append(row)
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def run_import(actor, name, content, django_capture_on_commit_callbacks, **kwargs) -> TargetImport:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        started = target_import_start(actor=actor, file_name=name, content=content, **kwargs)
    assert len(callbacks) == 1  # the background task is dispatched on commit, once
    assert started.status == ImportStatus.PENDING
    return target_import_process(import_id=started.id)


def outcomes(target_import) -> dict[int, tuple[str, str]]:
    return {r.row_number: (r.outcome, r.reason) for r in TargetImportRow.objects.filter(target_import=target_import)}


def test_mixed_phone_column_is_classified_by_number(actor, django_capture_on_commit_callbacks):
    content = csv_bytes(
        [
            "نام,تلفن,شهر",
            "علی,09123456789,تهران",
            "دفتر مرکزی,021-88776655,تهران",
            "مریم,۰۹۳۵۱۱۱۲۲۳۳,اصفهان",
        ]
    )
    done = run_import(actor, "list.csv", content, django_capture_on_commit_callbacks)
    assert (done.status, done.created_count, done.total_rows, done.processed_rows) == ("completed", 3, 3, 3)
    by_name = {t.name: t for t in Target.objects.all()}
    assert by_name["علی"].mobile == "+989123456789" and by_name["علی"].landline is None
    assert by_name["دفتر مرکزی"].landline == "+982188776655" and by_name["دفتر مرکزی"].mobile is None
    assert by_name["مریم"].city == "اصفهان"
    assert done.content is None  # the phone list is not kept after the import


def test_numbers_in_the_wrong_named_columns_still_land_right(actor, django_capture_on_commit_callbacks):
    content = xlsx_bytes([["name", "mobile", "landline"], ["x", "02188776655", 9123456789]])
    run_import(actor, "a.xlsx", content, django_capture_on_commit_callbacks)
    target = Target.objects.get()
    assert (target.mobile, target.landline) == ("+989123456789", "+982188776655")


def test_one_bad_row_among_good_ones(actor, django_capture_on_commit_callbacks):
    content = csv_bytes(["name,phone", "a,09120000001", "b,not-a-number", "c,09120000003", "d,", "e,09120000005"])
    done = run_import(actor, "a.csv", content, django_capture_on_commit_callbacks)
    assert (done.created_count, done.invalid_count) == (3, 2)
    rows = outcomes(done)
    assert rows[3][0] == ImportOutcome.INVALID and "not-a-number" in rows[3][1]
    assert rows[5][0] == ImportOutcome.INVALID
    assert sorted(Target.objects.values_list("name", flat=True)) == ["a", "c", "e"]


def test_duplicates_in_file_and_existing_targets(actor, workspace, django_capture_on_commit_callbacks):
    make_target(workspace, mobile="+989120000001", name="قدیمی", city="")
    content = csv_bytes(
        [
            "name,phone,city",
            "a,09120000001,شیراز",  # existing → updated
            "b,09120000002,",  # new
            "b again,+989120000002,",  # repeats row 3 → duplicate
        ]
    )
    done = run_import(actor, "a.csv", content, django_capture_on_commit_callbacks)
    rows = outcomes(done)
    assert [rows[n][0] for n in (2, 3, 4)] == ["updated", "created", "duplicate"]
    assert "3" in rows[4][1]
    updated = Target.objects.get(mobile="+989120000001")
    assert (updated.name, updated.city) == ("a", "شیراز")
    assert Target.objects.count() == 2


def test_existing_targets_untouched_when_update_is_off(actor, workspace, django_capture_on_commit_callbacks):
    make_target(workspace, mobile="+989120000001", name="قدیمی")
    content = csv_bytes(["name,phone", "new name,09120000001"])
    done = run_import(actor, "a.csv", content, django_capture_on_commit_callbacks, update_existing=False)
    assert done.duplicate_count == 1
    assert Target.objects.get().name == "قدیمی"


def test_row_whose_numbers_belong_to_two_targets_is_invalid(actor, workspace, django_capture_on_commit_callbacks):
    make_target(workspace, mobile="+989120000001")
    make_target(workspace, landline="+982188776655")
    done = run_import(
        actor, "a.csv", csv_bytes(["name,mobile,tel", "x,09120000001,02188776655"]), django_capture_on_commit_callbacks
    )
    assert done.invalid_count == 1


def test_import_adds_to_list_and_keeps_unknown_columns_as_attributes(
    actor, workspace, django_capture_on_commit_callbacks
):
    tl = make_list(workspace)
    content = csv_bytes(["نام,موبایل,کد مشتری", "الف,09120000001,C-17"])
    run_import(actor, "a.csv", content, django_capture_on_commit_callbacks, target_list_id=tl.id)
    target = Target.objects.get()
    assert list(target.lists.all()) == [tl]
    assert target.attributes == {"کد مشتری": "C-17"}


def test_resumes_after_a_crash_and_a_second_run_changes_nothing(actor, monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setattr(imports, "BATCH_SIZE", 2)
    lines = ["name,phone"] + [f"t{i},0912000{i:04d}" for i in range(7)]
    with django_capture_on_commit_callbacks(execute=False):
        started = target_import_start(actor=actor, file_name="a.csv", content=csv_bytes(lines))
    # simulate a worker that died after committing two batches
    real_batch = imports._process_batch
    calls = {"n": 0}

    def dying_batch(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("worker killed")
        return real_batch(*args, **kwargs)

    monkeypatch.setattr(imports, "_process_batch", dying_batch)
    with pytest.raises(RuntimeError):
        target_import_process(import_id=started.id)
    partial = TargetImport.objects.get(pk=started.id)
    assert (partial.status, partial.processed_rows, partial.total_rows) == ("processing", 4, 7)
    monkeypatch.setattr(imports, "_process_batch", real_batch)
    done = target_import_process(import_id=started.id)  # redelivered task
    assert (done.status, done.processed_rows, done.created_count) == ("completed", 7, 7)
    target_import_process(import_id=started.id)  # delivered once more: nothing changes
    assert Target.objects.count() == 7
    assert TargetImportRow.objects.filter(target_import_id=started.id).count() == 7


@pytest.mark.parametrize(
    ("name", "content", "message_part"),
    [
        ("a.txt", b"x", ".xlsx"),
        ("a.csv", b"name,city\nx,y\n", "ستون"),
        ("a.xlsx", b"not a zip", "فایل"),
    ],
)
def test_bad_files_are_refused_with_a_clear_error(actor, name, content, message_part):
    from campaigns.platform.errors import ValidationFailed

    with pytest.raises(ValidationFailed) as exc:
        target_import_start(actor=actor, file_name=name, content=content)
    assert message_part in exc.value.details["file"][0]
    assert not TargetImport.objects.exists()


def test_api_upload_returns_202_and_the_report_is_readable(api, django_capture_on_commit_callbacks):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("a.csv", csv_bytes(["name,phone", "a,09120000001", "b,bad"]), "text/csv")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = api.post("/api/v1/targets/import", {"file": upload}, format="multipart")
    assert response.status_code == 202, response.content
    import_id = response.json()["id"]
    assert len(callbacks) == 1
    target_import_process(import_id=import_id)
    report = api.get(f"/api/v1/targets/imports/{import_id}").json()
    assert (report["status"], report["created_count"], report["invalid_count"], report["progress_percent"]) == (
        "completed",
        1,
        1,
        100,
    )
    invalid = api.get(f"/api/v1/targets/imports/{import_id}/rows", {"outcome": "invalid"}).json()["results"]
    assert [r["row_number"] for r in invalid] == [3]


def test_export_roundtrips_through_import(api, workspace, actor, django_capture_on_commit_callbacks):
    from openpyxl import load_workbook

    tl = make_list(workspace, "وفادار")
    original = make_target(
        workspace, mobile="+989120000001", landline="+982188776655", name="الف", city="تهران", status="interested"
    )
    original.lists.add(tl)
    response = api.get("/api/v1/targets/export")
    assert response.streaming  # written as it is sent
    content = response.getvalue()
    sheet = load_workbook(io.BytesIO(content)).active
    rows = list(sheet.iter_rows(values_only=True))
    assert rows[1][:7] == ("الف", None, None, "0912 000 0001", "021 8877 6655", "علاقه‌مند", None)
    Target.objects.all().delete()
    done = run_import(actor, "export.xlsx", content, django_capture_on_commit_callbacks)
    assert (done.created_count, done.invalid_count) == (1, 0)
    copy = Target.objects.get()
    assert (copy.landline, copy.status, copy.city, copy.attributes) == ("+982188776655", "interested", "تهران", {})
    assert list(copy.lists.all()) == [tl]


def test_a_new_list_is_made_only_for_an_accepted_file(actor, workspace, django_capture_on_commit_callbacks):
    from campaigns.models import TargetList
    from campaigns.platform.errors import ValidationFailed

    for name, content in (("a.txt", b"x"), ("a.csv", csv_bytes(["name,city", "x,y"]))):  # wrong type, no phone column
        with pytest.raises(ValidationFailed):
            target_import_start(actor=actor, file_name=name, content=content, new_list_name="سرنخ‌ها")
    assert not TargetList.objects.filter(workspace=workspace).exists()
    done = run_import(
        actor,
        "a.csv",
        csv_bytes(["name,mobile", "x,09121234567"]),
        django_capture_on_commit_callbacks,
        new_list_name=" سرنخ‌ها ",
    )
    target_list = TargetList.objects.get(workspace=workspace)
    assert (target_list.name, done.target_list_id) == ("سرنخ‌ها", target_list.id)
    assert list(target_list.targets.values_list("name", flat=True)) == ["x"]
    with pytest.raises(ValidationFailed) as taken:  # the name is taken now: refused on the list field, nothing made
        target_import_start(
            actor=actor, file_name="b.csv", content=csv_bytes(["mobile", "09121234568"]), new_list_name="سرنخ‌ها"
        )
    assert "new_list" in taken.value.details
    assert TargetImport.objects.count() == 1


def test_a_persian_sheet_fills_first_and_last_name_and_the_full_name(
    actor, client, owner, django_capture_on_commit_callbacks
):
    from types import SimpleNamespace

    from automation.engine.variables import render

    content = xlsx_bytes([["نام", "نام خانوادگی", "موبایل"], ["بابک", "احمدی", "09123456789"]])
    done = run_import(actor, "people.xlsx", content, django_capture_on_commit_callbacks)
    target = Target.objects.get()
    assert (target.first_name, target.last_name, target.name) == ("بابک", "احمدی", "بابک احمدی")
    rendered = render("یادآوری برای {target.name}", SimpleNamespace(subject=target, target=target))
    assert rendered.text == "یادآوری برای بابک احمدی"

    client.force_login(owner)
    html = client.get(f"/targets/import/{done.id}/").content.decode()
    mapping = html.split('data-testid="import-mapping"')[1].split("</details>")[0]
    rows = [r.split("</tr>")[0] for r in mapping.split('data-testid="import-mapping-row"')[1:]]
    assert "<td>نام</td><td>نام کوچک</td>" in rows[0]
    assert "<td>نام خانوادگی</td><td>نام خانوادگی</td>" in rows[1]
    assert "<td>موبایل</td><td>شماره تلفن</td>" in rows[2]
    assert "<td>«نام» + «نام خانوادگی»</td><td>نام کامل</td>" in rows[3]


def test_a_full_name_column_stays_the_full_name(actor, django_capture_on_commit_callbacks):
    content = csv_bytes(["نام,نام کامل,نام خانوادگی,موبایل", "بابک,بابک احمدی‌نژاد,احمدی‌نژاد,09123456789"])
    run_import(actor, "people.csv", content, django_capture_on_commit_callbacks)
    target = Target.objects.get()
    assert (target.first_name, target.name) == ("بابک", "بابک احمدی‌نژاد")
