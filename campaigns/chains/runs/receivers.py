"""Receivers: an approved chain gets its runs, a target's new status or reply may reach a run's goal (connected in
``campaigns.chains.apps``)."""

from __future__ import annotations

from django.utils import timezone


def activate_runs_on_approval(sender, root_id: int, **kwargs) -> None:
    """After the approval commit: create the root's first occurrence and its period's child runs.

    If this process dies first, the scheduler's reconcile does the same on its next tick.
    """
    from campaigns.chains.runs.scheduler import root_runs_reconcile

    root_runs_reconcile(now=timezone.now(), root_ids=[root_id])


def record_conversion_on_target_status(sender, target, status: str, **kwargs) -> None:
    """A person changed a target's status: a goal of a run it was sent in is reached now."""
    from campaigns.chains.runs.conversions import conversion_on_target_status

    conversion_on_target_status(target=target, status=status)


def record_conversion_on_reply(
    sender, workspace_id: int, target_id: int, reply_id: int, text: str, received_at, **kwargs
) -> None:
    """A channel stored a target's reply: a "replied" goal of a run it was sent in may be reached."""
    from campaigns.chains.runs.conversions import conversion_on_reply

    conversion_on_reply(
        workspace_id=workspace_id, target_id=target_id, reply_id=reply_id, text=text, received_at=received_at
    )


def connect() -> None:
    from campaigns.chains.services.approval import chain_approved
    from campaigns.signals import target_replied, target_status_changed

    chain_approved.connect(activate_runs_on_approval, dispatch_uid="chain-runs-on-approval")
    target_status_changed.connect(record_conversion_on_target_status, dispatch_uid="chain-conversion-on-status")
    target_replied.connect(record_conversion_on_reply, dispatch_uid="chain-conversion-on-reply")
