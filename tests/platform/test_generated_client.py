"""A client generated with openapi-python-client from the served schema drives the journey, the chain and the
browser flows — every call through the generated functions and models, no hand-written request.

The generator is a pinned development dependency (requirements-dev.txt); the client is generated once per
test run into a temporary folder and talks to the WSGI application in process (httpx's WSGI transport), so
the flows run inside each test's transaction like any API test.
"""

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.core import signals
from django.core.handlers.wsgi import WSGIHandler
from django.db import close_old_connections

from campaigns.platform.tokens import api_token_create
from tests.automation.helpers import setup_sms
from tests.chains.conftest import audience_list, make_group
from tests.conftest import make_member

pytestmark = pytest.mark.django_db

PACKAGE = "campaigns_api_client"
# The generator reads JSON, text and application/octet-stream bodies only: the downloads' media types are read
# as octet-stream (its ``content_type_overrides``; docs/api.md "Downloads").
BINARY_TYPES = {
    "image/png": "application/octet-stream",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "application/octet-stream",
    "text/csv": "application/octet-stream",
}
_BIN = Path(sys.executable).parent
_generated: dict[str, object] = {}


def _generator() -> str:
    found = shutil.which("openapi-python-client", path=str(_BIN)) or os.environ.get("OPENAPI_PYTHON_CLIENT")
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail("openapi-python-client is not installed: requirements-dev.txt pins it (make venv)")
    pytest.skip("openapi-python-client is not installed (make venv installs requirements-dev.txt)")


def _transport():
    import httpx

    return httpx.WSGITransport(app=WSGIHandler())


def _generated_package(tmp_path_factory, token: str):
    """The client package generated from ``GET /api/schema/`` (once per run)."""
    if PACKAGE in _generated:
        return _generated[PACKAGE]
    generator = _generator()
    import httpx

    with httpx.Client(transport=_transport(), base_url="http://testserver") as http:
        served = http.get("/api/schema/", params={"format": "json"}, headers={"Authorization": f"Token {token}"})
    assert served.status_code == 200, served.text[:300]
    folder = tmp_path_factory.mktemp("client")
    (folder / "schema.json").write_bytes(served.content)
    env = {**os.environ, "PATH": f"{_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    (folder / "config.json").write_text(json.dumps({"content_type_overrides": BINARY_TYPES}))
    command = [generator, "generate", "--path", str(folder / "schema.json"), "--meta", "none"]
    command += ["--config", str(folder / "config.json")]
    result = subprocess.run(
        [*command, "--output-path", str(folder / PACKAGE)], capture_output=True, text=True, env=env, timeout=300
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    sys.path.insert(0, str(folder))
    _generated[PACKAGE] = importlib.import_module(PACKAGE)
    return _generated[PACKAGE]


class Api:
    """The generated package and a client of one member: ``api.call("targets", "targets_create", body=…)``."""

    def __init__(self, package, client):
        self.package, self.client = package, client
        self.models = importlib.import_module(f"{PACKAGE}.models")

    def call(self, area: str, operation: str, expect: int = 200, **kwargs):
        module = importlib.import_module(f"{PACKAGE}.api.{area}.{operation}")
        response = module.sync_detailed(client=self.client, **kwargs)
        assert response.status_code == expect, (operation, response.status_code, response.content[:500])
        return response.parsed


@pytest.fixture(autouse=True)
def _requests_keep_the_test_connection():
    """As Django's test client: a request's end does not close the connection holding the test's transaction."""
    for signal in (signals.request_started, signals.request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (signals.request_started, signals.request_finished):
        signal.connect(close_old_connections)


@pytest.fixture
def api_for(tmp_path_factory, workspace):
    def make(user):
        _, key = api_token_create(user=user, workspace=workspace)
        package = _generated_package(tmp_path_factory, key)
        client = package.AuthenticatedClient(
            base_url="http://testserver",
            token=key,
            prefix="Token",
            headers={"X-Workspace": workspace.slug},
            httpx_args={"transport": _transport()},
            raise_on_unexpected_status=True,
        )
        return Api(package, client)

    return make


@pytest.fixture
def gen(api_for, owner):
    return api_for(owner)


def test_a_journey_flow(gen, workspace):
    m = gen.models
    setup_sms(workspace)
    targets = [
        gen.call("targets", "targets_create", 201, body=m.TargetInputRequest(name=f"مخاطب {i}", mobile=mobile))
        for i, mobile in enumerate(["09121234567", "09351234567"])
    ]
    workflow = gen.call("workflows_and_journeys", "workflows_create", 201, body=m.WorkflowInputRequest(name="سفر"))
    sms = m.SendSmsConfigRequest(body="سلام {target.first_name}", on_missing_variable=m.OnMissingVariableEnum.BLANK)
    wait = m.WaitConfigRequest(mode=m.ModeEnum.DURATION, amount=1, unit=m.UnitEnum.DAYS)
    graph = m.GraphInputRequest(
        nodes=[
            m.StartNodeRequest(node_key="start", type_=m.StartNodeTypeEnum.START, subtype="manual"),
            m.SendSmsNodeRequest(
                node_key="sms", type_=m.ActionNodeTypeEnum.ACTION, subtype=m.SendSmsNodeSubtypeEnum.SEND_SMS, config=sms
            ),
            m.WaitNodeRequest(node_key="wait", type_=m.WaitNodeTypeEnum.WAIT, subtype="duration", config=wait),
            m.EndNodeRequest(node_key="end", type_=m.EndNodeTypeEnum.END, subtype="complete"),
        ],
        edges=[
            m.EdgeIORequest(from_="start", to="sms"),
            m.EdgeIORequest(from_="sms", to="wait"),
            m.EdgeIORequest(from_="wait", to="end"),
        ],
    )
    start = m.StartNodeRequest(node_key="start", type_=m.StartNodeTypeEnum.START, subtype="manual")
    unfinished = m.GraphInputRequest(  # a draft may hold steps not filled in yet: the client reads them back
        nodes=[
            start,
            m.SendSmsNodeRequest(
                node_key="sms", type_=m.ActionNodeTypeEnum.ACTION, subtype=m.SendSmsNodeSubtypeEnum.SEND_SMS
            ),
            m.ConditionNodeRequest(
                node_key="if",
                type_=m.ConditionNodeTypeEnum.CONDITION,
                subtype="field_rules",
                config=m.ConditionGroupRequest(),
            ),
        ],
        edges=[m.EdgeIORequest(from_="start", to="sms")],
    )
    gen.call("workflows_and_journeys", "workflows_graph_update", workflow_id=workflow.id, body=unfinished)
    draft = gen.call("workflows_and_journeys", "workflows_graph_retrieve", workflow_id=workflow.id)
    assert [type(node).__name__ for node in draft.nodes] == ["StartNode", "SendSmsNode", "ConditionNode"]
    saved = gen.call("workflows_and_journeys", "workflows_graph_update", workflow_id=workflow.id, body=graph)
    assert saved.errors == []
    read = gen.call("workflows_and_journeys", "workflows_graph_retrieve", workflow_id=workflow.id)
    kinds = {node.node_key: type(node).__name__ for node in read.nodes}
    assert kinds == {"start": "StartNode", "sms": "SendSmsNode", "wait": "WaitNode", "end": "EndNode"}
    action = next(node for node in read.nodes if node.node_key == "sms")
    assert isinstance(action.config, m.SendSmsConfig) and action.config.body == "سلام {target.first_name}"
    gen.call(
        "workflows_and_journeys", "workflows_publish", workflow_id=workflow.id, body=m.PublishInputRequest(note="v1")
    )
    window = m.SendWindowRequest(
        timezone="Asia/Tehran",
        days=m.SendWindowDaysRequest(**{day: [["00:00", "24:00"]] for day in ("sat", "sun", "mon", "tue", "wed")}),
    )
    body = m.JourneyCampaignInputRequest(kind="journey", name="خوشامد", workflow_id=workflow.id, send_window=window)
    campaign = gen.call("campaigns_groups_and_chains", "campaigns_create", 201, body=body, idempotency_key="c-1")
    preview = m.EnrollmentPreviewInputRequest(target_ids=[t.id for t in targets])
    batch = gen.call(
        "workflows_and_journeys", "journey_campaigns_enrollment_preview", 201, campaign_id=campaign.id, body=preview
    )
    assert batch.counts.ready == 2
    committed = gen.call("workflows_and_journeys", "enrollment_batches_commit", batch_id=batch.id, idempotency_key="e")
    assert committed.status.value == "committed"
    start = m.JourneyCampaignsTransitionAction.ACTIVATE
    started = gen.call("workflows_and_journeys", "journey_campaigns_transition", campaign_id=campaign.id, action=start)
    assert started.status.value == "active"
    stats = gen.call("workflows_and_journeys", "journey_campaigns_stats", campaign_id=campaign.id)
    assert isinstance(stats, m.JourneyStatsOutput) and stats.total == 2 and len(stats.series) == 30
    timeline = gen.call("targets", "targets_timeline", target_id=targets[0].id)
    assert [entry.type_ for entry in timeline.results] == ["activated", "enrolled"]  # newest first
    assert [journey.campaign_id for journey in timeline.campaigns] == [campaign.id]


def test_a_chain_flow(gen, api_for, workspace):
    m = gen.models
    setup_sms(workspace)  # the members send SMS: Approve needs a usable account (the launch check)
    group = make_group(workspace)
    audience = audience_list(workspace, people=2)
    root = gen.call(
        "campaigns_groups_and_chains",
        "chain_campaign_create",
        201,
        body=m.ChainCampaignCreateInputRequest(
            name="ریشه",
            campaign_group_id=group.id,
            source_target_list_id=audience.id,
            when=m.RootScheduleInputRequest(type_=m.RootScheduleInputTypeEnum.WEEKLY, weekdays=["MON"], time="09:00"),
            goal=m.GoalInputRequest(type_=m.GoalInputTypeEnum.TARGET_STATUS, statuses=["converted"]),
            chain_action=m.ChainActionInputRequest(channel="sms", content="سلام"),
        ),
    )
    child = gen.call(
        "campaigns_groups_and_chains",
        "chain_campaign_create",
        201,
        body=m.ChainCampaignCreateInputRequest(
            name="پیگیری",
            parent_campaign_id=root.id,
            expected_chain_revision=root.chain_revision,
            inheritance=m.InheritanceInputRequest(
                type_=m.InheritanceInputTypeEnum.NOT_CONVERTED,
                schedule=m.ChildScheduleInputRequest(
                    type_=m.ChildScheduleInputTypeEnum.AFTER_INTERVAL, offset_days=2, run_time="09:00"
                ),
            ),
            chain_action=m.ChainActionInputRequest(channel="sms", content="یادآوری"),
        ),
    )
    assert isinstance(child.inheritance, m.InheritanceInput) and child.inheritance.schedule.offset_days == 2
    revision = gen.call("campaigns_groups_and_chains", "chain_campaign_retrieve", campaign_id=root.id).chain_revision
    submitted = gen.call(
        "approvals",
        "campaign_submit",
        campaign_id=child.id,
        body=m.OptionalChainRevisionInputRequest(expected_chain_revision=revision),
    )
    package = submitted.package
    assert package.status.value == "SUBMITTED" and package.problems == []
    approver = api_for(make_member(workspace))
    approved = approver.call(
        "approvals",
        "chain_approval_approve",
        package_id=package.id,
        body=m.PackageDecisionInputRequest(expected_submitted_revision=package.submitted_revision),
    )
    assert approved.status.value == "APPROVED"
    tree = gen.call("campaigns_groups_and_chains", "campaign_groups_tree", group_id=group.id)
    (node,) = tree.roots
    assert [c.campaign_id for c in node.children] == [child.id] and node.status != "draft"


def test_a_browser_flow(gen, workspace, settings):
    m = gen.models
    settings.BROWSER_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:8766"]  # the demo site
    cookies = {"platform": "demo", "cookies": "session=x", "cookie_domain": "127.0.0.1"}
    accounts = [
        gen.call("browser", "browser_accounts_create", 201, body=m.AccountInputRequest(label=f"acc-{i}", **cookies))
        for i in range(2)
    ]
    step, action = m.BrowserCampaignInputRequestStepsItem, m.BrowserCampaignInputRequestStepsItemAction
    steps = [step(action=action.GOTO), step(action=action.CLICK, selector="#like")]
    body = m.BrowserCampaignInputRequest(
        kind=m.BrowserCampaignKindEnum.BROWSER,
        name="لایک",
        platform="demo",
        accounts=[a.id for a in accounts],
        target_links=["http://127.0.0.1:8766/post/1"],
        action=m.BrowserActionTypeEnum.LIKE,
        steps=steps,
        login_check=m.LoginCheckRequest(login_url_patterns=["/login"], logged_in_selector="#me"),
    )
    campaign = gen.call("campaigns_groups_and_chains", "campaigns_create", 201, body=body)
    platforms = gen.call("browser", "browser_platforms_list", campaign=campaign.id)
    (platform,) = platforms.results
    assert platform.campaign_id == campaign.id and platform.metadata is not None
    paused = gen.call("browser", "browser_platforms_pause", platform_id=platform.id)
    assert paused.status.value == "paused"
    resumed = gen.call("browser", "browser_platforms_resume", platform_id=platform.id)
    assert resumed.status.value != "paused"
    gen.call("browser", "browser_tasks_list", campaign=campaign.id)


def test_the_generated_client_names_everything_in_english(gen):
    """Class, module and attribute names come from the schema's titles and names: none is Persian (a Persian
    model label once named 17 generated classes)."""
    import inspect
    import pkgutil

    classes = [obj for _, obj in inspect.getmembers(gen.models, inspect.isclass) if obj.__module__.startswith(PACKAGE)]
    assert len(classes) > 200
    names = [cls.__name__ for cls in classes]
    names += [m.name for m in pkgutil.walk_packages(gen.package.__path__, f"{PACKAGE}.")]
    names += [attribute for cls in classes for attribute in getattr(cls, "__annotations__", {})]
    assert [name for name in names if not name.isascii()] == []


def test_the_downloads_are_files_in_the_generated_client(gen, workspace, owner, settings):
    """A screenshot (image/png), the targets export (.xlsx) and the blacklist (text/csv), each declared with its
    media type, reach the client as a ``File`` of the bytes served (with ``BINARY_TYPES``, as docs/api.md says)."""
    from sms.models import BlacklistEntry
    from tests.api_world import World
    from tests.conftest import make_target

    settings.BROWSER_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:8766"]  # the demo site
    task = World(workspace, owner).get("task_with_screenshot")
    make_target(workspace)
    BlacklistEntry.objects.create(workspace=workspace, value="+989121112233")
    png = gen.call("browser", "browser_tasks_screenshot", task_id=task.pk)
    assert isinstance(png, gen.package.types.File) and png.payload.read().startswith(b"\x89PNG")
    xlsx = gen.call("targets", "targets_export")
    assert xlsx.payload.read()[:2] == b"PK"  # a zip: the workbook
    blacklist = gen.call("sms", "sms_blacklist_export").payload.read().decode("utf-8-sig")
    assert "989121112233" in blacklist.replace("+", "")
