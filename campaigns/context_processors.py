"""Template context: the current workspace, the switcher's choices, the menu and what the role may do."""

from campaigns.notifications.selectors import unread_count
from campaigns.platform.navigation import menu_for
from campaigns.platform.permissions import ROLE_PERMISSIONS
from campaigns.platform.tenancy import memberships_of


def workspace(request):
    actor = getattr(request, "actor", None)
    user = getattr(request, "user", None)
    menu = menu_for(user=user, actor=actor) if user is not None and user.is_authenticated else []
    if actor is None:
        return {"current_workspace": None, "my_memberships": [], "workspace_perms": frozenset(), "menu": menu}
    return {
        "menu": menu,
        "current_workspace": actor.workspace,
        "current_role": actor.membership.get_role_display(),
        "my_memberships": list(memberships_of(actor.user)),
        # What the current role may do (links and buttons inside pages are shown only with their permission).
        "workspace_perms": ROLE_PERMISSIONS.get(actor.membership.role, frozenset()),
        # The header's bell.
        "unread_notifications": unread_count(actor=actor),
    }
