"""Seams for other apps (the engine cancels live executions on these)."""

from django.dispatch import Signal

# Sent inside the deleting transaction with kwargs: target, actor.
target_soft_deleted = Signal()
