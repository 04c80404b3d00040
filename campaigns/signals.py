"""Seams for other apps (the engine cancels live executions on these; chains record conversions)."""

from django.dispatch import Signal

# Sent inside the deleting transaction with kwargs: target, actor.
target_soft_deleted = Signal()
# Sent inside the updating transaction when a person changed a target's status, with kwargs: target, status.
target_status_changed = Signal()
