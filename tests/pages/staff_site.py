"""Every staff page pattern of the URLconf, filled from a demo workspace with rows on every page.

``PAGES`` names each page pattern and how its URL arguments are found; ``NOT_PAGES`` lists the patterns
that are no page (POST actions, partials, downloads). A new pattern in neither fails
``test_every_staff_pattern_is_listed`` until it is placed in one of them.
"""

import io
import uuid
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import TestCase, override_settings
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from automation.models import EnrollmentBatch, Workflow
from automation.services.enrollment import enroll_subjects
from automation.services.enrollment_batches import enrollment_batch_preview
from automation.services.workflows import workflow_create
from campaigns.approval_selectors import WORKSPACE_APPROVAL_SETTING
from campaigns.chains.models import ChainNode
from campaigns.chains.run_models import CampaignRun
from campaigns.chains.runs.choices import RunType
from campaigns.chains.services.approval import campaign_submit
from campaigns.models import Campaign, Target, TargetImport, Workspace
from campaigns.notifications.services import notification_send
from campaigns.platform.models import WebhookDelivery, WebhookEndpoint
from campaigns.platform.tenancy import Actor
from campaigns.services.imports import target_import_process, target_import_start
from sms.inbound.services import inbound_store
from sms.inbound.types import ReceivedSms
from sms.models import SmsProviderAccount, SmsTemplate
from sms.services import blacklist_add, sms_template_create
from workers.choices import BROWSER_KIND
from workers.models import BrowserAccount
from workers.services.accounts import proxy_create
from workers.services.campaigns import browser_campaign_create

from ..automation.helpers import Driver, end_node, journey, linear_graph, sms_node
from ..chains.conftest import make_chain, make_group

PASSWORD = "pw-123456"
CODE = "NAMA10"  # user content with Latin digits: shown exactly as typed

# url name -> how to find its URL arguments in the demo workspace ("?": a query string the page needs)
PAGES = {
    "home": {},
    "target-list": {},
    "target-new": {},
    "target-edit": {"target_id": "target"},
    "target-import": {},
    "target-import-detail": {"import_id": "target_import"},
    "workspace-settings": {},
    "api-keys": {},
    "webhooks": {},
    "webhook-detail": {"webhook_id": "webhook"},
    "chain-groups": {},
    "chain-group": {"group_id": "group"},
    "chain-campaign-new": {"group_id": "group"},
    "chain-campaign-edit": {"campaign_id": "chain_root"},
    "chain-campaign-runs": {"campaign_id": "chain_root"},
    "chain-packages": {},
    "chain-package": {"package_id": "package"},
    "package-launch-excluded": {"package_id": "package", "campaign_id": "chain_root", "?": "reason=blacklisted"},
    "notification-list": {},
    "my-followups": {},
    "workflow-list": {},
    "workflow-new": {},
    "workflow-detail": {"workflow_id": "workflow"},
    "workflow-migrate": {"workflow_id": "workflow"},
    "workflow-builder": {"workflow_id": "draft_workflow"},
    "journey-campaign-list": {},
    "journey-campaign-new": {},
    "journey-campaign-dashboard": {"campaign_id": "journey"},
    "journey-campaign-edit": {"campaign_id": "draft_journey"},
    "journey-campaign-enroll": {"campaign_id": "draft_journey"},
    "journey-enrollment-review": {"campaign_id": "draft_journey", "batch_id": "batch"},
    "journey-campaign-targets": {"campaign_id": "journey"},
    "journey-campaign-logs": {"campaign_id": "journey"},
    "journey-campaign-auto-enroll": {"campaign_id": "journey"},
    "sms-home": {},
    "sms-attempts": {},
    "sms-inbox": {},
    "sms-blacklist": {},
    "sms-templates": {},
    "sms-template-new": {},
    "sms-template-edit": {"template_id": "template"},
    "sms-settings": {},
    "sms-account-edit": {"account_id": "account"},
    "browser-campaigns": {},
    "browser-campaign": {"campaign_id": "browser_campaign"},
    "browser-campaign-new": {},
    "browser-campaign-edit": {"campaign_id": "draft_browser_campaign"},
    "browser-accounts": {},
    "browser-account-new": {},
    "browser-account-edit": {"account_id": "browser_account"},
    "browser-account-import": {},
    "browser-proxies": {},
    "browser-proxy-new": {},
    "browser-proxy-edit": {"proxy_id": "browser_proxy"},
    "browser-proxy-import": {},
}
SIGNED_OUT_PAGES = {"login": {}}
NOT_PAGES = {
    "healthz": "JSON health check",
    "favicon": "a redirect to the static icon",
    "set_language": "POST: the admin's language switch",
    "logout": "POST",
    "workspace-switch": "POST",
    "api-key-revoke": "POST",
    "webhook-delivery-replay": "POST",
    "chain-group-new": "POST (the dialog on the group list)",
    "chain-group-edit": "POST (the dialog on the group page)",
    "chain-group-archive": "POST",
    "chain-campaign-delete": "POST",
    "chain-submit": "POST",
    "chain-control": "POST",
    "chain-run-now": "POST",
    "chain-run-export": "an .xlsx download",
    "chain-run-rerun": "POST",
    "chain-preview": "POST: an htmx partial of the campaign form",
    "chain-root-preview": "POST: an htmx partial of the root form (the next run dates)",
    "chain-audience-count": "an htmx partial of the campaign form (the audience count)",
    "chain-campaign-clone": "POST",
    "chain-group-add": "POST (the dialog on the group page)",
    "metrics": "Prometheus text for ops, behind its own token",
    "chain-package-approve": "POST",
    "chain-package-reject": "POST",
    "chain-package-withdraw": "POST",
    "chain-campaign-move": "POST (the move form of a campaign on the group page)",
    "chain-campaign-approve": "POST (single-campaign approval on the package list and the group page)",
    "chain-campaign-reject": "POST (single-campaign approval on the package list and the group page)",
    "workflow-publish": "POST",
    "workflow-new-draft": "POST",
    "workflow-archive": "POST",
    "workflow-save-template": "POST",
    "workflow-migration": "one migration's progress (needs a migration): axe-checked by test_migration_pages.py",
    "workflow-builder-add": "POST: a builder partial",
    "workflow-builder-step": "POST: a builder partial",
    "workflow-builder-remove": "POST: a builder partial",
    "workflow-builder-window": "POST: a builder partial",
    "workflow-builder-defaults": "POST: a builder partial (the workflow-wide defaults)",
    "workflow-builder-preview": "POST: a builder partial",
    "journey-campaign-control": "POST",
    "journey-enrollment-decide": "POST",
    "journey-enrollment-commit": "POST",
    "journey-enrollment-discard": "POST",
    "journey-enrollment-progress": "an htmx partial of the review page",
    "journey-auto-enroll-count": "an htmx partial of the auto-enroll page",
    "journey-health": "an htmx partial: the health banner",
    "sms-blacklist-action": "POST",
    "sms-inbox-read": "POST (the inbox's mark-read buttons)",
    "sms-account-test": "POST: a dialog partial",
    "browser-campaign-accounts": "an htmx partial of the campaign form",
    "browser-campaign-progress": "an htmx partial of the campaign page",
    "browser-campaign-control": "POST",
    "browser-account-action": "POST",
    "browser-proxy-reset": "POST",
    "browser-task-screenshot": "an image download",
}


def staff_url_names() -> set[str]:
    """Names of every URL pattern outside the admin and the API."""

    def walk(resolver, prefix=""):
        for p in resolver.url_patterns:
            if isinstance(p, URLResolver):
                yield from walk(p, prefix + str(p.pattern))
            elif isinstance(p, URLPattern) and not (prefix + str(p.pattern)).startswith(("admin/", "api/")):
                yield p.name

    return set(walk(get_resolver()))


@dataclass
class StaffSite:
    workspace: Workspace
    username: str
    rows: dict

    def url(self, name: str) -> str:
        spec = PAGES.get(name, SIGNED_OUT_PAGES.get(name, {}))
        url = reverse(name, kwargs={arg: self.rows[key].pk for arg, key in spec.items() if arg != "?"})
        return f"{url}?{spec['?']}" if "?" in spec else url  # "?": the query a page needs


def staff_site_create() -> StaffSite:
    """The demo workspace (``demo_data``) plus a row on every page: an import, a chain awaiting approval,
    a run, SMS attempts, a blacklisted number, a template, an enrollment review, a notification."""
    call_command("demo_data", "--force", "--targets", "40", stdout=io.StringIO())
    user = get_user_model().objects.get(username="admin")
    user.set_password(PASSWORD)
    user.save()
    workspace = Workspace.objects.get(slug="demo")
    actor = Actor(user=user, workspace=workspace, membership=user.memberships.get(workspace=workspace))
    targets = list(Target.objects.filter(workspace=workspace).exclude(mobile="").order_by("pk")[:6])
    rows = {"target": targets[0]}

    upload = "نام,تلفن\nعلی,09121234567\nخراب,12\n".encode()
    rows["target_import"] = target_import_start(actor=actor, file_name="a.csv", content=upload)
    target_import_process(import_id=rows["target_import"].id)

    rows["webhook"] = WebhookEndpoint.objects.create(
        workspace=workspace, url="https://hooks.example.com/campaigns", events=["campaign.status_changed"], secret="s"
    )
    WebhookDelivery.objects.create(
        workspace=workspace,
        endpoint=rows["webhook"],
        event_id=uuid.uuid4(),
        event_type="campaign.status_changed",
        payload={},
        next_attempt_at=timezone.now(),
        attempts=2,
        last_status_code=500,
        last_error="HTTP 500",
    )

    rows["journey"] = journey(actor, linear_graph(sms_node(body=f"کد تخفیف {CODE}"), end_node()))
    enroll_subjects(actor=actor, campaign_id=rows["journey"].id, target_ids=[t.id for t in targets[:3]])
    Driver().tick(timezone.now())
    rows["workflow"] = Workflow.objects.get(campaign_journeys__campaign=rows["journey"])
    rows["draft_workflow"] = workflow_create(actor=actor, name="پیش‌نویس معرفی", template="three_step_intro")
    rows["draft_journey"] = Campaign.objects.get(workspace=workspace, name="جشنواره پاییز")
    rows["group"] = make_group(workspace, "پیگیری فروش")
    chain = make_chain(workspace, rows["group"], shape="A>B,A>C")
    rows["chain_root"] = chain["A"]
    workspace.settings = {**(workspace.settings or {}), WORKSPACE_APPROVAL_SETTING: True}
    workspace.save(update_fields=["settings"])
    _, rows["package"] = campaign_submit(actor=actor, campaign_id=chain["A"].id, expected_chain_revision=1)
    single = ChainNode.objects.create(workspace=workspace, name="اعلان تکی", group=rows["group"], created_by=user)
    campaign_submit(actor=actor, campaign_id=single.id)  # single-campaign approval: the package list shows it
    CampaignRun.objects.create(
        workspace=workspace, campaign=chain["A"], run_type=RunType.SCHEDULED, planned_at=timezone.now()
    )

    with TestCase.captureOnCommitCallbacks(execute=False):
        enrollment_batch_preview(
            actor=actor, campaign_id=rows["draft_journey"].id, target_ids=[t.id for t in targets[3:6]]
        )
    rows["batch"] = EnrollmentBatch.objects.filter(campaign=rows["draft_journey"]).latest("pk")

    blacklist_add(actor=actor, number="09121234567", description="درخواست مشتری")
    rows["template"] = sms_template_create(actor=actor, name="خوش‌آمد", body=f"کد تخفیف شما {CODE}")
    rows["account"] = SmsProviderAccount.objects.filter(workspace=workspace).first()
    line = rows["account"].senders[0] if rows["account"].senders else ""
    answering = Target.objects.filter(workspace=workspace, mobile__startswith="+").order_by("pk")[:2]
    inbound_store(  # a reply to the journey, an opt-out, a stranger's message: the inbox and the thread show them
        account=rows["account"],
        messages=[
            ReceivedSms(
                provider_message_id="demo-1", sender=answering[0].mobile, line=line, text="ممنون، کی تماس می‌گیرید؟"
            ),
            ReceivedSms(provider_message_id="demo-2", sender=answering[1].mobile, line=line, text="لغو۱۱"),
            ReceivedSms(provider_message_id="demo-3", sender="09350000001", line=line, text="شما؟"),
        ],
    )
    rows["browser_campaign"] = Campaign.objects.filter(workspace=workspace, kind=BROWSER_KIND).first()
    rows["browser_account"] = BrowserAccount.objects.filter(workspace=workspace).first()
    with override_settings(BROWSER_ALLOWED_PRIVATE_HOSTS=["127.0.0.1:8766", "127.0.0.1:3128"]):  # loopback only
        rows["browser_proxy"] = proxy_create(actor=actor, host="127.0.0.1", port=3128, label="پراکسی دفتر")
        rows["draft_browser_campaign"] = browser_campaign_create(  # a draft: the workspace needs approval
            actor=actor,
            name="پیش‌نویس پسندها",
            platform=rows["browser_account"].platform,
            accounts=[rows["browser_account"].pk],
            target_links=["http://127.0.0.1:8766/post/2"],
            action="like",
        )
    notification_send(
        workspace=workspace,
        recipients=[user],
        kind="import_finished",
        title="ورود مخاطبان انجام شد",
        link=reverse("target-import-detail", args=[rows["target_import"].id]),
        dedupe_key="a11y-demo",
    )
    assert all(rows.values()), {k for k, v in rows.items() if not v}
    assert TargetImport.objects.filter(workspace=workspace).exists() and SmsTemplate.objects.exists()
    return StaffSite(workspace=workspace, username="admin", rows=rows)
