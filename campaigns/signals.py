"""Seams for other apps (the engine cancels live executions on these; chains record conversions)."""

from django.dispatch import Signal

# Sent inside the deleting transaction with kwargs: target, actor.
target_soft_deleted = Signal()
# Sent inside the updating transaction when a person changed a target's status, with kwargs: target, status.
target_status_changed = Signal()
# Sent by a channel after it stored a reply matched to a target (outside any transaction), with kwargs:
# workspace_id, target_id, reply_id (the channel's id of the stored reply), text, received_at. Chains record a
# "replied" conversion from it (docs/chains.md "Replied as a conversion").
target_replied = Signal()
