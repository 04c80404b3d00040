"""Create an API key for a user in one of their workspaces and print it once:
`manage.py api_token_create <username> --workspace <slug or id>`."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from campaigns.platform.api.scopes import scope_names
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.tenancy import membership_for
from campaigns.platform.tokens import ALL_SCOPES, api_token_create, api_token_scopes_clean


class Command(BaseCommand):
    help = "Create an API key (stored hashed; printed once) for a user."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--workspace", required=True, help="the workspace the key acts in (slug or id)")
        parser.add_argument("--name", default="", help="a label, e.g. the client's name")
        parser.add_argument("--days", type=int, default=None, help="lifetime in days (default API_TOKEN_TTL_DAYS)")
        parser.add_argument("--scope", action="append", default=None, help="an area (repeatable; default: all)")
        parser.add_argument("--read-only", action="store_true", help="GET only")

    def handle(self, *args, username, workspace, name, days, scope, read_only, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user named {username!r}")
        membership = membership_for(user, workspace)
        if membership is None:
            raise CommandError(f"{username!r} is not a member of a workspace {workspace!r}")
        found = membership.workspace
        try:
            scopes = api_token_scopes_clean(scopes=scope or [ALL_SCOPES], known=scope_names())
            token, key = api_token_create(
                user=user, workspace=found, name=name, ttl_days=days, scopes=scopes, read_only=read_only
            )
        except ValidationFailed as exc:
            raise CommandError(f"{exc.details}") from None
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"token={key} workspace={found.slug} expires_at={token.expires_at.isoformat()}")
