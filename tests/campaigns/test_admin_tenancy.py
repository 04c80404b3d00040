"""The Django admin across workspaces: a staff non-superuser only sees and edits its own workspaces,
never reads tokens, cannot make itself owner elsewhere, cannot point SMS settings at another workspace's
provider account; every model and service refuses a relation to another workspace's row."""

import itertools
import json
from datetime import timedelta

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from automation.models import (
    AutomationSettings,
    CampaignJourney,
    DailyCounter,
    Execution,
    ExecutionEvent,
    Workflow,
    WorkflowEdge,
    WorkflowNode,
    WorkflowTemplate,
    WorkflowTextChange,
    WorkflowVersion,
)
from campaigns.chains.models import CampaignGroup, ChainApprovalPackage, ChainNode
from campaigns.choices import Role
from campaigns.models import (
    ApiToken,
    Campaign,
    CampaignEvent,
    Membership,
    Target,
    TargetImport,
    TargetImportRow,
    TargetList,
)
from campaigns.platform.admin import (
    ReadOnlyAdmin,
    ScopedUserAdminMixin,
    SuperuserOnlyMixin,
    WorkspaceScopedAdmin,
)
from campaigns.platform.errors import NotFound, ValidationFailed
from campaigns.platform.integrity import has_workspace
from sms import channel
from sms.models import (
    BlacklistEntry,
    SmsAttempt,
    SmsChannelEvent,
    SmsLogEvent,
    SmsProviderAccount,
    SmsSettings,
    SmsTemplate,
)
from sms.providers import SendResponse
from sms.services import sms_settings_update
from workers.models import (
    ActionConfig,
    BrowserAccount,
    BrowserEvent,
    BrowserTask,
    BrowserTaskScreenshot,
    CampaignPlatform,
    CampaignStatistics,
    Proxy,
)
from workers.services.accounts import account_create, account_update

from ..conftest import make_actor, make_member, make_target, make_workspace

pytestmark = pytest.mark.django_db

PROJECT_APPS = {"platform", "campaigns", "automation", "sms", "workers"}
MARK = "BRAVO"  # every name in the other workspace carries it; it must never show up for staff of A
_seq = itertools.count(1)


def build_world(ws, mark: str) -> dict[str, models.Model]:
    """One row of (nearly) every workspace-owned model, all in ``ws``."""
    now = timezone.now()
    n = next(_seq)
    rows: dict[str, models.Model] = {}
    tl = rows["targetlist"] = TargetList.objects.create(workspace=ws, name=f"{mark} list {n}")
    target = rows["target"] = make_target(ws, name=f"{mark} target {n}")
    target.lists.add(tl)
    wf = rows["workflow"] = Workflow.objects.create(workspace=ws, name=f"{mark} workflow {n}")
    version = rows["workflowversion"] = WorkflowVersion.objects.create(
        workspace=ws, workflow=wf, version_number=1, note=f"{mark} note"
    )
    start = WorkflowNode.objects.create(
        workspace=ws, version=version, node_key=f"start{n}", type="start", subtype="manual", name=f"{mark} start"
    )
    node = rows["workflownode"] = WorkflowNode.objects.create(
        workspace=ws, version=version, node_key=f"sms{n}", type="action", subtype="send_sms", name=f"{mark} sms"
    )
    rows["workflowedge"] = WorkflowEdge.objects.create(workspace=ws, version=version, from_node=start, to_node=node)
    rows["workflowtemplate"] = WorkflowTemplate.objects.create(workspace=ws, name=f"{mark} template {n}")
    rows["workflowtextchange"] = WorkflowTextChange.objects.create(
        workspace=ws, workflow=wf, version=version, node_key=f"sms{n}", old_text=f"{mark} old", new_text=f"{mark} new"
    )
    rows["automationsettings"] = AutomationSettings.objects.create(workspace=ws, timezone=f"{mark}/Zone")
    group = rows["campaigngroup"] = CampaignGroup.objects.create(
        workspace=ws, name=f"{mark} group {n}", name_key=f"{mark.lower()} group {n}", name_search=f"{mark} group"
    )
    campaign = rows["campaign"] = ChainNode.objects.create(
        workspace=ws,
        name=f"{mark} campaign {n}",
        source_target_list=tl,
        group=group,
    )
    rows["campaignjourney"] = CampaignJourney.objects.create(
        campaign=campaign, workspace=ws, workflow=wf, workflow_version=version
    )
    rows["campaignchain"] = campaign
    ChainNode.objects.filter(pk=campaign.pk).update(root=campaign)
    rows["campaignevent"] = CampaignEvent.objects.create(workspace=ws, campaign=campaign, type=f"{mark}_event")
    imp = rows["targetimport"] = TargetImport.objects.create(workspace=ws, file_name=f"{mark}-{n}.csv", target_list=tl)
    rows["targetimportrow"] = TargetImportRow.objects.create(
        workspace=ws, target_import=imp, row_number=1, outcome="created", reason=f"{mark} row", target=target
    )
    rows["chainapprovalpackage"] = ChainApprovalPackage.objects.create(
        workspace=ws, root=campaign, submitted_revision=1, submitted_at=now, reason=f"{mark} reason"
    )
    ct = ContentType.objects.get_for_model(Target)
    execution = rows["execution"] = Execution.objects.create(
        workspace=ws,
        campaign=campaign,
        workflow=wf,
        version=version,
        subject_type=ct,
        subject_id=target.id,
        current_node=node,
        end_reason=f"{mark}",
    )
    rows["executionevent"] = ExecutionEvent.objects.create(
        workspace=ws,
        execution=execution,
        campaign=campaign,
        subject_type=ct,
        subject_id=target.id,
        node=node,
        type="enrolled",
        message=f"{mark} message",
        occurred_at=now,
    )
    rows["dailycounter"] = DailyCounter.objects.create(
        workspace=ws, scope="campaign", scope_id=campaign.id, channel=f"{mark}sms", day=now.date()
    )
    account = rows["smsprovideraccount"] = SmsProviderAccount.objects.create(
        workspace=ws,
        name=f"{mark} account {n}",
        provider="console",
        credentials=json.dumps({"api_key": f"{mark}-api-key-{n}"}),
        senders=["3000"],
    )
    rows["smssettings"] = SmsSettings.objects.create(workspace=ws, primary_account=account, pause_reason=f"{mark}")
    attempt = rows["smsattempt"] = SmsAttempt.objects.create(
        workspace=ws,
        execution=execution,
        workflow=wf,
        campaign=campaign,
        subject_type=ct,
        subject_id=target.id,
        node=node,
        phone=target.mobile,
        message=f"{mark} text",
        idempotency_key=f"{mark}-{n}",
        request_at=now,
    )
    rows["smslogevent"] = SmsLogEvent.objects.create(
        workspace=ws, attempt=attempt, event=f"{mark}_report", dedupe_key=f"d{n}", occurred_at=now
    )
    rows["blacklistentry"] = BlacklistEntry.objects.create(
        workspace=ws, value=f"+98912{n:07d}", description=f"{mark} blocked"
    )
    rows["smstemplate"] = SmsTemplate.objects.create(workspace=ws, name=f"{mark} sms template", body="x")
    rows["smschannelevent"] = SmsChannelEvent.objects.create(workspace=ws, type=f"{mark}_opened")
    proxy = rows["proxy"] = Proxy.objects.create(
        workspace=ws, label=f"{mark} proxy {n}", host="proxy.example.com", port=3128
    )
    browser_account = rows["browseraccount"] = BrowserAccount.objects.create(
        workspace=ws, label=f"{mark} acc {n}", platform=f"{mark.lower()}plat", proxy=proxy
    )
    rows["actionconfig"] = ActionConfig.objects.create(
        workspace=ws, platform=f"{mark.lower()}plat", action_type="like", steps=[]
    )
    platform = rows["campaignplatform"] = CampaignPlatform.objects.create(
        workspace=ws,
        campaign=campaign,
        platform=f"{mark.lower()}plat",
        start_date=now,
        metadata={"account_ids": [browser_account.id]},
    )
    task = rows["browsertask"] = BrowserTask.objects.create(
        workspace=ws,
        campaign=campaign,
        platform=platform,
        account=browser_account,
        proxy=proxy,
        link=f"https://example.com/{mark}/{n}",
        action_type="like",
        start_date=now,
        error_reason=f"{mark} failure",
    )
    rows["browsertaskscreenshot"] = BrowserTaskScreenshot.objects.create(
        workspace=ws, task=task, png=b"png", url=f"https://example.com/{mark}"
    )
    rows["campaignstatistics"] = CampaignStatistics.objects.create(workspace=ws, campaign=campaign)
    rows["browserevent"] = BrowserEvent.objects.create(
        workspace=ws,
        type="task_failed",
        campaign=campaign,
        task=task,
        account=browser_account,
        proxy=proxy,
        message=f"{mark} event",
    )
    return rows


@pytest.fixture
def ws_a(db):
    return make_workspace("alpha")


@pytest.fixture
def ws_b(db):
    return make_workspace(MARK)


@pytest.fixture
def staff(ws_a):
    """A staff non-superuser with every model permission, owner of workspace A only."""
    user = make_member(ws_a, Role.OWNER, username="staff-alpha")
    user.is_staff = True
    user.save()
    user.user_permissions.set(Permission.objects.all())
    return get_user_model().objects.get(pk=user.pk)  # fresh permission cache


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


@pytest.fixture
def root_client(django_user_model):
    client = Client()
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "pw-123456"))
    return client


@pytest.fixture
def worlds(ws_a, ws_b):
    outsider = make_member(ws_b, Role.OWNER, username=f"{MARK}-owner")
    return build_world(ws_a, "ALPHA"), build_world(ws_b, MARK), outsider


def _url(model, name, *args):
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{name}", args=args)


def test_every_admin_applies_the_workspace_rules():
    for model, model_admin in admin.site._registry.items():
        if model._meta.app_label in PROJECT_APPS and (has_workspace(model) or model._meta.model_name == "workspace"):
            assert isinstance(model_admin, WorkspaceScopedAdmin), model._meta.label
        elif model is get_user_model():
            assert isinstance(model_admin, ScopedUserAdminMixin)
        elif not isinstance(model_admin, WorkspaceScopedAdmin):
            assert isinstance(model_admin, SuperuserOnlyMixin), model._meta.label


def test_staff_non_superuser_sees_only_its_workspace_on_every_changelist(staff_client, worlds):
    seen = 0
    for model, model_admin in admin.site._registry.items():
        response = staff_client.get(_url(model, "changelist"))
        html = response.content.decode()
        assert MARK not in html, f"{model._meta.label} shows another workspace's row"
        if isinstance(model_admin, SuperuserOnlyMixin):
            assert response.status_code == 403, model._meta.label
        else:
            assert response.status_code == 200, model._meta.label
            seen += 1
    assert seen >= 30
    index = staff_client.get("/admin/").content.decode()
    assert "django_celery_beat" not in index and "/admin/platform/apitoken/" not in index


def test_other_workspace_change_pages_are_not_found(staff_client, worlds):
    rows_a, rows_b, outsider = worlds
    checked = 0
    for model, model_admin in admin.site._registry.items():
        if not isinstance(model_admin, WorkspaceScopedAdmin):
            continue
        name = model._meta.model_name
        if name == "workspace":
            own, other = rows_a["target"].workspace, rows_b["target"].workspace
        elif name == "membership":
            own = Membership.objects.filter(workspace=rows_a["target"].workspace).first()
            other = Membership.objects.get(user=outsider)
        elif name in rows_b:
            own, other = rows_a[name], rows_b[name]
        else:
            continue
        assert staff_client.get(_url(model, "change", own.pk)).status_code == 200, model._meta.label
        for view in ("change", "delete", "history"):
            response = staff_client.get(_url(model, view, other.pk))
            assert response.status_code in (403, 404), (model._meta.label, view, response.status_code)
            assert MARK not in response.content.decode()
        checked += 1
    assert checked >= 30
    user_page = staff_client.get(_url(get_user_model(), "change", outsider.pk))
    assert user_page.status_code == 404


def test_staff_cannot_change_another_workspace_row_by_post(staff_client, worlds):
    _, rows_b, _ = worlds
    target = rows_b["target"]
    response = staff_client.post(_url(Target, "change", target.pk), {"name": "hijacked", "mobile": "09121234567"})
    assert response.status_code == 404
    assert Target.objects.get(pk=target.pk).name.startswith(MARK)


def test_foreign_key_and_many_to_many_choices_are_limited(staff_client, worlds):
    rows_a, rows_b, outsider = worlds
    ws_a = rows_a["target"].workspace

    def choices(url, field):
        response = staff_client.get(url)
        assert MARK not in response.content.decode()
        return set(response.context["adminform"].form.fields[field].queryset)

    assert choices(_url(Target, "add"), "lists") == {rows_a["targetlist"]}
    assert outsider not in choices(_url(Target, "add"), "owner")
    assert choices(_url(Target, "add"), "workspace") == {ws_a}
    assert choices(_url(BrowserAccount, "add"), "proxy") == {rows_a["proxy"]}
    settings_url = _url(SmsSettings, "change", rows_a["smssettings"].pk)
    assert choices(settings_url, "primary_account") == {rows_a["smsprovideraccount"]}
    assert choices(settings_url, "fallback_account") == {rows_a["smsprovideraccount"]}
    assert choices(_url(Membership, "add"), "workspace") == {ws_a}
    assert outsider not in choices(_url(Membership, "add"), "user")
    # autocomplete (users, lists) answers only rows of the staff's workspaces
    found = staff_client.get(
        "/admin/autocomplete/",
        {"app_label": "platform", "model_name": "membership", "field_name": "user", "term": ""},
    ).json()
    assert outsider.username not in json.dumps(found)
    assert "staff-alpha" in json.dumps(found)
    # a posted id of another workspace is not a valid choice
    response = staff_client.post(
        _url(BrowserAccount, "add"),
        {
            "workspace": rows_a["target"].workspace_id,
            "label": "new",
            "platform": "demo",
            "viewport_width": 1280,
            "viewport_height": 800,
            "proxy": rows_b["proxy"].pk,
        },
    )
    assert response.status_code == 200 and "proxy" in response.context["adminform"].form.errors
    assert not BrowserAccount.objects.filter(label="new").exists()


def test_staff_cannot_read_api_tokens_or_webhook_tokens(staff_client, root_client, worlds, staff):
    rows_a, _, _ = worlds
    token = ApiToken.objects.create(
        user=staff, prefix="abcd1234", key_hash="f" * 64, expires_at=timezone.now() + timedelta(days=1)
    )
    assert staff_client.get(_url(ApiToken, "changelist")).status_code == 403
    # (a key's workspace scoping answers first for a key outside the staff member's workspaces: not found)
    assert staff_client.get(_url(ApiToken, "change", token.pk)).status_code in (403, 404)
    settings_row = rows_a["smssettings"]
    account = rows_a["smsprovideraccount"]
    secret = json.loads(account.credentials)["api_key"]
    for client in (staff_client, root_client):  # secrets are write-only, even for superusers
        page = client.get(_url(SmsSettings, "change", settings_row.pk)).content.decode()
        assert settings_row.webhook_token not in page
        page = client.get(_url(SmsProviderAccount, "change", account.pk)).content.decode()
        assert secret not in page
    page = root_client.get(_url(ApiToken, "change", token.pk)).content.decode()
    assert "f" * 64 not in page


def test_staff_cannot_add_itself_as_owner_in_a_workspace_it_does_not_administer(staff_client, staff, ws_b):
    managed_elsewhere = make_workspace("charlie")
    Membership.objects.create(workspace=managed_elsewhere, user=staff, role=Role.MANAGER)
    for workspace in (ws_b, managed_elsewhere):
        response = staff_client.post(
            _url(Membership, "add"), {"workspace": workspace.pk, "user": staff.pk, "role": Role.OWNER}
        )
        assert response.status_code in (200, 403)
        assert not Membership.objects.filter(workspace=workspace, user=staff, role=Role.OWNER).exists()
    membership = Membership.objects.get(workspace=managed_elsewhere, user=staff)
    response = staff_client.post(
        _url(Membership, "change", membership.pk),
        {"workspace": managed_elsewhere.pk, "user": staff.pk, "role": "owner"},
    )
    assert response.status_code == 403
    assert Membership.objects.get(pk=membership.pk).role == Role.MANAGER


def test_sms_settings_cannot_use_another_workspaces_provider_account_in_the_admin(staff_client, root_client, worlds):
    rows_a, rows_b, _ = worlds
    settings_row = rows_a["smssettings"]
    data = {"enabled": "on", "primary_account": rows_b["smsprovideraccount"].pk, "opt_out_text": "لغو۱۱"}
    for client in (staff_client, root_client):  # staff: not a choice; superuser: the model's clean() refuses
        response = client.post(_url(SmsSettings, "change", settings_row.pk), data)
        assert response.status_code == 200
        assert response.context["adminform"].form.errors
        settings_row.refresh_from_db()
        assert settings_row.primary_account_id == rows_a["smsprovideraccount"].pk


def test_sms_settings_service_refuses_another_workspaces_provider_account(worlds, staff, ws_a):
    rows_a, rows_b, _ = worlds
    actor = make_actor(ws_a, user=staff)
    with pytest.raises(ValidationFailed) as exc:
        sms_settings_update(actor=actor, data={"primary_account_id": rows_b["smsprovideraccount"].pk})
    assert "primary_account_id" in exc.value.details
    with pytest.raises(ValidationFailed):
        sms_settings_update(actor=actor, data={"fallback_account_id": rows_b["smsprovideraccount"].pk})
    updated = sms_settings_update(actor=actor, data={"fallback_account_id": rows_a["smsprovideraccount"].pk})
    assert updated.fallback_account_id == rows_a["smsprovideraccount"].pk


def test_sms_gateway_never_sends_on_another_workspaces_account(worlds, monkeypatch):
    rows_a, rows_b, _ = worlds
    settings_row = rows_a["smssettings"]
    SmsSettings.objects.filter(pk=settings_row.pk).update(primary_account=rows_b["smsprovideraccount"])
    settings_row.refresh_from_db()
    used = []

    class Recorder:
        def credentials_problem(self, credentials):
            return None

        def send(self, credentials, request):
            used.append(credentials)
            return SendResponse("submitted")

    monkeypatch.setattr(channel, "provider_for", lambda kind: Recorder())
    result = channel.send_through_gateway(
        settings_row, phone="+989121234567", text="x", sender=None, local_id="1", provider_kind=None
    )
    assert used == [] and result.response.status != "submitted"


def test_guarded_fields_are_read_only_in_the_admin(root_client, worlds):
    rows_a, rows_b, _ = worlds
    campaign = rows_a["campaign"]
    page = root_client.get(_url(Campaign, "change", campaign.pk))
    form = page.context["adminform"].form
    for field in ("status", "revision", "group", "parent", "root", "chain_revision"):
        assert field not in form.fields, field
    root_client.post(
        _url(Campaign, "change", campaign.pk),
        {"name": "renamed", "status": "active", "workflow": rows_b["workflow"].pk, "attribution_window_days": 7},
    )
    campaign.refresh_from_db()
    assert campaign.status == "draft" and campaign.journey.workflow_id == rows_a["workflow"].pk
    for model, fields in (
        (Workflow, ("status", "published_version")),
        (CampaignPlatform, ("status", "metadata", "campaign")),
        (BrowserTask, ("status", "account", "proxy", "campaign")),
        (BrowserAccount, ("session_status", "error_score", "usage_count")),
    ):
        form = root_client.get(_url(model, "change", rows_a[model._meta.model_name].pk)).context["adminform"].form
        assert not set(fields) & set(form.fields), model._meta.label
    assert isinstance(admin.site._registry[Execution], ReadOnlyAdmin)
    assert isinstance(admin.site._registry[CampaignJourney], ReadOnlyAdmin)  # the pinned version never changes
    assert isinstance(admin.site._registry[SmsAttempt], ReadOnlyAdmin)


# --- one test per cross-workspace relation: the model's clean() -------------------------------------------
def _workspace_relations():
    for model in apps.get_models():
        if model._meta.app_label not in PROJECT_APPS or model._meta.proxy or not has_workspace(model):
            continue
        for field in model._meta.concrete_fields:
            if field.is_relation and field.name != "workspace" and has_workspace(field.related_model):
                yield pytest.param(model, field.name, id=f"{model._meta.label}.{field.name}")


@pytest.mark.parametrize(("model", "field_name"), list(_workspace_relations()))
def test_model_clean_refuses_a_relation_to_another_workspace(model, field_name, ws_a, ws_b):
    field = model._meta.get_field(field_name)
    foreign = field.related_model(workspace=ws_b)
    foreign.pk = 987654321
    row = model(workspace=ws_a)
    setattr(row, field_name, foreign)
    with pytest.raises(ValidationError) as exc:
        row.clean()
    assert field_name in exc.value.message_dict
    same = field.related_model(workspace=ws_a)
    same.pk = 987654322
    setattr(row, field_name, same)
    try:
        row.clean()
    except ValidationError as ok:
        assert field_name not in ok.message_dict


def test_campaign_journey_clean_refuses_workflow_and_version_of_another_workspace(worlds):
    rows_a, rows_b, _ = worlds
    journey = CampaignJourney.objects.get(pk=rows_a["campaign"].pk)
    journey.workflow_id, journey.workflow_version_id = rows_b["workflow"].pk, rows_b["workflowversion"].pk
    with pytest.raises(ValidationError) as exc:
        journey.clean()
    assert {"workflow", "workflow_version"} <= set(exc.value.message_dict)
    journey = CampaignJourney.objects.get(pk=rows_a["campaign"].pk)
    other_version = WorkflowVersion.objects.create(
        workspace=journey.workspace,
        workflow=Workflow.objects.create(workspace=journey.workspace, name="second"),
        version_number=1,
    )
    journey.workflow_version_id = other_version.pk  # same workspace, another workflow's version
    with pytest.raises(ValidationError) as exc:
        journey.clean()
    assert "workflow_version" in exc.value.message_dict


def test_chain_members_of_another_workspace_are_refused(worlds):
    rows_a, rows_b, _ = worlds
    campaign = ChainNode.objects.get(pk=rows_a["campaign"].pk)
    campaign.group_id = rows_b["campaigngroup"].pk
    campaign.parent_id = campaign.root_id = rows_b["campaign"].pk
    with pytest.raises(ValidationError) as exc:
        campaign.clean()
    assert {"group", "parent", "root"} <= set(exc.value.message_dict)


def test_targets_never_join_another_workspaces_list(worlds):
    rows_a, rows_b, _ = worlds
    target = rows_a["target"]
    with pytest.raises(ValidationError), transaction.atomic():
        target.lists.add(rows_b["targetlist"])
    with pytest.raises(ValidationError), transaction.atomic():
        rows_b["targetlist"].targets.add(target)
    assert not target.lists.filter(pk=rows_b["targetlist"].pk).exists()


def test_target_owner_must_be_a_member_of_the_workspace(worlds):
    rows_a, _, outsider = worlds
    target = rows_a["target"]
    target.owner = outsider
    with pytest.raises(ValidationError) as exc:
        target.clean()
    assert "owner" in exc.value.message_dict


def test_browser_account_proxy_of_another_workspace_is_refused(worlds, staff, ws_a):
    rows_a, rows_b, _ = worlds
    account = rows_a["browseraccount"]
    account.proxy_id = rows_b["proxy"].pk
    with pytest.raises(ValidationError) as exc:
        account.clean()
    assert "proxy" in exc.value.message_dict
    actor = make_actor(ws_a, user=staff)
    with pytest.raises(NotFound):  # another workspace's id looks exactly like a missing one
        account_create(actor=actor, label="x", platform="demo", proxy_id=rows_b["proxy"].pk)
    with pytest.raises(NotFound):
        account_update(actor=actor, account_id=rows_a["browseraccount"].pk, data={"proxy_id": rows_b["proxy"].pk})


def test_browser_platform_accounts_of_another_workspace_are_refused(worlds):
    rows_a, rows_b, _ = worlds
    platform = rows_a["campaignplatform"]
    platform.metadata = {**platform.metadata, "account_ids": [rows_b["browseraccount"].pk]}
    with pytest.raises(ValidationError) as exc:
        platform.clean()
    assert "metadata" in exc.value.message_dict


def test_workflow_graph_rows_of_another_workspace_are_refused(worlds):
    rows_a, rows_b, _ = worlds
    edge = rows_a["workflowedge"]
    edge.to_node_id = rows_b["workflownode"].pk
    with pytest.raises(ValidationError) as exc:
        edge.clean()
    assert "to_node" in exc.value.message_dict
    workflow = rows_a["workflow"]
    workflow.published_version_id = rows_b["workflowversion"].pk
    with pytest.raises(ValidationError) as exc:
        workflow.clean()
    assert "published_version" in exc.value.message_dict


def test_execution_subject_of_another_workspace_is_refused(worlds):
    rows_a, rows_b, _ = worlds
    execution = rows_a["execution"]
    execution.subject_id = rows_b["target"].pk
    with pytest.raises(ValidationError) as exc:
        execution.clean()
    assert "subject_id" in exc.value.message_dict
