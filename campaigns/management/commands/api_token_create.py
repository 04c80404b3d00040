"""Create an API key for a user and print it once: `manage.py api_token_create <username>`."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from campaigns.platform.tokens import api_token_create


class Command(BaseCommand):
    help = "Create an API key (stored hashed; printed once) for a user."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default="", help="a label, e.g. the client's name")
        parser.add_argument("--days", type=int, default=None, help="lifetime in days (default API_TOKEN_TTL_DAYS)")

    def handle(self, *args, username, name, days, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user named {username!r}")
        try:
            token, key = api_token_create(user=user, name=name, ttl_days=days)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"token={key} expires_at={token.expires_at.isoformat()}")
