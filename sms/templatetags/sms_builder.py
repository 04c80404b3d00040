"""Template helpers of the SMS step's editor in the workflow builder (the builder itself names no channel)."""

from django import template

from sms import providers
from sms.models import SmsTemplate
from sms.providers import provider_choices

register = template.Library()
MAX_TEMPLATES = 200


@register.simple_tag
def sms_templates_of(workspace_id: int) -> list[SmsTemplate]:
    """The workspace's SMS templates offered by "insert from template" (deleted ones are not)."""
    return list(SmsTemplate.objects.filter(workspace_id=workspace_id, deleted_at__isnull=True)[:MAX_TEMPLATES])


@register.simple_tag
def sms_provider_choices() -> list[tuple[str, str]]:
    """(kind, Persian label) of every registered SMS provider, for the step's provider choice."""
    return provider_choices()


@register.filter
def provider_label(kind: str) -> str:
    """A provider kind as staff read it («کاوه‌نگار», «کنسول (آزمایشی)»); an unknown kind as stored."""
    return providers.provider_label(kind or "")
