"""Guards on many-to-many writes: a target joins only lists of its own workspace.

``m2m_changed`` runs for every ``target.lists.add/set`` and ``target_list.targets.add/set``
(admin, services, import), so no code path can link rows of two workspaces.

A webhook endpoint saved or deleted by any path (services, admin, the ORM) drops its workspace's cached
subscriptions (``campaigns.platform.webhooks.webhook_subscribed``).
"""

from django.core.exceptions import ValidationError
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver

from campaigns.models import Target
from campaigns.platform.integrity import MSG_OTHER_WORKSPACE
from campaigns.platform.models import WebhookEndpoint
from campaigns.platform.webhooks import webhook_subscriptions_changed


@receiver(m2m_changed, sender=Target.lists.through, dispatch_uid="target_lists_same_workspace")
def target_lists_same_workspace(sender, instance, action, reverse, model, pk_set, **kwargs):
    if action != "pre_add" or not pk_set:
        return
    crossing = model._base_manager.filter(pk__in=pk_set).exclude(workspace_id=instance.workspace_id)
    if crossing.exists():
        raise ValidationError({"targets" if reverse else "lists": [MSG_OTHER_WORKSPACE]})


@receiver(post_save, sender=WebhookEndpoint, dispatch_uid="webhook_subscriptions_saved")
@receiver(post_delete, sender=WebhookEndpoint, dispatch_uid="webhook_subscriptions_deleted")
def webhook_endpoint_changed(sender, instance, **kwargs):
    webhook_subscriptions_changed(instance.workspace_id)
