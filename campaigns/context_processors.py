"""Template context: the current workspace and the switcher's choices."""

from campaigns.platform.tenancy import memberships_of


def workspace(request):
    actor = getattr(request, "actor", None)
    if actor is None:
        return {"current_workspace": None, "my_memberships": []}
    return {
        "current_workspace": actor.workspace,
        "current_role": actor.membership.get_role_display(),
        "my_memberships": list(memberships_of(actor.user)),
    }
