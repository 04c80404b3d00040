"""The journey part of ``manage.py demo_data``: a published three-step journey and a draft campaign on
it (enroll a list, then activate). Registered in ``AutomationConfig.ready()``; idempotent."""

from campaigns.models import Campaign, TargetList
from campaigns.platform.tenancy import Actor

WORKFLOW_NAME = "معرفی سه‌مرحله‌ای"
CAMPAIGN_NAME = "جشنواره پاییز"
SOURCE_LIST = "مشتریان وفادار"


def journey_demo(*, workspace, user, actor: Actor, stdout) -> None:
    from automation.models import Workflow
    from automation.services.campaigns import journey_campaign_create
    from automation.services.workflows import workflow_create, workflow_publish

    workflow = Workflow.objects.filter(workspace=workspace, name=WORKFLOW_NAME).first()
    if workflow is None:
        workflow = workflow_create(actor=actor, name=WORKFLOW_NAME, template="three_step_intro")
        workflow_publish(actor=actor, workflow_id=workflow.id)
        stdout.write(f"demo journey: workflow «{WORKFLOW_NAME}» published")
    if Campaign.objects.filter(workspace=workspace, name=CAMPAIGN_NAME).exists():
        return
    source = TargetList.objects.filter(workspace=workspace, name=SOURCE_LIST).first()
    journey_campaign_create(
        actor=actor,
        name=CAMPAIGN_NAME,
        workflow_id=workflow.id,
        daily_limit=100,
        source_target_list_id=source.id if source else None,
    )
    stdout.write(f"demo journey: campaign «{CAMPAIGN_NAME}» (draft)")
