"""Real objects in the fuzzer's workspace, so generated requests reach past "404, no such id".

``seed_workspace`` builds, through the services where they exist, one object of every kind a path of the
API names (targets and lists, an import, journey workflow/campaign/enrollment batch/executions, SMS
attempts/templates/blacklist, a reply, groups and chains with an approval package and runs, browser accounts,
proxies, action configs, campaigns with tasks and a screenshot, notifications and activities) and returns
their ids by name. ``path_ids`` maps an operation's path template to the ids of its path parameters,
``body_seeds`` to body parts that name seeded objects.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

import time_machine
from django.test import TestCase
from django.utils import timezone

from automation.models import Execution, VersionMigration, Workflow
from automation.services.enrollment import enroll_subjects
from automation.services.enrollment_batches import enrollment_batch_preview
from campaigns.chains.models import ChainApprovalPackage
from campaigns.chains.run_models import CampaignRun, ConversionEvent, RunExecution
from campaigns.chains.runs.choices import RefusalReason, RunType
from campaigns.chains.services.approval import campaign_submit
from campaigns.chains.services.chains import chain_campaign_create
from campaigns.chains.services.groups import group_create
from campaigns.models import TargetImport
from campaigns.notifications.services import activity_create, notification_send
from campaigns.platform.models import WebhookDelivery, WebhookEndpoint
from campaigns.platform.tenancy import Actor
from campaigns.platform.tokens import api_token_create
from sms.inbound.services import inbound_store
from sms.inbound.types import ReceivedSms
from sms.models import SmsAttempt, SmsSettings
from sms.services import blacklist_add, sms_template_create
from tests.automation.helpers import T0, Driver, end_node, journey, linear_graph, setup_sms, sms_node
from tests.conftest import make_list, make_target
from workers.models import BrowserTask, BrowserTaskScreenshot
from workers.services import creation
from workers.services.accounts import account_create, proxy_create
from workers.services.action_configs import action_config_create
from workers.services.campaigns import browser_campaign_create

LINK = "http://127.0.0.1:9/post/1"
# Loopback addresses of the seeded link and proxy, allowed for the fuzzer's module (as in tests/workers).
ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:9", "127.0.0.1:3128"]
MONTHLY = {"type": "MONTHLY", "day": 1, "time": "09:00"}
AFTER_2_DAYS = {"type": "NOT_CONVERTED", "schedule": {"type": "AFTER_INTERVAL", "offset_days": 2, "run_time": "09:00"}}
GOAL = {"type": "TARGET_STATUS", "statuses": ["converted"]}
SMS_ACTION = {"channel": "sms", "content": "سلام"}


def _journey_part(actor: Actor, ids: dict[str, int], targets) -> None:
    setup_sms(actor.workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[targets[0].id])
    Driver().tick(T0 + timedelta(minutes=1))  # sends the first SMS: an attempt and execution events
    draft = journey(actor, linear_graph(sms_node("b"), end_node()), activate=False)
    batch = enrollment_batch_preview(actor=actor, campaign_id=draft.id, target_ids=[t.id for t in targets])
    ids.update(
        journey_campaign=draft.id,
        active_journey=campaign.id,
        workflow=draft.journey.workflow_id,
        batch=batch.id,
        execution=Execution.objects.get(campaign=campaign).id,
        attempt=SmsAttempt.objects.get(campaign=campaign).id,
    )


def _chain_part(actor: Actor, ids: dict[str, int], source_list, targets) -> None:
    group = group_create(actor=actor, name="گروه آزمون", description="شرح")
    root = chain_campaign_create(
        actor=actor,
        name="ریشه",
        campaign_group_id=group.id,
        when=MONTHLY,
        goal=GOAL,
        chain_action=SMS_ACTION,
    )
    root.source_target_list = source_list
    root.save(update_fields=["source_target_list"])
    root.refresh_from_db()
    child = chain_campaign_create(
        actor=actor,
        name="پیگیری",
        parent_campaign_id=root.id,
        expected_chain_revision=root.chain_revision,
        inheritance=AFTER_2_DAYS,
        chain_action=SMS_ACTION,
    )
    root.refresh_from_db()
    with TestCase.captureOnCommitCallbacks(execute=True):
        campaign_submit(actor=actor, campaign_id=root.id, expected_chain_revision=root.chain_revision)
    package = ChainApprovalPackage.objects.filter(root=root).latest("id")
    # A second, independent chain stays a draft: edits, moves and deletes have something to work on.
    loose = chain_campaign_create(
        actor=actor, name="مستقل", campaign_group_id=group.id, when=MONTHLY, goal=GOAL, chain_action=SMS_ACTION
    )
    run = CampaignRun.objects.create(
        workspace=actor.workspace, campaign=root, run_type=RunType.SCHEDULED, planned_at=timezone.now()
    )
    # The run's dispatch refused the blacklisted last target: a `left_out` row on its timeline.
    RunExecution.objects.create(
        workspace=actor.workspace,
        run=run,
        target=targets[-1],
        action_code="sms",
        key=f"seed-refused-{run.id}",
        refused_reason=RefusalReason.BLACKLISTED,
    )
    ids.update(group=group.id, chain_root=root.id, chain_child=child.id, chain_loose=loose.id)
    ids.update(package=package.id, run=run.id)


def _browser_part(actor: Actor, ids: dict[str, int]) -> None:
    proxy = proxy_create(actor=actor, host="127.0.0.1", port=3128, label="پراکسی")
    accounts = [
        account_create(
            actor=actor, label=f"حساب {n}", platform="demo", cookies=f"session=valid-{n}", cookie_domain="127.0.0.1"
        )
        for n in (1, 2)
    ]
    config = action_config_create(
        actor=actor,
        platform="demo",
        action_type="like",
        steps=[{"action": "goto"}, {"action": "click", "selector": "#like"}],
        login_check={"login_url_patterns": ["/login"], "logged_in_selector": "#me"},
    )
    campaign = browser_campaign_create(
        actor=actor,
        name="کمپین مرورگر",
        platform="demo",
        action="like",
        accounts=[accounts[0].id],
        target_links=[LINK],
    )
    platform = campaign.browser_platforms.get()
    creation.platform_tasks_create(platform_id=platform.pk)
    task = BrowserTask.objects.filter(campaign=campaign).first()
    BrowserTaskScreenshot.objects.create(workspace=actor.workspace, task=task, png=b"\x89PNG-seed")
    ids.update(
        proxy=proxy.id,
        account=accounts[1].id,
        action_config=config.id,
        browser_campaign=campaign.id,
        platform=platform.id,
        task=task.id,
    )


def seed_workspace(actor: Actor) -> dict[str, int]:
    workspace = actor.workspace
    ids: dict[str, int] = {}
    source = make_list(workspace)
    targets = [make_target(workspace) for _ in range(3)]
    for target in targets:
        target.lists.add(source)
    ids.update(target=targets[-1].id, list=source.id, first_target=targets[0].id)
    ids["import"] = TargetImport.objects.create(workspace=workspace, file_name="a.csv", created_by=actor.user).id
    _journey_part(actor, ids, targets)
    _chain_part(actor, ids, source, targets)
    _browser_part(actor, ids)
    ids["template"] = sms_template_create(actor=actor, name="خوشامد", body="سلام {first_name}").id
    ids["blacklist"] = blacklist_add(actor=actor, number="09120001122").id
    account = SmsSettings.objects.get(workspace=workspace).primary_account
    [reply] = inbound_store(
        account=account,
        messages=[ReceivedSms(provider_message_id="fuzz-1", sender=targets[0].mobile, line="3000", text="سلام")],
    )
    ids["inbound"] = reply.id
    ids["conversion"] = ConversionEvent.objects.create(
        workspace=workspace, target=targets[0], name="purchase", occurred_at=timezone.now()
    ).id
    [notification] = notification_send(
        workspace=workspace, recipients=[actor.user], kind="test", title="اعلان", dedupe_key="fuzz-seed"
    )
    ids["notification"] = notification.id
    activity, _ = activity_create(
        workspace_id=workspace.id, target=targets[0], title="پیگیری", assignee_id=actor.user.id
    )
    ids["activity"] = activity.id
    ids["workspace"] = workspace.id
    workflow = Workflow.objects.get(pk=ids["workflow"])
    migration = VersionMigration.objects.create(
        id=uuid.uuid4(),
        workspace=workspace,
        workflow=workflow,
        from_version=workflow.published_version,
        to_version=workflow.published_version,
    )
    ids["migration"] = str(migration.id)  # a path value as text: schemathesis re-validates no UUID object
    ids["api_key"] = api_token_create(user=actor.user, workspace=workspace)[0].id
    webhook = WebhookEndpoint.objects.create(
        workspace=workspace, url="https://hooks.example.com/c", events=["webhook.test"], secret="s"
    )
    ids["webhook"] = webhook.id
    ids["webhook_delivery"] = WebhookDelivery.objects.create(
        workspace=workspace,
        endpoint=webhook,
        event_id=uuid.uuid4(),
        event_type="webhook.test",
        payload={},
        next_attempt_at=timezone.now(),
    ).id
    return ids


# Path template → the seeded object each path parameter names (parameters not listed stay generated).
def path_ids(path: str, ids: dict[str, int]) -> dict[str, int]:
    rules = [
        ("/api/v1/activities/", {"activity_id": "activity"}),
        ("/api/v1/browser/accounts/", {"account_id": "account"}),
        ("/api/v1/browser/action-configs/", {"config_id": "action_config"}),
        ("/api/v1/browser/campaigns/", {"campaign_id": "browser_campaign"}),
        ("/api/v1/browser/platforms/", {"platform_id": "platform"}),
        ("/api/v1/browser/proxies/", {"proxy_id": "proxy"}),
        ("/api/v1/browser/tasks/", {"task_id": "task"}),
        ("/api/v1/campaign-chain-approvals/", {"package_id": "package"}),
        ("/api/v1/campaign-groups/{group_id}/campaigns/", {"group_id": "group", "campaign_id": "chain_loose"}),
        ("/api/v1/campaign-groups/", {"group_id": "group"}),
        ("/api/v1/campaign-runs/", {"run_id": "run"}),
        ("/api/v1/campaign/{campaign_id}/chain/", {"campaign_id": "chain_root"}),
        ("/api/v1/campaign/{campaign_id}/run", {"campaign_id": "chain_root"}),
        ("/api/v1/campaign/{campaign_id}/approve", {"campaign_id": "chain_root"}),
        ("/api/v1/campaign/{campaign_id}/reject", {"campaign_id": "chain_root"}),
        ("/api/v1/campaign/", {"campaign_id": "chain_loose"}),
        ("/api/v1/campaigns/{campaign_id}/executions/", {"campaign_id": "active_journey"}),
        ("/api/v1/campaigns/{campaign_id}/journey/stats", {"campaign_id": "active_journey"}),
        ("/api/v1/campaigns/", {"campaign_id": "journey_campaign"}),
        ("/api/v1/conversion-events/", {"event_id": "conversion"}),
        ("/api/v1/enrollments/", {"batch_id": "batch"}),
        ("/api/v1/executions/", {"execution_id": "execution"}),
        ("/api/v1/notifications/", {"notification_id": "notification"}),
        ("/api/v1/sms/attempts/", {"attempt_id": "attempt"}),
        ("/api/v1/sms/blacklist/", {"entry_id": "blacklist"}),
        ("/api/v1/sms/conversations/", {"target_id": "first_target"}),
        ("/api/v1/sms/inbound/", {"message_id": "inbound"}),
        ("/api/v1/sms/templates/", {"template_id": "template"}),
        ("/api/v1/target-lists/", {"list_id": "list"}),
        ("/api/v1/targets/imports/", {"import_id": "import"}),
        ("/api/v1/targets/", {"target_id": "target"}),
        ("/api/v1/workflows/", {"workflow_id": "workflow"}),
        ("/api/v1/workflow-migrations/", {"migration_id": "migration"}),
        ("/api/v1/api-keys/", {"key_id": "api_key"}),
        ("/api/v1/webhooks/", {"webhook_id": "webhook"}),
        ("/api/v1/webhook-deliveries/", {"delivery_id": "webhook_delivery"}),
        ("/api/webhooks/sms/", {"workspace_id": "workspace"}),
    ]
    for prefix, names in rules:
        if path.startswith(prefix):
            return {param: ids[name] for param, name in names.items() if "{" + param + "}" in path}
    return {}


# Operation (path template) → body parts naming seeded objects: merged into generated bodies, so the
# generated part of a body meets real data (a filter that matches targets, ids that exist).
def body_seeds(path: str, ids: dict[str, int]) -> list[dict]:
    seeds = {
        "/api/v1/campaigns/{campaign_id}/enrollments/preview": [
            {"target_ids": [ids["first_target"], ids["target"]]},
            {"filters": {"list": ids["list"]}},
            {"filters": {"status": ["new"], "list": ids["list"]}},
            {"filters": [None, None]},  # not an object: a 400 in every content type (object_fields_are_objects)
        ],
    }
    return seeds.get(path, [])
