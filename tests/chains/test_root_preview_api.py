"""``POST /api/v1/campaign/root/preview``: a root's next run dates for a schedule being typed, in the caller's
workspace's zone and calendar (what the root form shows), nothing saved."""

from __future__ import annotations

import pytest
import time_machine

from campaigns.chains.node_models import ChainNode
from tests.conftest import api_client_for, make_member, make_workspace

from .runs_helpers import at

pytestmark = pytest.mark.django_db

URL = "/api/v1/campaign/root/preview"
MONTHLY_1 = {"type": "MONTHLY", "day": "1", "time": "09:00"}


def _client(**workspace):
    shop = make_workspace("shop", **workspace)
    return api_client_for(make_member(shop), shop)


def test_next_runs_in_a_jalali_tehran_workspace():
    api = _client(time_zone="Asia/Tehran", settings={"calendar": "jalali"})
    with time_machine.travel(at(2026, 9, 20), tick=False):  # 1405/06/29
        response = api.post(URL, {"when": MONTHLY_1, "runs": 3}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert (body["time_zone"], body["calendar"], body["recurring"], body["ends"]) == (
        "Asia/Tehran",
        "jalali",
        True,
        False,
    )
    assert [r["shown"] for r in body["runs"]] == ["1405/07/01 09:00", "1405/08/01 09:00", "1405/09/01 09:00"]
    assert body["runs"][0]["at"] == "2026-09-23T05:30:00Z" and body["runs"][0]["weekday"] == "چهارشنبه"
    assert body["errors"] == {} and not ChainNode.objects.exists()  # nothing saved


def test_each_workspace_gets_its_own_zone_and_calendar():
    tehran = _client(time_zone="Asia/Tehran", settings={"calendar": "jalali"})
    berlin = _client(time_zone="Europe/Berlin", settings={})
    with time_machine.travel(at(2026, 9, 20), tick=False):
        mine = tehran.post(URL, {"when": MONTHLY_1, "runs": 1}, format="json").json()
        theirs = berlin.post(URL, {"when": MONTHLY_1, "runs": 1}, format="json").json()
    assert mine["runs"][0]["shown"] == "1405/07/01 09:00"  # the 1st of Mehr, Tehran
    assert (theirs["time_zone"], theirs["calendar"]) == ("Europe/Berlin", "gregorian")
    assert theirs["runs"][0]["at"] == "2026-10-01T07:00:00Z"  # 09:00 on the 1st of October, Berlin


def test_a_wrong_schedule_answers_its_field_errors_and_a_wrong_body_400():
    api = _client(time_zone="Asia/Tehran", settings={"calendar": "jalali"})
    wrong = api.post(URL, {"when": {"type": "MONTHLY", "time": "25:00"}}, format="json")
    assert wrong.status_code == 200 and wrong.json()["runs"] == [] and wrong.json()["errors"]
    assert api.post(URL, {"when": MONTHLY_1, "runs": 50}, format="json").status_code == 400
    assert api.post(URL, {"when": MONTHLY_1, "nmae": 1}, format="json").status_code == 400
