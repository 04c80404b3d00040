"""What ``bench_pages`` requests: every staff page, every API read, the admin's big lists.

``patterns_of(workspace)`` finds the rows the patterns open in the benchmark's database (the data template is
built once and measured many times, so nothing is passed on from the build) and returns ``Pattern`` rows: a
label, the address, and for a read sent as a form (a live count, a preview) the form. ``unmeasured(client,
patterns)`` names the URL patterns of the pages and the API that answer GET and are neither measured nor in
``NOT_MEASURED`` with a reason: the command refuses to measure while there is one, so a new page or endpoint is
measured at a year's size from its first day.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta

from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from django.utils import timezone

from automation.models import EnrollmentBatch, Execution, ExecutionEvent, Workflow
from campaigns.chains.models import CampaignRun, ChainApprovalPackage, ChainNode, ConversionEvent
from campaigns.choices import TargetStatus
from campaigns.models import Campaign, Target, TargetImport, TargetList
from campaigns.platform.jalali import to_jalali
from campaigns.platform.keyset import encode_cursor
from campaigns.platform.models import WebhookEndpoint
from sms.inbound.models import InboundSms
from sms.models import BlacklistEntry, SmsAttempt, SmsProviderAccount, SmsTemplate
from workers.models import ActionConfig, BrowserAccount, BrowserTask, CampaignPlatform, Proxy

PERSIAN_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
BASE_MOBILE = 9120000000

NOT_MEASURED = {  # URL names that answer GET but are no staff read of the workspace's rows
    "healthz": "the load balancer's check (its own rate limit, no rows)",
    "favicon": "a redirect to a static file",
    "metrics": "Prometheus text behind its own token",
    "login": "signed out",
    "set_language": "the admin's language switch: a redirect",
    "sms-home": "a redirect to the first SMS tab the role may see (the SMS log, measured)",
    "api-schema": "the OpenAPI schema: the same at any size",
    "api-docs": "the OpenAPI schema's page: the same at any size",
    "browser-task-screenshot": "a stored image, read by its id",
    "api-browser-task-screenshot": "a stored image, read by its id",
    "workflow-migration": "one version migration's progress, read by its id",
    "api-workflow-migration": "one version migration's progress, read by its id",
}


@dataclass(frozen=True)
class Pattern:
    label: str
    url: str
    post: dict | None = None  # a read sent as a form (live counts, previews)

    @property
    def name(self) -> str:
        return resolve(self.url.split("?", 1)[0]).url_name


def _url(name: str, query: str = "", **kwargs) -> str:
    return reverse(name, kwargs=kwargs) + (f"?{query}" if query else "")


def _routes():
    """(route, pattern) of every URL pattern but the admin's."""

    def walk(resolver, prefix=""):
        for p in resolver.url_patterns:
            route = prefix + str(p.pattern)
            if isinstance(p, URLResolver):
                yield from walk(p, route)
            elif isinstance(p, URLPattern) and p.name and not route.startswith("admin/"):
                yield route, p

    return list(walk(get_resolver()))


def unmeasured(client, patterns: list[Pattern]) -> set[str]:
    """GET patterns of the pages and the API that no pattern measures and ``NOT_MEASURED`` does not name.

    An API view answers GET when its class has ``get``; a page view is asked (signed in, ids that may not exist):
    one that refuses GET (405, ``require_POST``) is a write."""
    measured = {p.name for p in patterns} | set(NOT_MEASURED)
    missing = set()
    for route, pattern in _routes():
        if pattern.name in measured:
            continue
        view = getattr(pattern.callback, "view_class", None) or getattr(pattern.callback, "cls", None)
        if view is not None:
            if hasattr(view, "get") and "get" in view.http_method_names:
                missing.add(pattern.name)
            continue
        if route.startswith("api/"):
            continue  # the API's JSON 404 for unknown addresses
        address = "/" + re.sub(r"<(?:(\w+):)?\w+>", lambda m: "x" if m.group(1) == "str" else "1", route)
        if client.get(address).status_code != 405:
            missing.add(pattern.name)
    return missing


def patterns_of(workspace) -> list[Pattern]:
    """Every staff page and API read with the common filters, and the admin's lists of the big tables."""
    ws = workspace
    rows = BrowserTask.objects.filter(workspace=ws)
    task = rows.order_by("-id").first()
    target = Target.objects.filter(workspace=ws).order_by("id").first()
    journey = Campaign.objects.filter(workspace=ws, name="سفر 1").get()
    review = Campaign.objects.filter(workspace=ws, name="سفر بازبینی").get()
    chain = ChainNode.objects.filter(workspace=ws, name="زنجیره 1").get()
    pending = ChainNode.objects.filter(workspace=ws, name="زنجیره در انتظار تأیید").get()
    browser = Campaign.objects.filter(workspace=ws, name="مرورگر 1").get()
    draft_browser = Campaign.objects.filter(workspace=ws, name="مرورگر پیش‌نویس").get()
    first_list = TargetList.objects.filter(workspace=ws).order_by("id").first()
    execution = Execution.objects.filter(workspace=ws).order_by("id").first()
    attempt = SmsAttempt.objects.filter(workspace=ws).order_by("-id").first()
    run = CampaignRun.objects.filter(campaign=chain, snapshots__status="FROZEN").get()
    imported = TargetImport.objects.filter(workspace=ws).latest("id")
    batch = EnrollmentBatch.objects.filter(campaign=review).latest("id")
    package = ChainApprovalPackage.objects.filter(root=pending).latest("id")
    workflow = Workflow.objects.filter(workspace=ws, name="بنچ").get()
    draft_workflow = Workflow.objects.filter(workspace=ws, name="پیش‌نویس معرفی").get()
    template = SmsTemplate.objects.filter(workspace=ws).order_by("id").first()
    account = SmsProviderAccount.objects.filter(workspace=ws).order_by("id").first()
    blocked = BlacklistEntry.objects.filter(workspace=ws).order_by("-id").first()
    conversion = ConversionEvent.objects.filter(workspace=ws).order_by("-id").first()
    reply = InboundSms.objects.filter(workspace=ws, target__isnull=False).order_by("-id").first()
    deep_reply = InboundSms.objects.filter(workspace=ws).order_by("-received_at", "-id")[5000:5001].first()
    deep_replies = encode_cursor(deep_reply.received_at, deep_reply.id, "n") if deep_reply else ""
    browser_account = BrowserAccount.objects.filter(workspace=ws).latest("id")
    proxy = Proxy.objects.filter(workspace=ws).latest("id")
    config = ActionConfig.objects.filter(workspace=ws).latest("id")
    platform = CampaignPlatform.objects.filter(campaign=browser).get()
    count = Target.objects.filter(workspace=ws).count()
    name_fragment = f"رضایی {count // 2 + 7}"[:12]  # ~ one in ten thousand names
    phone = f"{BASE_MOBILE + count // 3}"[-7:]  # a fragment of one number
    today = timezone.localdate()
    since = to_jalali(today - timedelta(days=30))
    deep = SmsAttempt.objects.filter(workspace=ws).order_by("-request_at", "-id")[5000:5001].first()
    deep_attempts = encode_cursor(deep.request_at, deep.id, "n") if deep else ""
    events = ExecutionEvent.objects.filter(workspace=ws, campaign=journey).order_by("-occurred_at", "-id")
    deep_event = events[5000:5001].first()
    deep_events = encode_cursor(deep_event.occurred_at, deep_event.id, "n") if deep_event else ""
    status = TargetStatus.values[1]
    audience = {"audience_list": str(first_list.id), "aud_status": ["new", "following"]}
    preview = {"parent": str(chain.id), "schedule_type": "AFTER_INTERVAL", "offset_days": "2", "run_time": "09:00"}
    # One subscribed endpoint (its delivery log starts empty: deliveries are not part of the measured world yet).
    webhook, _ = WebhookEndpoint.objects.get_or_create(
        workspace=ws, url="https://hooks.example.com/bench", defaults={"events": ["webhook.test"], "secret": "s"}
    )
    P = Pattern
    return [
        P("floor: /api/v1/me", _url("api-me")),
        # --- pages
        P("page home", _url("home")),
        P("page targets", _url("target-list")),
        P("page targets ?status", _url("target-list", f"status={status}")),
        P("page targets ?list", _url("target-list", f"list={first_list.id}")),
        P("page targets search name", _url("target-list", f"q={name_fragment}")),
        P("page targets search phone", _url("target-list", f"q={phone}")),
        P("page targets search phone fa", _url("target-list", f"q={phone.translate(PERSIAN_DIGITS)}")),
        P("page targets export (list)", _url("target-list", f"list={first_list.id}&export=xlsx")),
        P("page target new", _url("target-new")),
        P("page target edit", _url("target-edit", target_id=target.id)),
        P("page target import", _url("target-import")),
        P("page target import report", _url("target-import-detail", import_id=imported.id)),
        P("page workspace settings", _url("workspace-settings")),
        P("page journey campaigns", _url("journey-campaign-list")),
        P("page journey campaign new", _url("journey-campaign-new")),
        P("page journey dashboard", _url("journey-campaign-dashboard", campaign_id=journey.id)),
        P("page journey dashboard ?part=live", _url("journey-campaign-dashboard", "part=live", campaign_id=journey.id)),
        P("page journey health", _url("journey-health")),
        P("page journey health ?campaign", _url("journey-health", f"campaign={journey.id}")),
        P("page journey edit", _url("journey-campaign-edit", campaign_id=review.id)),
        P("page journey dashboard (draft: launch check)", _url("journey-campaign-dashboard", campaign_id=review.id)),
        P("page journey enroll", _url("journey-campaign-enroll", campaign_id=review.id)),
        P("page journey review (20,000)", _url("journey-enrollment-review", campaign_id=review.id, batch_id=batch.id)),
        P(
            "page journey review progress",
            _url("journey-enrollment-progress", campaign_id=review.id, batch_id=batch.id),
        ),
        P("page journey targets", _url("journey-campaign-targets", campaign_id=journey.id)),
        P("page journey auto-enroll", _url("journey-campaign-auto-enroll", campaign_id=journey.id)),
        P(
            "page journey auto-enroll count",
            _url("journey-auto-enroll-count", campaign_id=journey.id),
            post={"status": ["new"], "list": str(first_list.id)},
        ),
        P("page journey logs", _url("journey-campaign-logs", campaign_id=journey.id)),
        P(
            "page journey logs ?cursor (row 5,000)",
            _url("journey-campaign-logs", f"cursor={deep_events}", campaign_id=journey.id),
        ),
        P("page workflows", _url("workflow-list")),
        P("page workflow new", _url("workflow-new")),
        P("page workflow", _url("workflow-detail", workflow_id=workflow.id)),
        # Counts the workflow's live executions by version (the migration step's question) at full size.
        P("page workflow migrate", _url("workflow-migrate", workflow_id=workflow.id)),
        P("page api keys", _url("api-keys")),
        P("page webhooks", _url("webhooks")),
        P("page webhook detail", _url("webhook-detail", webhook_id=webhook.id)),
        P("page workflow builder", _url("workflow-builder", workflow_id=draft_workflow.id)),
        P("page sms log", _url("sms-attempts")),
        P("page sms log ?campaign&since", _url("sms-attempts", f"campaign={journey.id}&since={since}")),
        P("page sms log ?cursor (row 5,000)", _url("sms-attempts", f"cursor={deep_attempts}")),
        P("page sms inbox (unread)", _url("sms-inbox")),
        P("page sms inbox ?state=all", _url("sms-inbox", "state=all")),
        P("page sms inbox ?campaign", _url("sms-inbox", f"state=all&campaign={journey.id}")),
        P("page sms inbox ?matched=no", _url("sms-inbox", "state=all&matched=no")),
        P("page sms inbox ?outcome=opt_out", _url("sms-inbox", "state=all&outcome=opt_out")),
        P("page sms inbox ?cursor (row 5,000)", _url("sms-inbox", f"state=all&cursor={deep_replies}")),
        P("page target with replies", _url("target-edit", target_id=reply.target_id)),
        P("page sms blacklist", _url("sms-blacklist")),
        P("page sms blacklist search", _url("sms-blacklist", "q=5000123")),
        P("page sms templates", _url("sms-templates")),
        P("page sms template new", _url("sms-template-new")),
        P("page sms template", _url("sms-template-edit", template_id=template.id)),
        P("page sms settings", _url("sms-settings")),
        P("page sms account", _url("sms-account-edit", account_id=account.id)),
        P("page chain groups", _url("chain-groups")),
        P("page chain group", _url("chain-group", group_id=chain.group_id)),
        P("page chain campaign new", _url("chain-campaign-new", group_id=chain.group_id)),
        P("page chain campaign edit", _url("chain-campaign-edit", campaign_id=pending.id)),
        P("page chain audience count", _url("chain-audience-count"), post=audience),
        P("page chain preview", _url("chain-preview"), post=preview),
        P("page chain runs", _url("chain-campaign-runs", campaign_id=chain.id)),
        P("page chain run export", _url("chain-run-export", run_id=run.id)),
        P("page chain approvals", _url("chain-packages")),
        P("page chain approval", _url("chain-package", package_id=package.id)),
        P(
            "page chain approval: people behind a count",
            _url("package-launch-excluded", "reason=blacklisted", package_id=package.id, campaign_id=package.root_id),
        ),
        P("page notifications", _url("notification-list")),
        P("page follow-ups", _url("my-followups")),
        P("page browser campaigns", _url("browser-campaigns")),
        P("page browser campaign new", _url("browser-campaign-new")),
        P("page browser campaign accounts", _url("browser-campaign-accounts", "platform=demo")),
        P("page browser campaign", _url("browser-campaign", campaign_id=browser.id)),
        P("page browser campaign progress", _url("browser-campaign-progress", campaign_id=browser.id)),
        P("page browser campaign edit", _url("browser-campaign-edit", campaign_id=draft_browser.id)),
        P("page browser accounts", _url("browser-accounts")),
        P("page browser account new", _url("browser-account-new")),
        P("page browser account", _url("browser-account-edit", account_id=browser_account.id)),
        P("page browser account import", _url("browser-account-import")),
        P("page browser proxies", _url("browser-proxies")),
        P("page browser proxy new", _url("browser-proxy-new")),
        P("page browser proxy", _url("browser-proxy-edit", proxy_id=proxy.id)),
        P("page browser proxy import", _url("browser-proxy-import")),
        # --- API
        P("api targets", _url("api-targets")),
        P("api targets search name", _url("api-targets", f"q={name_fragment}")),
        P("api targets search phone", _url("api-targets", f"q={phone}")),
        P("api targets search phone fa", _url("api-targets", f"q={phone.translate(PERSIAN_DIGITS)}")),
        P("api target", _url("api-target", target_id=target.id)),
        P("api target timeline (500)", _url("api-target-timeline", target_id=target.id)),
        P("api target executions", _url("api-target-executions", target_id=target.id)),
        P("api targets export (list)", _url("api-targets-export", f"list={first_list.id}")),
        P("api target import", _url("api-target-import", import_id=imported.id)),
        P("api target import rows", _url("api-target-import-rows", import_id=imported.id)),
        P("api target import rows ?outcome", _url("api-target-import-rows", "outcome=invalid", import_id=imported.id)),
        P("api target lists", _url("api-target-lists")),
        P("api target list", _url("api-target-list", list_id=first_list.id)),
        P("api campaigns", _url("api-campaigns")),
        P("api campaign", _url("api-campaign", campaign_id=journey.id)),
        P("api notifications", _url("api-notifications")),
        P("api notifications unread", _url("api-notifications-unread")),
        P("api activities", _url("api-activities")),
        P("api journey stats", _url("api-journey-stats", campaign_id=journey.id)),
        P("api journey launch-check", _url("api-journey-launch-check", campaign_id=journey.id)),
        P("api journey health", _url("api-health-journeys")),
        P("api automation catalog", _url("api-automation-catalog")),
        P("api workflows", _url("api-workflows")),
        P("api workflow", _url("api-workflow", workflow_id=workflow.id)),
        P("api workflow graph", _url("api-workflow-graph", workflow_id=workflow.id)),
        P("api workflow defaults", _url("api-workflow-defaults", workflow_id=workflow.id)),
        P("api webhooks", _url("api-webhooks")),
        P("api webhook", _url("api-webhook", webhook_id=webhook.id)),
        P("api webhook deliveries", _url("api-webhook-deliveries", webhook_id=webhook.id)),
        P("api auto-enroll", _url("api-journey-auto-enroll", campaign_id=journey.id)),
        P("api enrollment (20,000)", _url("api-enrollment-batch", batch_id=batch.id)),
        P("api enrollment items", _url("api-enrollment-items", batch_id=batch.id)),
        P("api enrollment items ?class", _url("api-enrollment-items", "klass=conflict", batch_id=batch.id)),
        P("api executions", _url("api-executions")),
        P("api executions ?campaign", _url("api-executions", f"campaign={journey.id}")),
        P("api execution", _url("api-execution", execution_id=execution.id)),
        P("api execution events", _url("api-execution-events", execution_id=execution.id)),
        P("api sms attempts", _url("api-sms-attempts")),
        P(
            "api sms attempts ?campaign&since",
            _url("api-sms-attempts", f"campaign={journey.id}&since={today - timedelta(days=30)}T00:00:00Z"),
        ),
        P("api sms attempts ?cursor (row 5,000)", _url("api-sms-attempts", f"cursor={deep_attempts}")),
        P("api sms attempt", _url("api-sms-attempt", attempt_id=attempt.id)),
        P("api sms blacklist", _url("api-sms-blacklist")),
        P("api sms blacklist entry", _url("api-sms-blacklist-entry", entry_id=blocked.id)),
        P("api sms blacklist export", _url("api-sms-blacklist-export")),
        P("api sms templates", _url("api-sms-templates")),
        P("api sms template", _url("api-sms-template", template_id=template.id)),
        P("api sms settings", _url("api-sms-settings")),
        P("api sms providers", _url("api-sms-providers")),
        P("api sms inbound", _url("api-sms-inbound")),
        P("api sms inbound ?unread", _url("api-sms-inbound", "unread=true")),
        P("api sms inbound ?matched=false", _url("api-sms-inbound", "matched=false")),
        P("api sms inbound ?opt_outs&line", _url("api-sms-inbound", "opt_outs=true&line=1000")),
        P("api sms inbound ?campaign", _url("api-sms-inbound", f"campaign={journey.id}")),
        P("api sms inbound ?number", _url("api-sms-inbound", f"number={phone}")),
        P("api sms inbound ?cursor (row 5,000)", _url("api-sms-inbound", f"cursor={deep_replies}")),
        P("api sms inbound message", _url("api-sms-inbound-message", message_id=reply.id)),
        P("api sms inbound words", _url("api-sms-inbound-words")),
        P("api sms conversation", _url("api-sms-conversation", target_id=reply.target_id)),
        P("api campaign groups", _url("api-campaign-groups")),
        P("api campaign group", _url("api-campaign-group", group_id=chain.group_id)),
        P("api campaign tree", _url("api-campaign-tree", group_id=chain.group_id)),
        P("api inheritance sources", _url("api-inheritance-sources", group_id=chain.group_id)),
        P("api chain campaign", _url("api-chain-campaign", campaign_id=chain.id)),
        P("api chain approval", _url("api-chain-approval", package_id=package.id)),
        P("api chain approval launch-check", _url("api-chain-approval-launch-check", package_id=package.id)),
        P("api campaign runs", _url("api-runs")),
        P("api chain runs", _url("api-campaign-runs", campaign_id=chain.id)),
        P("api chain run summary", _url("api-campaign-run-summary", campaign_id=chain.id)),
        P("api chain lift", _url("api-campaign-lift", campaign_id=chain.id)),
        P("api run", _url("api-run", run_id=run.id)),
        P("api run lift", _url("api-run-lift", run_id=run.id)),
        P("api run audience export", _url("api-run-export", run_id=run.id)),
        P("api conversion events", _url("api-conversion-events")),
        P("api conversion event", _url("api-conversion-event", event_id=conversion.id)),
        P("api browser accounts", _url("api-browser-accounts")),
        P("api browser account", _url("api-browser-account", account_id=browser_account.id)),
        P("api browser proxies", _url("api-browser-proxies")),
        P("api browser proxy", _url("api-browser-proxy", proxy_id=proxy.id)),
        P("api browser action configs", _url("api-browser-action-configs")),
        P("api browser action config", _url("api-browser-action-config", config_id=config.id)),
        P("api browser platforms", _url("api-browser-platforms")),
        P("api browser platform", _url("api-browser-platform", platform_id=platform.id)),
        P("api browser tasks", _url("api-browser-tasks")),
        P("api browser task", _url("api-browser-task", task_id=task.id)),
        P("api browser statistics", _url("api-browser-campaign-statistics", campaign_id=browser.id)),
        # --- the admin's lists of the big tables (the owner as workspace staff: the workspace's rows)
        P("admin targets", reverse("admin:campaigns_target_changelist")),
        P("admin targets search", reverse("admin:campaigns_target_changelist") + f"?q={phone}"),
        P("admin target", reverse("admin:campaigns_target_change", args=[target.id])),
        P("admin executions", reverse("admin:automation_execution_changelist")),
        P("admin execution events", reverse("admin:automation_executionevent_changelist")),
        P("admin sms attempts", reverse("admin:sms_smsattempt_changelist")),
        P("admin blacklist", reverse("admin:sms_blacklistentry_changelist")),
        P("admin browser tasks", reverse("admin:workers_browsertask_changelist")),
        P("admin import rows", reverse("admin:campaigns_targetimportrow_changelist")),
        P("admin enrollment items", reverse("admin:automation_enrollmentitem_changelist")),
        P("admin follow-ups", reverse("admin:campaigns_activity_changelist")),
        P("admin notifications", reverse("admin:campaigns_notification_changelist")),
        P("admin campaign runs", reverse("admin:chains_campaignrun_changelist")),
    ]
