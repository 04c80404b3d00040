"""The rows every other page of ``bench_pages`` reads, at a year's size where size matters.

Written after the big tables (``tests.bench.management.commands.bench_pages.Seed``), into the same data template: an
import report of ``IMPORT_MAX_ROWS`` rows, an enrollment review of ``MAX_SUBJECTS`` targets (many of them live
in other journeys: conflicts to decide), a chain waiting for approval in a package, a year of follow-ups and
notifications for the owner, conversions for the chains' lift, a year of replies (a tenth from unknown numbers, a
twentieth opt-outs, a quarter unread), SMS templates, a draft workflow, browser
accounts, proxies and action configs. Services write what has rules (the preview, the package, the workflow);
COPY writes what is only rows. Every app is read through its public models.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import Group, Permission

from automation.services.campaigns import journey_campaign_create
from automation.services.enrollment import MAX_SUBJECTS
from automation.services.enrollment_batches import enrollment_batch_preview
from automation.services.workflows import workflow_create, workflow_new_draft, workflow_publish
from campaigns.approval_selectors import WORKSPACE_APPROVAL_SETTING
from campaigns.chains.models import (
    CampaignGroup,
    CampaignRun,
    ChainNode,
    ConversionEvent,
    RunAudienceMember,
    RunAudienceSnapshot,
)
from campaigns.chains.services.approval import campaign_submit
from campaigns.chains.text import name_key, search_text
from campaigns.choices import ImportOutcome, ImportStatus
from campaigns.models import Campaign, Target, TargetImport, TargetImportRow
from campaigns.notifications.models import Activity, Notification
from sms.choices import InboundOutcome
from sms.inbound.models import InboundSms
from sms.models import SmsProviderAccount
from sms.services import sms_template_create
from tests.bench.pages_patterns import BASE_MOBILE
from workers.models import ActionConfig, BrowserAccount, CampaignPlatform, Proxy

FULL = {  # rows at --scale 1
    "import_rows": 100_000,  # IMPORT_MAX_ROWS: the largest report one import writes
    "activities": 100_000,
    "notifications": 10_000,
    "conversions": 100_000,
    "accounts": 500,
    "proxies": 100,
    "replies": 200_000,
}
TEMPLATES, ACTION_CONFIGS = 50, 10
GOAL = {"type": "TARGET_STATUS", "statuses": ["converted"]}
ACTION = {"channel": "sms", "content": "سلام {{first_name}}"}


class PagesWorld:
    """``world(actor, targets, lists, workflow_id, now)`` writes the rows (the patterns find them by name)."""

    def __init__(self, scale: float, copy_rows) -> None:
        self.n = {key: max(1, int(value * scale)) for key, value in FULL.items()}
        self.n["batch"] = max(1, min(MAX_SUBJECTS, int(MAX_SUBJECTS * scale)))
        self.copy_rows = copy_rows

    def __call__(self, actor, targets: range, lists: list, workflow_id: int, now) -> None:
        workspace = actor.workspace
        self._staff(actor)
        self._import(actor, targets, now)
        self._frozen_run(workspace, now)
        self._review(actor, targets, workflow_id)
        self._package(actor, lists[0])
        self._people(actor, targets, now)
        self._replies(workspace, targets, now)
        for k in range(TEMPLATES):
            sms_template_create(actor=actor, name=f"قالب {k + 1}", body=f"سلام {{{{first_name}}}}، پیشنهاد {k + 1}")
        workflow_create(actor=actor, name="پیش‌نویس معرفی", template="three_step_intro")
        self._browser(workspace, now)
        # A second version of the big journey: its executions stand on the first, so the migration step reads
        # every one of them (counts per step) at full size.
        workflow_new_draft(actor=actor, workflow_id=workflow_id)
        workflow_publish(actor=actor, workflow_id=workflow_id, note="نسخهٔ دوم")

    def _staff(self, actor) -> None:
        """The owner works in the admin too: staff, with the model permissions (the admin scopes the rows)."""
        group = Group.objects.create(name="کارکنان بنچ")
        group.permissions.set(Permission.objects.all())
        actor.user.groups.add(group)

    def _frozen_run(self, workspace, now) -> None:
        """The first chain's latest completed run froze the export list's members (its export and lift)."""
        run = (
            CampaignRun.objects.filter(campaign__workspace=workspace, campaign__name="زنجیره 1", status="COMPLETED")
            .order_by("-id")
            .first()
        )
        members = list(
            Target.lists.through.objects.filter(targetlist__workspace=workspace, targetlist__name="فهرست 1")
            .order_by("target_id")
            .values_list("target_id", flat=True)
        )
        snapshot = RunAudienceSnapshot.objects.create(
            workspace=workspace,
            run=run,
            attempt_no=1,
            status="FROZEN",
            member_count=len(members),
            control_count=len(members) // 10,
            frozen_at=now,
        )
        rows = ((snapshot.id, snapshot.build_id, target_id, i % 10 == 0) for i, target_id in enumerate(members))
        self.copy_rows(RunAudienceMember, ["snapshot_id", "build_id", "target_id", "is_control"], rows, now=now)

    def _import(self, actor, targets: range, now) -> None:
        count = self.n["import_rows"]
        imported = TargetImport.objects.create(
            workspace=actor.workspace,
            created_by=actor.user,
            file_name="مشتریان-۱۴۰۵.xlsx",
            status=ImportStatus.COMPLETED,
            total_rows=count,
            processed_rows=count,
            created_count=count - count // 10,
            invalid_count=count // 10,
            finished_at=now,
        )
        outcomes = (ImportOutcome.CREATED, ImportOutcome.UPDATED, ImportOutcome.DUPLICATE, ImportOutcome.INVALID)

        def rows():
            for i in range(count):
                outcome = outcomes[i % len(outcomes)]
                target = None if outcome == ImportOutcome.INVALID else targets[i % len(targets)]
                reason = "شماره نامعتبر" if outcome == ImportOutcome.INVALID else ""
                yield (actor.workspace.id, imported.id, i + 2, outcome, reason, target)

        columns = ["workspace_id", "target_import_id", "row_number", "outcome", "reason", "target_id"]
        self.copy_rows(TargetImportRow, columns, rows(), now=now)

    def _review(self, actor, targets: range, workflow_id: int) -> None:
        """A draft journey and a review of MAX_SUBJECTS targets: most are live in other journeys (conflicts)."""
        campaign = journey_campaign_create(actor=actor, name="سفر بازبینی", workflow_id=workflow_id)
        ids = list(targets[: self.n["batch"]])
        enrollment_batch_preview(actor=actor, campaign_id=campaign.id, target_ids=ids)

    def _package(self, actor, audience) -> None:
        """A three-campaign chain on the export list, submitted: its package waits for the second approver."""
        workspace = actor.workspace
        workspace.settings = {**(workspace.settings or {}), WORKSPACE_APPROVAL_SETTING: True}
        workspace.save(update_fields=["settings"])
        name = "گروه تأیید"
        group = CampaignGroup.objects.create(
            workspace=workspace, name=name, name_key=name_key(name), name_search=search_text(name)
        )
        root = ChainNode.objects.create(
            workspace=workspace,
            group=group,
            name="زنجیره در انتظار تأیید",
            root_schedule={"type": "MONTHLY", "day": 1, "time": "09:00"},
            goal=GOAL,
            chain_action=ACTION,
            source_target_list=audience,
            created_by=actor.user,
        )
        root.root = root
        root.save(update_fields=["root"])
        after = {"type": "AFTER_INTERVAL", "offset_days": 2, "run_time": "09:00"}
        for kind in ("NOT_CONVERTED", "CONVERTED"):
            ChainNode.objects.create(
                workspace=workspace,
                group=group,
                parent=root,
                root=root,
                name=f"دنباله {kind}",
                inheritance={"type": kind, "schedule": after},
                goal=GOAL,
                chain_action=ACTION,
                created_by=actor.user,
            )
        campaign_submit(actor=actor, campaign_id=root.id, expected_chain_revision=root.chain_revision)

    def _people(self, actor, targets: range, now) -> None:
        """A year of follow-ups and notifications for the owner, and the conversions the chains' lift reads."""
        workspace, user = actor.workspace, actor.user
        count = self.n["activities"]

        def activities():
            for i in range(count):
                due = now + timedelta(hours=(i % 2160) - 1080)  # 45 days either side
                status = "done" if i % 3 == 0 else "open"
                yield (workspace.id, targets[(i * 7) % len(targets)], f"تماس پیگیری {i + 1}", due, user.id, status)

        columns = ["workspace_id", "target_id", "title", "due_at", "assignee_id", "status"]
        self.copy_rows(Activity, columns, activities(), now=now)
        count = self.n["notifications"]

        def notifications():
            for i in range(count):
                read = None if i % 4 == 0 else now
                yield (workspace.id, user.id, "import_finished", f"اعلان {i + 1}", f"bench:{i}", read)

        columns = ["workspace_id", "recipient_id", "kind", "title", "dedupe_key", "read_at"]
        self.copy_rows(Notification, columns, notifications(), now=now)
        count = self.n["conversions"]

        def conversions():
            for i in range(count):
                yield (workspace.id, targets[(i * 13) % len(targets)], "purchase", now - timedelta(minutes=i))

        self.copy_rows(ConversionEvent, ["workspace_id", "target_id", "name", "occurred_at"], conversions(), now=now)

    def _replies(self, workspace, targets: range, now) -> None:
        """A year of replies on the console line: most from targets (matched), some from unknown numbers."""
        account = SmsProviderAccount.objects.filter(workspace=workspace).order_by("id").first()
        count, span = self.n["replies"], 365 * 86400

        def rows():
            for i in range(count):
                k = (i * 17) % len(targets)
                matched = i % 10 != 0
                number = f"+98{BASE_MOBILE + k}" if matched else f"+98935{i:07d}"
                outcome = InboundOutcome.OPT_OUT if i % 20 == 1 else InboundOutcome.NONE
                text = "لغو۱۱" if outcome else f"ممنون، پاسخ {i + 1}"
                at = now - timedelta(seconds=(count - i) * span // count)
                target = targets[k] if matched else None
                yield (
                    workspace.id,
                    account.id,
                    "console",
                    f"bench:{i}",
                    "1000",
                    number,
                    text,
                    at,
                    target,
                    i % 4 != 0,
                    outcome,
                )

        columns = ["workspace_id", "account_id", "provider", "provider_message_id", "line", "number", "text"]
        columns += ["received_at", "target_id", "is_read", "outcome"]
        self.copy_rows(InboundSms, columns, rows(), now=now)

    def browser_accounts(self, workspace) -> list:
        """Accounts (cookies encrypted by their field) behind proxies: written before the browser tasks, which
        spread over them."""
        proxies = Proxy.objects.bulk_create(
            [
                Proxy(workspace=workspace, label=f"پراکسی {k + 1}", host=f"proxy{k}.example.com", port=3128)
                for k in range(self.n["proxies"])
            ]
        )
        return BrowserAccount.objects.bulk_create(
            [
                BrowserAccount(
                    workspace=workspace,
                    label=f"حساب {k + 1}",
                    platform="demo",
                    cookies=f"session=bench-{k}",
                    cookie_count=1,
                    proxy=proxies[k % len(proxies)],
                )
                for k in range(self.n["accounts"])
            ],
            batch_size=500,
        )

    def _browser(self, workspace, now) -> None:
        """A draft browser campaign (its edit page) and the action configs of a busy team."""
        draft = Campaign.objects.create(workspace=workspace, name="مرورگر پیش‌نویس", kind="browser")
        accounts = list(BrowserAccount.objects.filter(workspace=workspace).values_list("id", flat=True)[:20])
        CampaignPlatform.objects.create(
            workspace=workspace,
            campaign=draft,
            platform="demo",
            start_date=now,
            metadata={
                "account_ids": accounts,
                "action_type": "like",
                "target_links": [f"https://example.com/post/{k}" for k in range(200)],
            },
        )
        ActionConfig.objects.bulk_create(
            [
                ActionConfig(workspace=workspace, platform=f"site{k}", action_type="like", steps=[])
                for k in range(ACTION_CONFIGS)
            ]
        )
