"""Every list endpoint and list page runs the same number of queries with N rows as with 3N (no N+1).

The API lists are the paginated GET endpoints of the schema (``test_api_endpoints.paginated``); each has a
row maker here, so a new list endpoint fails ``test_every_list_endpoint_has_a_row_maker`` until it gets one.
A maker adds ``n`` rows to a list and returns its URL (a list under an object, e.g. a batch's items, builds a
fresh object holding ``n`` rows).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import NoReverseMatch, reverse

from campaigns.choices import Role
from tests.api_world import LINK, T0, World
from tests.conftest import api_client_for, make_campaign, make_list, make_member, make_target, make_workspace
from tests.platform.test_api_endpoints import paginated

N = 2
_seq = itertools.count(1)


def _targets(world: World, n: int) -> list:
    return [make_target(world.workspace) for _ in range(n)]


def _enroll(world: World, n: int):
    from automation.services.enrollment import enroll_subjects

    campaign = world.get("active_journey")
    enroll_subjects(actor=world.actor, campaign_id=campaign.id, target_ids=[t.id for t in _targets(world, n)])
    return campaign


def _attempts(world: World, n: int) -> None:
    from tests.automation.helpers import Driver

    _enroll(world, n)
    Driver().tick(datetime.now(UTC) + timedelta(minutes=1))


def _activities(world: World, n: int) -> None:
    from campaigns.models import Activity

    for target in _targets(world, n):
        Activity.objects.create(workspace=world.workspace, target=target, title="تماس", assignee=world.user)


def _notifications(world: World, n: int) -> None:
    from campaigns.models import Notification

    for _ in range(n):
        Notification.objects.create(
            workspace=world.workspace, recipient=world.user, kind="test", title="اعلان", dedupe_key=f"n{next(_seq)}"
        )


def _browser_campaigns(world: World, n: int) -> None:
    from tests.workers.conftest import make_account, make_browser_campaign

    for _ in range(n):
        make_browser_campaign(world.actor, accounts=[make_account(world.workspace)], links=[LINK])


def _browser_tasks(world: World, n: int) -> None:
    from workers.models import CampaignPlatform
    from workers.services.creation import platform_tasks_create

    before = set(CampaignPlatform.objects.filter(workspace=world.workspace).values_list("pk", flat=True))
    _browser_campaigns(world, n)
    for platform in CampaignPlatform.objects.filter(workspace=world.workspace).exclude(pk__in=before):
        platform_tasks_create(platform_id=platform.pk)


def _action_configs(world: World, n: int) -> None:
    from tests.workers.conftest import LIKE_STEPS
    from workers.models import ActionConfig

    for _ in range(n):
        ActionConfig.objects.create(
            workspace=world.workspace, platform=f"site{next(_seq)}", action_type="like", steps=LIKE_STEPS
        )


def _runs(world: World, n: int) -> None:
    from campaigns.chains.models import CampaignRun
    from campaigns.chains.runs.choices import RunType

    root = world.get("chain_root")
    for i in range(n):
        CampaignRun.objects.create(
            workspace=world.workspace,
            campaign=root,
            root=root,
            run_type=RunType.MANUAL,
            planned_at=T0 + timedelta(hours=next(_seq) + i),
        )


def _conversions(world: World, n: int) -> None:
    from campaigns.chains.models import ConversionEvent

    for target in _targets(world, n):
        ConversionEvent.objects.create(workspace=world.workspace, target=target, name="purchase", occurred_at=T0)


def _blacklist(world: World, n: int) -> None:
    from sms.models import BlacklistEntry

    for _ in range(n):
        BlacklistEntry.objects.create(workspace=world.workspace, value=f"+98935{next(_seq):07d}")


def _replies(world: World, n: int) -> None:
    from sms.inbound.services import inbound_store
    from tests.sms.inbound_helpers import make_account, received

    account = make_account(world.workspace)
    for target in _targets(world, n):
        inbound_store(account=account, messages=[received("سلام", target.mobile)])
    inbound_store(account=account, messages=[received("کی؟", f"0935{next(_seq):07d}")])  # unmatched


def _conversation(world: World, n: int) -> str:
    from sms.inbound.services import inbound_store
    from tests.sms.inbound_helpers import make_account, received

    target = make_target(world.workspace)
    account = make_account(world.workspace)
    inbound_store(account=account, messages=[received(f"پیام {i}", target.mobile) for i in range(n)])
    return f"/api/v1/sms/conversations/{target.id}"


def _templates(world: World, n: int) -> None:
    from sms.models import SmsTemplate

    for _ in range(n):
        SmsTemplate.objects.create(workspace=world.workspace, name=f"قالب {next(_seq)}", body="سلام")


def _workflows(world: World, n: int) -> None:
    from tests.automation.helpers import end_node, linear_graph, publish, sms_node

    for _ in range(n):
        publish(world.actor, linear_graph(sms_node("a"), end_node()), name=f"سفر {next(_seq)}")


def _groups(world: World, n: int) -> None:
    from tests.chains.conftest import make_group

    for _ in range(n):
        make_group(world.workspace)


def _inheritance_sources(world: World, n: int) -> str:
    """A group whose editable recurring chains (a root and its follow-up each) are sources a child may inherit."""
    from tests.chains.conftest import make_chain, make_group

    group = make_group(world.workspace)
    for _ in range(n):
        make_chain(world.workspace, group)
    return f"/api/v1/campaign-groups/{group.id}/inheritance-sources"


def _batch_items(world: World, n: int) -> str:
    from automation.services.enrollment_batches import enrollment_batch_preview

    campaign = world.get("campaign_id")
    ids = [t.id for t in _targets(world, n)]
    batch = enrollment_batch_preview(actor=world.actor, campaign_id=campaign.id, target_ids=ids)
    return f"/api/v1/enrollments/{batch.pk}/items"


def _execution_events(world: World, n: int) -> str:
    from automation.models import Execution
    from automation.services.executions import execution_control

    campaign = _enroll(world, 1)
    execution = Execution.objects.filter(campaign=campaign).order_by("-pk").first()
    for _ in range(n):
        execution_control(actor=world.actor, execution_id=execution.pk, action="pause")
        execution_control(actor=world.actor, execution_id=execution.pk, action="resume")
    return f"/api/v1/executions/{execution.pk}/events"


def _import_rows(world: World, n: int) -> str:
    from campaigns.services.imports import target_import_process, target_import_start

    lines = "".join(f"نفر {i},0912{next(_seq):07d}\n" for i in range(n))
    upload = ("نام,تلفن\n" + lines).encode()
    target_import = target_import_start(actor=world.actor, file_name="a.csv", content=upload)
    target_import_process(import_id=target_import.id)
    return f"/api/v1/targets/imports/{target_import.pk}/rows"


def _target_executions(world: World, n: int) -> str:
    from automation.services.enrollment import enroll_subjects
    from tests.automation.helpers import end_node, journey, linear_graph, setup_sms, sms_node

    setup_sms(world.workspace)
    target = make_target(world.workspace)
    for _ in range(n):
        campaign = journey(world.actor, linear_graph(sms_node("a"), end_node()))
        enroll_subjects(actor=world.actor, campaign_id=campaign.id, target_ids=[target.id], on_conflict="add")
    return f"/api/v1/targets/{target.pk}/executions"


def _root_runs(world: World, n: int) -> str:
    _runs(world, n)
    return f"/api/v1/campaign/{world.get('chain_root').pk}/runs"


def _target_timeline(world: World, n: int) -> str:
    return _target_executions(world, n).replace("/executions", "/timeline")


def _webhooks(world: World, n: int) -> None:
    from campaigns.platform.models import WebhookEndpoint

    for i in range(n):
        WebhookEndpoint.objects.create(
            workspace=world.workspace, url=f"https://hooks.example.com/{i}", events=["webhook.test"], secret="s"
        )


def _webhook_deliveries(world: World, n: int) -> str:
    import uuid

    from django.utils import timezone

    from campaigns.platform.models import WebhookDelivery, WebhookEndpoint

    endpoint = WebhookEndpoint.objects.create(
        workspace=world.workspace, url="https://hooks.example.com/d", events=["webhook.test"], secret="s"
    )
    for _ in range(n):
        WebhookDelivery.objects.create(
            workspace=world.workspace,
            endpoint=endpoint,
            event_id=uuid.uuid4(),
            event_type="webhook.test",
            payload={},
            next_attempt_at=timezone.now(),
        )
    return f"/api/v1/webhooks/{endpoint.pk}/deliveries"


def _api_keys(world: World, n: int) -> None:
    from campaigns.platform.tokens import api_token_create

    for _ in range(n):
        api_token_create(user=world.actor.user, workspace=world.workspace)


Maker = Callable[[World, int], str | None]
API_LISTS: dict[str, Maker] = {
    "/api/v1/activities": _activities,
    "/api/v1/browser/accounts": lambda w, n: [FACTORIES_ACCOUNT(w) for _ in range(n)] and None,
    "/api/v1/browser/action-configs": _action_configs,
    "/api/v1/browser/platforms": _browser_campaigns,
    "/api/v1/browser/proxies": lambda w, n: [FACTORIES_PROXY(w) for _ in range(n)] and None,
    "/api/v1/browser/tasks": _browser_tasks,
    "/api/v1/campaign-groups": _groups,
    "/api/v1/campaign-groups/{group_id}/inheritance-sources": _inheritance_sources,
    "/api/v1/campaign-runs": _runs,
    "/api/v1/campaign/{campaign_id}/runs": _root_runs,
    "/api/v1/campaigns": lambda w, n: [make_campaign(w.workspace) for _ in range(n)] and None,
    "/api/v1/conversion-events": _conversions,
    "/api/v1/enrollments/{batch_id}/items": _batch_items,
    "/api/v1/executions": _enroll,
    "/api/v1/executions/{execution_id}/events": _execution_events,
    "/api/v1/notifications": _notifications,
    "/api/v1/sms/attempts": _attempts,
    "/api/v1/sms/blacklist": _blacklist,
    "/api/v1/sms/conversations/{target_id}": _conversation,
    "/api/v1/sms/inbound": _replies,
    "/api/v1/sms/templates": _templates,
    "/api/v1/target-lists": lambda w, n: [make_list(w.workspace) for _ in range(n)] and None,
    "/api/v1/targets": _targets,
    "/api/v1/targets/imports/{import_id}/rows": _import_rows,
    "/api/v1/targets/{target_id}/executions": _target_executions,
    "/api/v1/workflows": _workflows,
    "/api/v1/targets/{target_id}/timeline": _target_timeline,
    "/api/v1/webhooks": _webhooks,
    "/api/v1/webhooks/{webhook_id}/deliveries": _webhook_deliveries,
    "/api/v1/api-keys": _api_keys,
}


def FACTORIES_ACCOUNT(world: World):
    from tests.workers.conftest import make_account

    return make_account(world.workspace)


def FACTORIES_PROXY(world: World):
    from tests.workers.conftest import make_proxy

    return make_proxy(world.workspace, port=1000 + next(_seq))


def _logs_page(world: World, n: int) -> str:
    _attempts(world, n)
    return reverse("journey-campaign-logs", kwargs={"campaign_id": world.get("active_journey").pk})


def _campaign_targets_page(world: World, n: int) -> str:
    _enroll(world, n)
    return reverse("journey-campaign-targets", kwargs={"campaign_id": world.get("active_journey").pk})


def _import_page(world: World, n: int) -> str:
    url = _import_rows(world, n)
    return reverse("target-import-detail", kwargs={"import_id": int(url.rstrip("/").split("/")[-2])})


def _chain_runs_page(world: World, n: int) -> str:
    _runs(world, n)
    return reverse("chain-campaign-runs", kwargs={"campaign_id": world.get("chain_root").pk})


# List pages: url name (or a maker returning the page URL) → the rows it lists.
PAGE_LISTS: dict[str, Maker] = {
    "target-list": _targets,
    "chain-groups": _groups,
    "notification-list": _notifications,
    "my-followups": _activities,
    "workflow-list": _workflows,
    "journey-campaign-list": lambda w, n: _journeys(w, n),
    "journey-campaign-logs": _logs_page,
    "journey-campaign-targets": _campaign_targets_page,
    "target-import-detail": _import_page,
    "chain-campaign-runs": _chain_runs_page,
    "sms-attempts": _attempts,
    "sms-inbox": _replies,
    "sms-blacklist": _blacklist,
    "sms-templates": _templates,
    "browser-campaigns": _browser_campaigns,
    "browser-accounts": lambda w, n: [FACTORIES_ACCOUNT(w) for _ in range(n)] and None,
    "browser-proxies": lambda w, n: [FACTORIES_PROXY(w) for _ in range(n)] and None,
}


def _journeys(world: World, n: int) -> None:
    from tests.automation.helpers import end_node, journey, linear_graph, setup_sms, sms_node

    setup_sms(world.workspace)
    for _ in range(n):
        journey(world.actor, linear_graph(sms_node("a"), end_node()))


@pytest.fixture
def world(db, settings):
    settings.BROWSER_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:8766"]
    workspace = make_workspace("lists")
    return World(workspace, make_member(workspace, Role.OWNER))


def _count(client, url: str) -> tuple[int, int]:
    """(queries, rows shown): the API's ``count`` (its rows when a list does not count), or for a page the size
    of its HTML."""
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    if url.startswith("/api/"):
        body = response.json()
        shown = body["count"] if body["count"] is not None else len(body["results"])
    else:
        shown = len(response.content)
    return len(captured), shown


def _compare(client, world: World, maker: Maker, fixed_url: str | None) -> None:
    first = maker(world, N)
    url = fixed_url or first
    _count(client, url)  # warm: a session's first request writes it, caches fill
    few, few_rows = _count(client, url)
    second = maker(world, 2 * N if fixed_url else 3 * N)
    many, many_rows = _count(client, fixed_url or second)
    assert many_rows > few_rows, "the second request must list more rows"
    assert many == few, f"{fixed_url or second}: {few} queries with {N} rows, {many} with {3 * N}"


def test_every_list_endpoint_has_a_row_maker():
    assert set(API_LISTS) == paginated()


@pytest.mark.parametrize("path", sorted(API_LISTS))
def test_a_list_endpoints_queries_do_not_grow_with_its_rows(world, path):
    client = api_client_for(world.user, world.workspace)
    _compare(client, world, API_LISTS[path], None if "{" in path else path)


@pytest.mark.parametrize("name", sorted(PAGE_LISTS))
def test_a_list_pages_queries_do_not_grow_with_its_rows(world, name):
    client = Client()
    client.force_login(world.user)
    try:
        fixed = reverse(name)
    except NoReverseMatch:  # a page under an object: its maker returns the URL
        fixed = None
    _compare(client, world, PAGE_LISTS[name], fixed)
