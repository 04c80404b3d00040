"""Template helpers of the SMS step's editor in the workflow builder (the builder itself names no channel)."""

from django import template

from sms.models import SmsTemplate

register = template.Library()
MAX_TEMPLATES = 200


@register.simple_tag
def sms_templates_of(workspace_id: int) -> list[SmsTemplate]:
    """The workspace's SMS templates offered by "insert from template" (deleted ones are not)."""
    return list(SmsTemplate.objects.filter(workspace_id=workspace_id, deleted_at__isnull=True)[:MAX_TEMPLATES])
