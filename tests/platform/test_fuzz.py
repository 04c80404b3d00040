"""Property-based fuzzing of the whole OpenAPI schema, in-process against the test database.

Every operation gets generated requests (as the signed-in owner of a workspace); each response must not
be a server error, every 4xx/5xx must be the error envelope, and status code, content type and body must
match the schema. ``FUZZ_EXAMPLES`` sets the examples per operation (CI default 3; ``make fuzz`` runs more).

The workspace holds one real object of every kind a path names (``fuzz_seed.py``), seeded once for the
module inside a transaction; path parameters are either a seeded id or a generated value (hypothesis
chooses, so both "found" and "not found" are exercised; in the coverage phase, body and query variants
use the seeded ids, path variants their own). Every request runs in a savepoint that is rolled
back afterwards, so a write that deletes or finishes a seeded object leaves it intact for the next one.
"""

import json
import os
from collections import Counter
from pathlib import Path

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, transaction
from django.test import Client, override_settings
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.core.parameters import ParameterLocation
from schemathesis.generation.meta import TestPhase
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.conftest import api_client_for, make_actor, make_workspace
from tests.platform.fuzz_seed import ALLOWED_PRIVATE_HOSTS, body_seeds, path_ids, seed_workspace

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "3"))
# The coverage phase (boundary and negative values for every parameter) is many requests per operation:
# on in `make fuzz`, off in the CI profile.
COVERAGE = os.environ.get("FUZZ_COVERAGE", "0") == "1"
# Also checks that status codes are documented and content types and bodies match the schema
# (FUZZ_CONFORMANCE=0 keeps only "no server error" and "errors in the envelope").
CONFORMANCE = os.environ.get("FUZZ_CONFORMANCE", "1") == "1"
CONFIG = schemathesis.Config.from_dict({"phases": {"coverage": {"enabled": COVERAGE}}})

# The schema /api/schema/ serves (same generator and hooks), built without a request so it loads at collection.
schema = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True), config=CONFIG)
schema.app = get_wsgi_application()  # config.wsgi minus its production start check


# Figures for docs/reliability.md: requests sent and status classes (FUZZ_STATS=<file> writes them as JSON).
STATS: Counter = Counter()


@pytest.fixture(scope="module", autouse=True)
def _write_stats():
    yield
    if path := os.environ.get("FUZZ_STATS"):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(dict(STATS), indent=1))


@schemathesis.check
def error_in_envelope(ctx, response, case):
    """Every 4xx/5xx is ``{"success": false, "error": {"code", "message", "details"}}``."""
    STATS["requests"] += 1
    STATS[f"{response.status_code // 100}xx"] += 1
    STATS[f"operation:{case.operation.label}"] = 1
    if response.status_code < 400:
        return None
    try:
        body = response.json()
    except Exception as exc:
        raise AssertionError(f"{response.status_code} is not JSON: {response.content[:200]!r}") from exc
    error = body.get("error") if isinstance(body, dict) else None
    assert body.get("success") is False and isinstance(error, dict), f"not the envelope: {body!r:.200}"
    assert {"code", "message", "details"} <= set(error), f"envelope without code/message/details: {error!r:.200}"
    return True


# Ids of the seeded objects, filled by the module fixture before any example is drawn.
SEEDED: dict[str, int] = {}


@schema.hook
def flatmap_path_parameters(context, path_parameters):
    """A seeded object's id or the generated value, per operation (hypothesis picks and shrinks)."""
    seeded = path_ids(context.operation.path, SEEDED)
    if not seeded:
        return st.just(path_parameters)
    return st.sampled_from([{**path_parameters, **seeded}, path_parameters])


@schema.hook
def flatmap_body(context, body):
    """The generated body, or it with one set of seeded parts laid over it (the rest stays generated)."""
    seeds = body_seeds(context.operation.path, SEEDED)
    if not seeds or not isinstance(body, dict):
        return st.just(body)
    return st.sampled_from([body, *({**body, **seed} for seed in seeds), *seeds])


@schemathesis.check
def object_fields_are_objects(ctx, response, case):
    """An object-typed body field sent as something else is a 400 naming it, in every content type
    (a form part that is not an object was silently read as ``{}``)."""
    if not isinstance(case.body, dict) or response.status_code in (401, 403, 404, 413, 415):
        return None
    body = case.operation.get_body_for_media_type(case.media_type or "application/json")
    properties = ((body.resolved_schema if body else None) or {}).get("properties", {})
    wrong = [
        name
        for name, value in case.body.items()
        if properties.get(name, {}).get("type") == "object" and value is not None and not isinstance(value, dict)
    ]
    if not wrong:
        return None
    assert response.status_code == 400, (
        f"{case.media_type} {wrong[0]}={case.body[wrong[0]]!r:.80} → {response.status_code}"
    )
    return True


@pytest.fixture(scope="module")
def seeded_headers(django_db_setup, django_db_blocker):
    """The workspace, its owner's token and the seeded objects, in a transaction rolled back at the end."""
    with django_db_blocker.unblock(), override_settings(BROWSER_ALLOWED_PRIVATE_HOSTS=ALLOWED_PRIVATE_HOSTS):
        outer = transaction.atomic()
        outer.__enter__()
        try:
            workspace = make_workspace("fuzz")
            actor = make_actor(workspace)
            SEEDED.update(seed_workspace(actor))
            client = api_client_for(actor.user, workspace)
            yield {"Authorization": client._credentials["HTTP_AUTHORIZATION"], "X-Workspace": workspace.slug}
        finally:
            SEEDED.clear()
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


@pytest.fixture
def fuzz_headers(seeded_headers, db):
    # Django's test Client disconnects this too: it would close the test transaction's connection.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield seeded_headers
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=EXAMPLES <= 5,
    suppress_health_check=list(HealthCheck),
)
def test_api_fuzz(case, fuzz_headers):
    checks = [not_a_server_error, error_in_envelope, object_fields_are_objects]
    if CONFORMANCE:
        checks += [status_code_conformance, content_type_conformance, response_schema_conformance]
    seeded = path_ids(case.operation.path, SEEDED)
    phase = case.meta.phase if case.meta else None
    if (
        seeded
        and phase
        and phase.name == TestPhase.COVERAGE
        and phase.data.parameter_location != ParameterLocation.PATH
    ):
        # The coverage phase varies one parameter at a time: body and query variants go to a real object,
        # path variants (0, -1, huge, text) keep their generated ids.
        case.path_parameters = {**case.path_parameters, **seeded}
    if seeded and all(str(case.path_parameters.get(k)) == str(v) for k, v in seeded.items()):
        STATS["requests_on_seeded_objects"] += 1
    with transaction.atomic():  # a savepoint: each request starts from the seeded state
        try:
            case.call_and_validate(headers=fuzz_headers, checks=checks)
        finally:
            transaction.set_rollback(True)


def test_seeded_bodies_in_every_content_type(fuzz_headers):
    """Each seeded body (``fuzz_seed.body_seeds``) is sent once per media type its operation accepts (JSON:
    multipart only where a file is uploaded), to the seeded object, under the same checks: the combinations
    a few generated examples may miss."""
    checks = [not_a_server_error, error_in_envelope, object_fields_are_objects]
    sent = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        seeds = body_seeds(operation.path, SEEDED)
        media_types = [body.media_type for body in operation.body] if seeds else []
        for seed in seeds:
            for media_type in media_types:
                case = operation.Case(
                    path_parameters=path_ids(operation.path, SEEDED), body=seed, media_type=media_type
                )
                with transaction.atomic():
                    try:
                        case.call_and_validate(headers=fuzz_headers, checks=checks)
                    finally:
                        transaction.set_rollback(True)
                sent += 1
    assert sent >= 4


def test_every_id_in_a_path_names_a_seeded_object():
    """A new endpoint with an id in its path needs a rule in ``fuzz_seed.path_ids`` (and an object)."""
    any_ids = KeyAll()
    missing = []
    for operation in schema.get_all_operations():
        operation = operation.ok()
        ids = [p.name for p in operation.path_parameters if p.name.endswith("_id")]
        seeded = path_ids(operation.path, any_ids)
        missing += [f"{operation.path} {name}" for name in ids if name not in seeded]
    assert missing == []


class KeyAll(dict):
    """Every seeded name answers an id (for checking the rules without seeding)."""

    def __getitem__(self, key):
        return 1


def test_a_destructive_request_leaves_the_seeded_object_for_the_next_one(fuzz_headers):
    from campaigns.models import Target

    target_id = SEEDED["target"]
    client = Client()
    headers = {"HTTP_AUTHORIZATION": fuzz_headers["Authorization"], "HTTP_X_WORKSPACE": fuzz_headers["X-Workspace"]}
    with transaction.atomic():
        try:
            assert client.delete(f"/api/v1/targets/{target_id}", **headers).status_code == 204
            assert not Target.objects.filter(pk=target_id, deleted_at__isnull=True).exists()
        finally:
            transaction.set_rollback(True)
    assert client.get(f"/api/v1/targets/{target_id}", **headers).status_code == 200
