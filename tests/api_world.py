"""Objects behind every API path parameter, made on demand in a workspace (for the generated endpoint cases).

``World(workspace, user).id_for(path, param)`` returns the id of an object of the kind the path names
(``/browser/campaigns/{campaign_id}`` a browser campaign, ``/campaign/{campaign_id}`` a chain root,
``/campaigns/{campaign_id}`` a journey campaign …), creating it and what it needs once per world. A new
path parameter without a factory fails ``tests/platform/test_api_endpoints.py`` with its name.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from campaigns.choices import CampaignStatus
from campaigns.platform.models import WebhookDelivery, WebhookEndpoint
from campaigns.platform.tenancy import Actor
from campaigns.platform.tokens import api_token_create

from .conftest import make_campaign, make_list, make_target

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
LINK = "http://127.0.0.1:8766/post/1"


class World:
    """One workspace's objects, one per kind, created the first time a path asks for them."""

    def __init__(self, workspace, user) -> None:
        self.workspace = workspace
        self.user = user
        self.actor = Actor(user=user, workspace=workspace, membership=user.memberships.get(workspace=workspace))
        self._made: dict[str, object] = {}

    def get(self, kind: str):
        if kind not in self._made:
            self._made[kind] = FACTORIES[kind](self)
        return self._made[kind]

    def id_for(self, path: str, param: str) -> int | str:
        if param in LITERALS:
            return LITERALS[param]
        kind = next((k for prefix, p, k in BY_PATH if p == param and path.startswith(prefix)), param)
        if kind not in FACTORIES:
            raise KeyError(f"no factory for the path parameter {param!r} of {path} (tests/api_world.py)")
        return self.get(kind).pk


# --- factories ----------------------------------------------------------------------------------------------
def _webhook(world: World):
    return WebhookEndpoint.objects.create(
        workspace=world.workspace, url="https://hooks.example.com/c", events=["webhook.test"], secret="s"
    )


def _journey(world: World):
    from tests.automation.helpers import end_node, journey, linear_graph, setup_sms, sms_node

    setup_sms(world.workspace)
    return journey(world.actor, linear_graph(sms_node("a"), end_node()), activate=False)


def _active_journey(world: World):
    from tests.automation.helpers import end_node, journey, linear_graph, setup_sms, sms_node

    setup_sms(world.workspace)
    return journey(world.actor, linear_graph(sms_node("a"), end_node()))


def _execution(world: World):
    from automation.models import Execution
    from automation.services.enrollment import enroll_subjects

    campaign = world.get("active_journey")
    enroll_subjects(actor=world.actor, campaign_id=campaign.id, target_ids=[world.get("target_id").id])
    return Execution.objects.filter(campaign=campaign).first()


def _workflow(world: World):
    from automation.models import Workflow
    from tests.automation.helpers import end_node, linear_graph, publish, sms_node

    return Workflow.objects.get(pk=publish(world.actor, linear_graph(sms_node("a"), end_node())).pk)


def _migration(world: World):
    from automation.models import VersionMigration

    workflow = world.get("workflow_id")
    version = workflow.published_version
    return VersionMigration.objects.create(
        id=uuid.uuid4(), workspace=world.workspace, workflow=workflow, from_version=version, to_version=version
    )


def _batch(world: World):
    from automation.services.enrollment_batches import enrollment_batch_preview

    campaign = world.get("campaign_id")
    return enrollment_batch_preview(
        actor=world.actor, campaign_id=campaign.id, target_ids=[make_target(world.workspace).id]
    )


def _group(world: World):
    from tests.chains.conftest import make_group

    return make_group(world.workspace)


def _chain_root(world: World):
    from tests.chains.conftest import make_chain

    return make_chain(world.workspace, world.get("group_id"))["A"]


def _package(world: World):
    from campaigns.chains.models import ChainApprovalPackage

    return ChainApprovalPackage.objects.create(
        workspace=world.workspace, root=world.get("chain_root"), submitted_revision=2, submitted_at=T0
    )


def _run(world: World):
    from campaigns.chains.models import CampaignRun
    from campaigns.chains.runs.choices import RunType

    root = world.get("chain_root")
    return CampaignRun.objects.create(
        workspace=world.workspace, campaign=root, root=root, run_type=RunType.MANUAL, planned_at=T0
    )


def _conversion(world: World):
    from campaigns.chains.models import ConversionEvent

    return ConversionEvent.objects.create(
        workspace=world.workspace, target=world.get("target_id"), name="purchase", occurred_at=T0
    )


def _activity(world: World):
    from campaigns.models import Activity

    return Activity.objects.create(
        workspace=world.workspace, target=world.get("target_id"), title="تماس", assignee=world.user
    )


def _notification(world: World):
    from campaigns.models import Notification

    return Notification.objects.create(
        workspace=world.workspace, recipient=world.user, kind="test", title="اعلان", dedupe_key=f"t-{world.user.pk}"
    )


def _import(world: World):
    from campaigns.models import TargetImport

    return TargetImport.objects.create(workspace=world.workspace, created_by=world.user, file_name="t.csv")


def _attempt(world: World):
    from sms.models import SmsAttempt
    from tests.automation.helpers import Driver

    execution = world.get("execution_id")
    Driver().tick(datetime.now(UTC) + timedelta(minutes=1))
    return SmsAttempt.objects.filter(execution=execution).first() or SmsAttempt.objects.get(pk=0)


def _inbound(world: World):
    from sms.inbound.services import inbound_store
    from tests.sms.inbound_helpers import make_account, received

    account = make_account(world.workspace)
    return inbound_store(account=account, messages=[received("سلام", world.get("target_id").mobile)])[0]


def _blacklist(world: World):
    from sms.models import BlacklistEntry

    return BlacklistEntry.objects.create(workspace=world.workspace, value=f"+98912{world.workspace.id:07d}")


def _template(world: World):
    from sms.models import SmsTemplate

    return SmsTemplate.objects.create(workspace=world.workspace, name="قالب", body="سلام")


def _account(world: World):
    from tests.workers.conftest import make_account

    return make_account(world.workspace)


def _proxy(world: World):
    from tests.workers.conftest import make_proxy

    return make_proxy(world.workspace)


def _action_config(world: World):
    from tests.workers.conftest import LIKE_STEPS, LOGIN_CHECK
    from workers.models import ActionConfig

    return ActionConfig.objects.create(
        workspace=world.workspace, platform="other", action_type="like", steps=LIKE_STEPS, login_check=LOGIN_CHECK
    )


def _browser_campaign(world: World):
    from tests.workers.conftest import make_browser_campaign

    return make_browser_campaign(world.actor, accounts=[world.get("account_id")], links=[LINK])


def _platform(world: World):
    from workers.models import CampaignPlatform

    return CampaignPlatform.objects.filter(campaign=world.get("browser_campaign")).first()


def _task(world: World):
    from workers.models import BrowserTask
    from workers.services.creation import platform_tasks_create

    platform = world.get("platform_id")
    platform_tasks_create(platform_id=platform.pk)
    return BrowserTask.objects.filter(platform=platform).first()


def _task_with_screenshot(world: World):
    from workers.models import BrowserTaskScreenshot

    task = world.get("task_id")
    BrowserTaskScreenshot.objects.create(workspace=world.workspace, task=task, png=b"\x89PNG\r\n", url=LINK)
    return task


FACTORIES: dict[str, Callable[[World], object]] = {
    "target_id": lambda w: make_target(w.workspace),
    "key_id": lambda w: api_token_create(user=w.user, workspace=w.workspace)[0],
    "webhook_id": _webhook,
    "delivery_id": lambda w: WebhookDelivery.objects.create(
        workspace=w.workspace,
        endpoint=w.get("webhook_id"),
        event_id=uuid.uuid4(),
        event_type="webhook.test",
        payload={},
        next_attempt_at=T0,
    ),
    "message_id": _inbound,
    "list_id": lambda w: make_list(w.workspace),
    "import_id": _import,
    "campaign_id": _journey,
    "active_journey": _active_journey,
    "generic_campaign": lambda w: make_campaign(w.workspace, status=CampaignStatus.DRAFT),
    "workflow_id": _workflow,
    "execution_id": _execution,
    "batch_id": _batch,
    "migration_id": _migration,
    "group_id": _group,
    "chain_root": _chain_root,
    "package_id": _package,
    "run_id": _run,
    "event_id": _conversion,
    "activity_id": _activity,
    "notification_id": _notification,
    "attempt_id": _attempt,
    "entry_id": _blacklist,
    "template_id": _template,
    "account_id": _account,
    "proxy_id": _proxy,
    "config_id": _action_config,
    "browser_campaign": _browser_campaign,
    "platform_id": _platform,
    "task_id": _task,
    "task_with_screenshot": _task_with_screenshot,
}

# (path prefix, parameter) → the kind of object it names there.
BY_PATH = [
    ("/api/v1/browser/tasks/{task_id}/screenshot", "task_id", "task_with_screenshot"),
    ("/api/v1/browser/campaigns/", "campaign_id", "browser_campaign"),
    ("/api/v1/campaign/", "campaign_id", "chain_root"),
    ("/api/v1/campaign-groups/{group_id}/campaigns/", "campaign_id", "chain_root"),
]

# Parameters that are words, not ids.
LITERALS = {"action": "pause"}
