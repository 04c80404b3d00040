"""Generated permission and isolation cases for every API endpoint, discovered from the URLconf.

Every (method, path) drf-spectacular enumerates under ``/api/v1/`` gets, without a hand-written test:

- anonymous → 401 in the error envelope;
- a path naming another workspace's object → 404 (never 403), while the same request on the caller's own
  object answers something else (the case can fail);
- a write by a viewer (the role with only *view*) → 403, unless listed in ``VIEWER_WRITES``;
- a write (POST, PUT, PATCH, DELETE) with a field its body does not declare → 400 naming it, also where the
  operation takes no body at all (``takes_no_body``; every DELETE but those reading an expected revision) and in
  the one multipart body;
- a list (a paginated response in the schema) → the page envelope, honouring ``?page=&size=``, with ``has_more``
  and ``next``; ``size`` above 200 → 400 naming ``size``; a page past the end → an empty page, not a 404.

A new endpoint is covered the moment it is routed; it fails here when its path parameter has no factory
(``tests/api_world.py``), when it refuses a foreign object with anything but 404, or when a viewer may write.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

import pytest
from drf_spectacular.generators import EndpointEnumerator, SchemaGenerator

from campaigns.choices import CampaignStatus, Role
from campaigns.platform.tenancy import Actor
from tests.api_world import LINK, World
from tests.automation.helpers import end_node, linear_graph
from tests.conftest import api_client_for, make_member, make_workspace
from tests.workers.conftest import LIKE_STEPS, LOGIN_CHECK

PARAM = re.compile(r"{(\w+)}")
ENVELOPE = {"count", "count_capped", "page", "size", "results"}

# Writes a viewer may make: on their own notifications/follow-ups/API keys, or reads sent as POST (previews, counts).
VIEWER_WRITES = {
    ("POST", "/api/v1/api-keys"),
    ("DELETE", "/api/v1/api-keys/{key_id}"),
    ("POST", "/api/v1/notifications/{notification_id}/read"),
    ("POST", "/api/v1/notifications/read-all"),
    ("POST", "/api/v1/activities/{activity_id}/done"),
    ("POST", "/api/v1/activities/{activity_id}/reopen"),
    ("POST", "/api/v1/sms/preview"),
    ("POST", "/api/v1/campaign/audience/count"),
    ("POST", "/api/v1/campaign/inheritance/preview"),
    ("POST", "/api/v1/campaign/root/preview"),
    ("POST", "/api/v1/workflows/{workflow_id}/validate"),
}

# Valid bodies (from the caller's own objects) where a view checks its body before it looks the object up.
# Path parameters that are not integer ids: a word, a UUID.
SAMPLE_PARAMS = {"action": "pause", "migration_id": "00000000-0000-0000-0000-000000000001"}


def _versions_body(world: World) -> dict:
    version_id = world.get("workflow_id").published_version_id  # one version: found, then refused (400)
    return {"from_version_id": version_id, "to_version_id": version_id}


BODIES: dict[tuple[str, str], Callable[[World], dict]] = {
    ("POST", "/api/v1/workflows/{workflow_id}/migrations/preview"): _versions_body,
    ("POST", "/api/v1/workflows/{workflow_id}/migrations"): _versions_body,
    ("POST", "/api/v1/browser/accounts/{account_id}/status"): lambda w: {"transition": "expire"},
    ("POST", "/api/v1/campaigns"): lambda w: {
        "kind": "journey",
        "name": "کمپین",
        "workflow_id": w.get("workflow_id").pk,
    },
    ("PUT", "/api/v1/browser/campaigns/{campaign_id}"): lambda w: {
        "name": "کمپین",
        "platform": "demo",
        "accounts": [w.get("account_id").pk],
        "target_links": [LINK],
        "action": "like",
        "steps": LIKE_STEPS,
        "login_check": LOGIN_CHECK,
    },
    ("POST", "/api/v1/campaign-runs/{run_id}/rerun"): lambda w: {"expected_chain_revision": 1},
    ("POST", "/api/v1/campaign/{campaign_id}/run-now"): lambda w: {"expected_chain_revision": 1},
    ("PUT", "/api/v1/campaigns/{campaign_id}/auto-enroll"): lambda w: {"filters": {"province": "فارس"}},
    ("POST", "/api/v1/campaigns/{campaign_id}/auto-enroll/existing-count"): lambda w: {"filters": {"province": "فارس"}},
    ("POST", "/api/v1/campaigns/{campaign_id}/enrollments"): lambda w: {"target_ids": [w.get("target_id").pk]},
    ("POST", "/api/v1/campaigns/{campaign_id}/executions/bulk"): lambda w: {"execution_ids": [1], "action": "pause"},
    ("PUT", "/api/v1/targets/{target_id}"): lambda w: {"name": "مخاطب", "mobile": "+989121112233"},
    ("PUT", "/api/v1/workflows/{workflow_id}/graph"): lambda w: linear_graph(end_node()),
}


@cache
def endpoints() -> list[tuple[str, str]]:
    found = {
        (method, path)
        for path, _regex, method, _view in EndpointEnumerator().get_api_endpoints()
        if path.startswith("/api/v1/")
    }
    return sorted(found, key=lambda e: (e[1], e[0]))


@cache
def paginated() -> set[str]:
    """GET paths whose 200 response is the page envelope in the schema."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema.get("components", {}).get("schemas", {})
    paths = set()
    for path, operations in schema["paths"].items():
        body = operations.get("get", {}).get("responses", {}).get("200", {}).get("content", {})
        ref = body.get("application/json", {}).get("schema", {}).get("$ref", "")
        properties = components.get(ref.rsplit("/", 1)[-1], {}).get("properties", {})
        if {"results", "count_capped"} <= set(properties):
            paths.add(path)
    return paths


def _ids(endpoint) -> str:
    return f"{endpoint[0]} {endpoint[1]}"


WITH_OBJECT = [e for e in endpoints() if PARAM.search(e[1])]
WRITES = [e for e in endpoints() if e[0] != "GET" and e not in VIEWER_WRITES]
BODY_WRITES = [e for e in endpoints() if e[0] in ("POST", "PUT", "PATCH", "DELETE")]
MULTIPART = {("POST", "/api/v1/targets/import")}  # the one body with a file
UNKNOWN_FIELD = "zz_undeclared"
# A list without numbered pages: a target's SMS conversation pages backwards by cursor only (docs/api.md).
CURSOR_ONLY = {"/api/v1/sms/conversations/{target_id}"}


def _url(world: World, path: str) -> str:
    return PARAM.sub(lambda m: str(world.id_for(path, m.group(1))), path)


def _call(client, method: str, url: str, path: str, world: World):
    body = BODIES[(method, path)](world) if (method, path) in BODIES else {}
    return getattr(client, method.lower())(url, body, format="json") if method != "GET" else client.get(url)


def _error_code(response) -> str:
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    body = response.json()
    assert body["success"] is False and body["error"]["code"], body
    return body["error"]["code"]


@pytest.fixture
def worlds(db, settings):
    settings.BROWSER_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:8766"]  # the browser campaigns' demo link
    mine, theirs = make_workspace("mine"), make_workspace("theirs")
    return World(mine, make_member(mine, Role.OWNER)), World(theirs, make_member(theirs, Role.OWNER))


def test_the_urlconf_is_discovered():
    found = endpoints()
    assert (
        len(found) > 100 and ("GET", "/api/v1/targets") in found and ("DELETE", "/api/v1/targets/{target_id}") in found
    )
    assert {"/api/v1/targets", "/api/v1/sms/attempts"} <= paginated()
    assert VIEWER_WRITES <= set(found), "an exemption names an endpoint that no longer exists"


@pytest.mark.django_db
@pytest.mark.parametrize("endpoint", endpoints(), ids=_ids)
def test_anonymous_request_is_401(client, endpoint):
    method, path = endpoint
    url = PARAM.sub(lambda m: SAMPLE_PARAMS.get(m.group(1), "1"), path)
    response = getattr(client, method.lower())(url, {}, content_type="application/json")
    assert response.status_code == 401, response.content[:300]
    assert _error_code(response) == "NOT_AUTHENTICATED"


@pytest.mark.parametrize("endpoint", WITH_OBJECT, ids=_ids)
def test_another_workspaces_object_is_404(worlds, endpoint):
    method, path = endpoint
    own, foreign = worlds
    client = api_client_for(own.user, own.workspace)
    response = _call(client, method, _url(foreign, path), path, own)
    assert response.status_code == 404, response.content[:300]
    assert "NOT_FOUND" in _error_code(response)
    control = _call(client, method, _url(own, path), path, own)
    assert control.status_code != 404, f"the own object must be found: {control.content[:300]}"


@pytest.mark.parametrize("endpoint", WRITES, ids=_ids)
def test_a_viewer_may_not_write(worlds, endpoint):
    method, path = endpoint
    own, _ = worlds
    url = _url(own, path)  # the objects exist (made by the owner); the viewer only reads them
    viewer = make_member(own.workspace, Role.VIEWER)
    response = _call(api_client_for(viewer, own.workspace), method, url, path, own)
    assert response.status_code == 403, response.content[:300]
    assert _error_code(response) == "PERMISSION_DENIED"


@pytest.mark.parametrize("endpoint", BODY_WRITES, ids=_ids)
def test_an_unknown_body_field_is_a_400_naming_it(worlds, endpoint):
    """Every write, whether it takes a body or none: an undeclared field is refused, never dropped in silence."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    method, path = endpoint
    own, _ = worlds
    client = api_client_for(own.user, own.workspace)
    if endpoint in MULTIPART:
        upload = SimpleUploadedFile("t.csv", b"mobile\n09121112233\n", content_type="text/csv")
        response = client.post(_url(own, path), {"file": upload, UNKNOWN_FIELD: "1"}, format="multipart")
    else:
        body = BODIES[(method, path)](own) if (method, path) in BODIES else {}
        response = getattr(client, method.lower())(_url(own, path), {**body, UNKNOWN_FIELD: 1}, format="json")
    assert response.status_code == 400, response.content[:300]
    assert _error_code(response) == "VALIDATION_ERROR"
    assert UNKNOWN_FIELD in response.json()["error"]["details"], response.content[:300]


@pytest.mark.parametrize(
    "path", sorted(p for p in paginated() if not PARAM.search(p)) + sorted(p for p in paginated() if PARAM.search(p))
)
def test_a_list_answers_the_page_envelope(worlds, path):
    own, _ = worlds
    client = api_client_for(own.user, own.workspace)
    response = client.get(_url(own, path), {"page": 1, "size": 1})
    assert response.status_code == 200, response.content[:300]
    body = response.json()
    assert set(body) >= ENVELOPE | {"has_more", "next"} and body["page"] == 1 and body["size"] == 1
    assert len(body["results"]) <= 1 and body["has_more"] is (body["next"] is not None)
    for size in (201, 100000):
        too_big = client.get(_url(own, path), {"size": size})
        assert too_big.status_code == 400, (size, too_big.content[:300])
        assert list(too_big.json()["error"]["details"]) == ["size"], too_big.content[:300]
    if path in CURSOR_ONLY:
        return
    past_the_end = client.get(_url(own, path), {"page": 1000, "size": 200})
    assert past_the_end.status_code == 200, past_the_end.content[:300]
    body = past_the_end.json()
    assert (body["results"], body["has_more"], body["next"]) == ([], False, None), path


def _rev(world: World) -> int:
    root = world.get("chain_root")
    root.refresh_from_db()
    return root.chain_revision


def _group_rev(world: World) -> int:
    group = world.get("group_id")
    group.refresh_from_db()
    return group.revision


def _draft(world: World, client, url: str) -> None:
    from automation.services.workflows import workflow_new_draft

    workflow_new_draft(actor=world.actor, workflow_id=world.get("workflow_id").pk)


def _failed_task(world: World, client, url: str) -> None:
    from workers.choices import TaskStatus

    type(task := world.get("task_id")).objects.filter(pk=task.pk).update(status=TaskStatus.FAILED)


def _draft_browser_campaign(world: World, client, url: str) -> None:
    campaign = world.get("browser_campaign")
    type(campaign).objects.filter(pk=campaign.pk).update(status=CampaignStatus.DRAFT)


def _older_to_newer(world: World) -> dict:
    """The workflow's published version and a newer one published after it (made once)."""
    from automation.services.workflows import workflow_new_draft, workflow_publish

    if not hasattr(world, "_versions"):
        workflow = world.get("workflow_id")
        older = workflow.published_version_id
        workflow_new_draft(actor=world.actor, workflow_id=workflow.pk)
        newer = workflow_publish(actor=world.actor, workflow_id=workflow.pk)
        world._versions = {"from_version_id": older, "to_version_id": newer.pk}
    return world._versions


def _ungrouped_root(world: World) -> int:
    from tests.chains.conftest import make_chain

    return make_chain(world.workspace)["A"].pk


def _other_group(world: World) -> int:
    from tests.chains.conftest import make_group

    return make_group(world.workspace).pk


def _colleague(world: World) -> Actor:
    """A second owner of the world's workspace: submits what the caller then decides (four eyes)."""
    if not hasattr(world, "_colleague"):
        user = make_member(world.workspace, Role.OWNER)
        world._colleague = Actor(user=user, workspace=world.workspace, membership=user.memberships.get())
    return world._colleague


def _submitted(world: World, client, url: str) -> dict:
    """The world's chain submitted by a colleague: the write names its package and submitted revision."""
    from campaigns.chains.services.approval import campaign_submit

    _, package = campaign_submit(
        actor=_colleague(world), campaign_id=world.get("chain_root").pk, expected_chain_revision=_rev(world)
    )
    return {
        "url": re.sub(r"/campaign-chain-approvals/\d+/", f"/campaign-chain-approvals/{package.pk}/", url),
        "body": {"expected_submitted_revision": package.submitted_revision, "reason": "نه"},
    }


def _approved(world: World, client, url: str, *, paused: bool = False) -> dict:
    """The world's chain approved (and paused, to be resumed): the write reads its new revision."""
    from campaigns.chains.services.approval import campaign_submit, chain_control_set, package_approve

    _, package = campaign_submit(
        actor=_colleague(world), campaign_id=world.get("chain_root").pk, expected_chain_revision=_rev(world)
    )
    package_approve(actor=world.actor, package_id=package.pk, expected_submitted_revision=package.submitted_revision)
    if paused:
        chain_control_set(
            actor=world.actor,
            campaign_id=world.get("chain_root").pk,
            action="pause",
            expected_chain_revision=_rev(world),
        )
    return {"body": {"expected_chain_revision": _rev(world)}}


def _root_alone(world: World, client, url: str) -> None:
    """The world's chain root without its follow-ups."""
    root = world.get("chain_root")
    type(root).objects.filter(root=root).exclude(pk=root.pk).order_by("-pk").delete()


def _standalone(world: World, client, url: str) -> None:
    """The world's chain root as a standalone campaign of its group (no follow-ups, no chain)."""
    _root_alone(world, client, url)
    root = world.get("chain_root")
    type(root).objects.filter(pk=root.pk).update(root=None)


def _standalone_submitted(world: World, client, url: str) -> None:
    _standalone(world, client, url)
    root = world.get("chain_root")
    type(root).objects.filter(pk=root.pk).update(status=CampaignStatus.SUBMITTED)


def _finished_run(world: World, client, url: str) -> dict:
    """The world's run ended with a frozen (empty) audience, its chain approved: a run that may be run again."""
    from campaigns.chains.run_models import RunAudienceSnapshot
    from campaigns.chains.runs.choices import RunStatus, SnapshotStatus

    run = world.get("run_id")
    snapshot = RunAudienceSnapshot.objects.create(
        workspace=world.workspace, run=run, attempt_no=1, status=SnapshotStatus.FROZEN
    )
    type(run).objects.filter(pk=run.pk).update(status=RunStatus.COMPLETED, target_snapshot=snapshot)
    return _approved(world, client, url)


def _empty_group(world: World, client, url: str) -> None:
    root = world.get("chain_root")
    type(root).objects.filter(group=world.get("group_id")).update(group=None)


# What a write needs its object to be in first (a done activity to reopen, a paused platform to resume …),
# done inside the write's savepoint.
PREPARE: dict[tuple[str, str], Callable] = {
    ("POST", "/api/v1/activities/{activity_id}/reopen"): lambda w, c, url: c.post(url.replace("/reopen", "/done")),
    ("POST", "/api/v1/browser/platforms/{platform_id}/resume"): lambda w, c, url: c.post(
        url.replace("/resume", "/pause")
    ),
    ("POST", "/api/v1/browser/tasks/{task_id}/retry"): _failed_task,
    ("DELETE", "/api/v1/campaign/{campaign_id}"): _root_alone,
    ("POST", "/api/v1/campaign-runs/{run_id}/rerun"): _finished_run,
    ("POST", "/api/v1/campaign/{campaign_id}/approve"): _standalone_submitted,
    ("POST", "/api/v1/campaign/{campaign_id}/reject"): _standalone_submitted,
    ("DELETE", "/api/v1/campaign-groups/{group_id}"): _empty_group,
    ("DELETE", "/api/v1/campaign-groups/{group_id}/campaigns/{campaign_id}"): _standalone,
    ("POST", "/api/v1/campaign-groups/{group_id}/campaigns/{campaign_id}/move"): _standalone,
    ("POST", "/api/v1/campaign-chain-approvals/{package_id}/approve"): _submitted,
    ("POST", "/api/v1/campaign-chain-approvals/{package_id}/reject"): _submitted,
    ("POST", "/api/v1/campaign-chain-approvals/{package_id}/withdraw"): _submitted,
    ("POST", "/api/v1/campaign/{campaign_id}/chain/pause"): _approved,
    ("POST", "/api/v1/campaign/{campaign_id}/chain/resume"): lambda w, c, url: _approved(w, c, url, paused=True),
    ("POST", "/api/v1/campaign/{campaign_id}/chain/stop"): _approved,
    ("POST", "/api/v1/campaign/{campaign_id}/run-now"): _approved,
    ("PUT", "/api/v1/browser/campaigns/{campaign_id}"): _draft_browser_campaign,
    ("POST", "/api/v1/campaigns/{campaign_id}/journey/{action}"): lambda w, c, url: c.post(
        url.replace("/pause", "/activate")
    ),
    ("PUT", "/api/v1/workflows/{workflow_id}/defaults"): _draft,
    ("PUT", "/api/v1/workflows/{workflow_id}/graph"): _draft,
    ("POST", "/api/v1/workflows/{workflow_id}/publish"): _draft,
    ("POST", "/api/v1/workflows/{workflow_id}/validate"): _draft,
}


# Valid bodies for the writes whose body is required (merged over ``BODIES``), so the write succeeds and its
# answer is checked against the schema; a callable may also put the object in the state the write needs.
VALID_BODIES: dict[tuple[str, str], Callable[[World], dict]] = {
    ("POST", "/api/v1/browser/accounts"): lambda w: {"label": "حساب", "platform": "demo"},
    ("POST", "/api/v1/browser/action-configs"): lambda w: {
        "platform": "demo",
        "action_type": "like",
        "steps": LIKE_STEPS,
        "login_check": LOGIN_CHECK,
    },
    ("POST", "/api/v1/browser/proxies"): lambda w: {"host": "93.184.216.34", "port": 3128},
    ("PATCH", "/api/v1/browser/proxies/{proxy_id}"): lambda w: {"host": "93.184.216.34", "port": 3128},
    ("POST", "/api/v1/campaign"): lambda w: {
        "name": "ریشه",
        "campaign_group_id": w.get("group_id").pk,
        "when": {"type": "MONTHLY", "day": 1, "time": "09:00"},
        "goal": {"type": "TARGET_STATUS", "statuses": ["converted"]},
        "chain_action": {"channel": "sms", "content": "سلام"},
    },
    ("POST", "/api/v1/campaign-chain-approvals/{package_id}/approve"): lambda w: {"expected_submitted_revision": 2},
    ("POST", "/api/v1/campaign-chain-approvals/{package_id}/reject"): lambda w: {
        "expected_submitted_revision": 2,
        "reason": "نه",
    },
    ("POST", "/api/v1/campaign-chain-approvals/{package_id}/withdraw"): lambda w: {"expected_submitted_revision": 2},
    ("POST", "/api/v1/campaign-groups"): lambda w: {"name": "گروه تازه"},
    ("PUT", "/api/v1/campaign-groups/{group_id}"): lambda w: {"name": "گروه دیگر", "expected_revision": _group_rev(w)},
    ("DELETE", "/api/v1/campaign-groups/{group_id}"): lambda w: {"expected_revision": _group_rev(w)},
    ("DELETE", "/api/v1/campaign-groups/{group_id}/campaigns/{campaign_id}"): lambda w: {
        "expected_revision": _group_rev(w)
    },
    ("POST", "/api/v1/campaign/audience/count"): lambda w: {"source_target_list_id": w.get("list_id").pk},
    ("DELETE", "/api/v1/campaign/{campaign_id}"): lambda w: {"expected_chain_revision": _rev(w)},
    ("POST", "/api/v1/campaign/{campaign_id}/submit"): lambda w: {"expected_chain_revision": _rev(w)},
    ("POST", "/api/v1/campaign/{campaign_id}/chain/pause"): lambda w: {"expected_chain_revision": _rev(w)},
    ("POST", "/api/v1/campaign/{campaign_id}/chain/resume"): lambda w: {"expected_chain_revision": _rev(w)},
    ("POST", "/api/v1/campaign/{campaign_id}/chain/stop"): lambda w: {"expected_chain_revision": _rev(w)},
    ("POST", "/api/v1/campaigns/{campaign_id}/enrollments/preview"): lambda w: {"target_ids": [w.get("target_id").pk]},
    ("POST", "/api/v1/conversion-events"): lambda w: {
        "target_id": w.get("target_id").pk,
        "name": "purchase",
        "occurred_at": "2026-03-01T08:00:00Z",
    },
    ("POST", "/api/v1/sms/blacklist"): lambda w: {"number": "09121234567"},
    ("POST", "/api/v1/sms/blacklist/import"): lambda w: {"numbers": ["09121234568"]},
    ("POST", "/api/v1/sms/inbound/read"): lambda w: {"ids": [w.get("message_id").pk]},
    ("POST", "/api/v1/sms/preview"): lambda w: {"body": "سلام"},
    ("POST", "/api/v1/sms/templates"): lambda w: {"name": "قالب تازه", "body": "سلام"},
    ("POST", "/api/v1/target-lists"): lambda w: {"name": "فهرست تازه"},
    ("POST", "/api/v1/targets"): lambda w: {"name": "مخاطب", "mobile": "+989121112244"},
    ("POST", "/api/v1/targets/bulk"): lambda w: {"rows": [{"name": "مخاطب", "mobile": "+989121112255"}]},
    ("POST", "/api/v1/webhooks"): lambda w: {"url": "https://93.184.216.34/hook", "events": ["webhook.test"]},
    ("POST", "/api/v1/workflows"): lambda w: {"name": "گردش تازه"},
    ("POST", "/api/v1/campaign-groups/{group_id}/campaigns"): lambda w: {"campaign_ids": [_ungrouped_root(w)]},
    ("POST", "/api/v1/campaign-groups/{group_id}/campaigns/{campaign_id}/move"): lambda w: {
        "to_group_id": _other_group(w),
        "expected_revision": _group_rev(w),
    },
    ("POST", "/api/v1/campaign/inheritance/preview"): lambda w: {
        "source_campaign_id": w.get("chain_root").pk,
        "schedule": {"type": "AFTER_INTERVAL", "offset_days": 2, "run_time": "09:00"},
    },
    ("PUT", "/api/v1/campaign/{campaign_id}"): lambda w: {"expected_chain_revision": _rev(w), "name": "ریشه دیگر"},
    ("POST", "/api/v1/workflows/{workflow_id}/migrations/preview"): _older_to_newer,
    ("POST", "/api/v1/workflows/{workflow_id}/migrations"): _older_to_newer,
}


def test_every_successful_write_answer_declares_every_key(worlds):
    """Each write on the caller's own objects with a valid body (``VALID_BODIES``, else ``BODIES``, else none; the
    import its CSV file), its object first put in the state it needs (``PREPARE``), in a rolled-back savepoint.
    Every write must answer 2xx, and a JSON answer is validated strictly (``declared.py``) against the
    operation's documented answer for that status, so a key a write adds without declaring it fails with its place."""
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.db import transaction

    from tests.platform.declared import response_schema, undeclared

    own, _ = worlds
    client = api_client_for(own.user, own.workspace)
    served = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    problems, checked, refused = {}, [], {}
    for method, path in BODY_WRITES:
        url = _url(own, path)  # made outside the savepoint: the world keeps its objects
        body = VALID_BODIES.get((method, path), BODIES.get((method, path), lambda w: {}))(own)
        with transaction.atomic():
            prepared = PREPARE[(method, path)](own, client, url) if (method, path) in PREPARE else None
            if isinstance(prepared, dict):  # the object the write names, or its revision, changed
                url = prepared.get("url", url)
                body = {**body, **{k: v for k, v in prepared.get("body", {}).items() if k in body}}
            if (method, path) in MULTIPART:
                upload = SimpleUploadedFile("t.csv", b"mobile\n09121112233\n", content_type="text/csv")
                response = client.post(url, {"file": upload}, format="multipart")
            else:
                response = getattr(client, method.lower())(url, body, format="json")
            transaction.set_rollback(True)
        label = f"{method} {path}"
        if response.status_code >= 300:
            error = response.json()["error"]
            refused[label] = f"{response.status_code} {error['code']} {str(error['details'])[:150]}"
            continue
        schema = response_schema(served, path, str(response.status_code), method.lower())
        if schema is None:
            if response.content:
                problems[label] = [f"{response.status_code} undocumented body {response.content[:100]!r}"]
            continue
        checked.append(label)
        if found := undeclared(response.json(), schema):
            problems[label] = found
    assert problems == {}
    assert refused == {}, "every write reaches a 2xx with its valid body: add one to VALID_BODIES or PREPARE"
    assert len(checked) >= 80 and "POST /api/v1/campaign-chain-approvals/{package_id}/approve" in checked
