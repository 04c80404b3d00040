"""Every time a person reads in an export is in the workspace's zone and calendar, like the pages — also when
the file is streamed after the request's activated zone is gone, and from the API (no page zone at all)."""

import csv
import io
from datetime import UTC, datetime

import pytest
from openpyxl import load_workbook

from campaigns.models import Target
from sms.models import BlacklistEntry
from tests.conftest import make_target

pytestmark = pytest.mark.django_db

RUN_AT = datetime(2026, 12, 4, 16, 8, tzinfo=UTC)  # 19:38 in Tehran, 13 Azar 1405
TEHRAN = "1405/09/13 19:38"


@pytest.fixture
def tehran(workspace):
    workspace.time_zone = "Asia/Tehran"
    workspace.save(update_fields=["time_zone"])
    return workspace


def test_the_targets_workbook_stamps_the_workspace_time(client, api, owner, tehran):
    target = make_target(tehran, name="بابک")
    Target.objects.filter(pk=target.pk).update(created_at=RUN_AT)
    client.force_login(owner)
    for response in (client.get("/targets/", {"export": "xlsx"}), api.get("/api/v1/targets/export")):
        rows = list(load_workbook(io.BytesIO(response.getvalue())).active.iter_rows(min_row=2, values_only=True))
        assert rows[0][-1] == TEHRAN


def test_the_blacklist_csv_stamps_the_workspace_time(client, api, owner, tehran):
    entry = BlacklistEntry.objects.create(workspace=tehran, value="+989121234567")
    BlacklistEntry.objects.filter(pk=entry.pk).update(created_at=RUN_AT)
    client.force_login(owner)
    for response in (client.get("/sms/blacklist/", {"export": "csv"}), api.get("/api/v1/sms/blacklist/export")):
        rows = list(csv.reader(io.StringIO(response.getvalue().decode())))
        assert rows[1][-1] == TEHRAN
