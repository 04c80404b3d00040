"""Signal receivers of the engine."""

from django.utils import timezone

from automation.choices import EndReason


def cancel_executions_of_deleted_target(sender, target, actor=None, **kwargs) -> None:
    """A soft-deleted target's live executions are cancelled at once (history kept)."""
    from automation.engine.campaign_effects import cancel_live_executions

    cancel_live_executions(subject=target, reason=EndReason.TARGET_REMOVED, now=timezone.now())
