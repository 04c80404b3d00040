"""A real broker and a real worker: an uploaded import is processed in the background."""

import time

import pytest
from celery.contrib.testing.worker import start_worker
from django.core.files.uploadedfile import SimpleUploadedFile

from campaigns.models import Target, TargetImport
from config.celery import app

from ..conftest import api_client_for, make_member, make_workspace


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_import_runs_on_a_celery_worker_through_the_broker():
    workspace = make_workspace()
    client = api_client_for(make_member(workspace), workspace)
    lines = ["name,phone"] + [f"t{i},0912100{i:04d}" for i in range(30)]
    upload = SimpleUploadedFile("a.csv", ("\n".join(lines) + "\n").encode(), "text/csv")
    with start_worker(app, pool="solo", perform_ping_check=False, queues=["default"], shutdown_timeout=30):
        response = client.post("/api/v1/targets/import", {"file": upload}, format="multipart")
        assert response.status_code == 202
        import_id = response.json()["id"]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if TargetImport.objects.get(pk=import_id).status == "completed":
                break
            time.sleep(0.2)
    done = TargetImport.objects.get(pk=import_id)
    assert (done.status, done.created_count) == ("completed", 30)
    assert Target.objects.filter(workspace=workspace).count() == 30
