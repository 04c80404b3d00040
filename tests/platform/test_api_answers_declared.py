"""Every GET answer of the API holds only what the served schema declares, typed as declared.

One workspace is seeded with an object of every kind a path names (``fuzz_seed.py``, as the fuzzer's) and
every GET operation of the schema ``/api/schema/`` serves is called on its seeded objects. Each JSON answer is
validated against the operation's documented response, made strict (``declared.py``): an object schema that
says nothing of other properties gets ``additionalProperties: false`` (recursively, components included), so a
key the view adds without declaring it — invisible to a generated client — fails here with its path in the answer.
"""

from __future__ import annotations

import re

import pytest
from django.db import transaction
from django.test import override_settings

from tests.conftest import api_client_for, make_actor, make_workspace
from tests.platform.declared import response_schema, strict, undeclared
from tests.platform.fuzz_seed import ALLOWED_PRIVATE_HOSTS, path_ids, seed_workspace

PARAM = re.compile(r"{(\w+)}")
# Path parameters that are not a seeded object's id.
SAMPLE_PARAMS = {"action": "pause"}


@pytest.fixture
def seeded(db):
    with override_settings(BROWSER_ALLOWED_PRIVATE_HOSTS=ALLOWED_PRIVATE_HOSTS):
        workspace = make_workspace("answers")
        actor = make_actor(workspace)
        ids = seed_workspace(actor)
        actor.user.is_staff = True  # the journeys' health is staff only
        actor.user.save(update_fields=["is_staff"])
        yield api_client_for(actor.user, workspace), ids


def test_strict_refuses_an_undeclared_key_and_accepts_a_declared_null():
    schema = {
        **strict({"$ref": "#/components/schemas/A"}),
        "components": {
            "schemas": strict({"A": {"type": "object", "properties": {"n": {"type": "integer", "nullable": True}}}})
        },
    }
    assert undeclared({"n": None}, schema) == []
    assert undeclared({"n": 1, "extra": []}, schema) != []


def _get(client, url: str, query: dict | None = None):
    with transaction.atomic():
        response = client.get(url, query or {})
        transaction.set_rollback(True)
    return response


def test_every_get_answer_declares_every_key(seeded):
    """Each GET on the seeded objects; a list's one-item page and the page its ``next`` names (a cursor answer
    where the list pages by keyset); and the 404 of a path naming no object."""
    client, ids = seeded
    served = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    gets = sorted(path for path, ops in served["paths"].items() if path.startswith("/api/v1/") and "get" in ops)
    problems, checked, followed = {}, [], []

    def check(path: str, label: str, response, status: str = "200") -> None:
        if response.status_code != int(status):
            problems[f"{label} {path}"] = [f"answered {response.status_code}: {response.content[:200]!r}"]
        elif found := undeclared(response.json(), response_schema(served, path, status)):
            problems[f"{label} {path}"] = found

    for path in gets:
        if response_schema(served, path) is None:
            continue  # a file (CSV, XLSX, PNG) or no body
        known = {**SAMPLE_PARAMS, **path_ids(path, ids)}
        url = PARAM.sub(lambda m, known=known: str(known[m.group(1)]), path)
        response = _get(client, url)
        check(path, "GET", response)
        checked.append(path)
        if response.status_code == 200 and "results" in response.json():
            first = _get(client, url, {"size": 1})
            check(path, "size=1", first)
            if first.status_code == 200 and (after := first.json().get("next")):
                check(path, "next", _get(client, url, {"cursor": after, "size": 1}))
                followed.append(path)
        if PARAM.search(path):
            missing = PARAM.sub(lambda m: SAMPLE_PARAMS.get(m.group(1), "2147483000"), path)
            check(path, "404", _get(client, missing), "404")
    assert problems == {}
    assert len(checked) > 60 and "/api/v1/targets/{target_id}/timeline" in checked and len(followed) > 3
    timeline = client.get(f"/api/v1/targets/{ids['target']}/timeline").json()
    assert [row["why_not_sent"] for row in timeline["left_out"]] == ["blacklisted"]  # the items were checked too
