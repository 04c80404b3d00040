"""Template context: the current workspace, the switcher's choices and what the role may do (menus)."""

from campaigns.notifications.selectors import unread_count
from campaigns.platform.permissions import ROLE_PERMISSIONS
from campaigns.platform.tenancy import memberships_of


def workspace(request):
    actor = getattr(request, "actor", None)
    if actor is None:
        return {"current_workspace": None, "my_memberships": [], "workspace_perms": frozenset()}
    return {
        "current_workspace": actor.workspace,
        "current_role": actor.membership.get_role_display(),
        "my_memberships": list(memberships_of(actor.user)),
        # What the current role may do (menu entries are shown only with their permission).
        "workspace_perms": ROLE_PERMISSIONS.get(actor.membership.role, frozenset()),
        # The header's bell.
        "unread_notifications": unread_count(actor=actor),
    }
