"""Receivers: an approved chain gets its runs (registered in ``campaigns.apps``)."""

from __future__ import annotations

from django.utils import timezone


def activate_runs_on_approval(sender, root_id: int, **kwargs) -> None:
    """After the approval commit: create the root's first occurrence and its period's child runs.

    If this process dies first, the scheduler's reconcile does the same on its next tick.
    """
    from campaigns.chains.runs.scheduler import root_runs_reconcile

    root_runs_reconcile(now=timezone.now(), root_ids=[root_id])


def connect() -> None:
    from campaigns.chains.services.approval import chain_approved

    chain_approved.connect(activate_runs_on_approval, dispatch_uid="chain-runs-on-approval")
