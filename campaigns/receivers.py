"""Guards on many-to-many writes: a target joins only lists of its own workspace.

``m2m_changed`` runs for every ``target.lists.add/set`` and ``target_list.targets.add/set``
(admin, services, import), so no code path can link rows of two workspaces.
"""

from django.core.exceptions import ValidationError
from django.db.models.signals import m2m_changed
from django.dispatch import receiver

from campaigns.models import Target
from campaigns.platform.integrity import MSG_OTHER_WORKSPACE


@receiver(m2m_changed, sender=Target.lists.through, dispatch_uid="target_lists_same_workspace")
def target_lists_same_workspace(sender, instance, action, reverse, model, pk_set, **kwargs):
    if action != "pre_add" or not pk_set:
        return
    crossing = model._base_manager.filter(pk__in=pk_set).exclude(workspace_id=instance.workspace_id)
    if crossing.exists():
        raise ValidationError({"targets" if reverse else "lists": [MSG_OTHER_WORKSPACE]})
