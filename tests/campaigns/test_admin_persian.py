"""The admin completely Persian for a Persian user: model and field names, actions, filters, Django's own words."""

import re
from html.parser import HTMLParser

import pytest
from django.apps import apps

from campaigns.platform.field_labels import PROJECT_APPS

from ..conftest import make_campaign, make_target

pytestmark = pytest.mark.django_db

LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
# The language switch reads «زبان / Language» and names English in English; API and User-Agent are names.
ALLOWED = {"English", "Language", "API"}
TECHNICAL_LABELS = {"User-Agent"}


class VisibleText(HTMLParser):
    """Visible text and the attributes read aloud (title, aria-label, placeholder); not the values in fields."""

    def __init__(self):
        super().__init__()
        self.words, self._hidden = set(), 0

    def handle_starttag(self, tag, attrs):
        self._hidden += tag in ("script", "style", "textarea")
        for name, value in attrs:
            if name in ("title", "aria-label", "placeholder") and value:
                self.words |= set(LATIN_WORD.findall(value))

    def handle_endtag(self, tag):
        self._hidden -= tag in ("script", "style", "textarea")

    def handle_data(self, data):
        if not self._hidden:
            self.words |= set(LATIN_WORD.findall(data))


def english_on(client, url: str, data_words: set[str]) -> set[str]:
    parser = VisibleText()
    parser.feed(client.get(url).content.decode())
    return parser.words - ALLOWED - data_words


@pytest.fixture
def superuser_client(client, django_user_model):
    user = django_user_model.objects.create_superuser("root", "r@example.com", "pw-123456")
    client.force_login(user)
    return client


def test_admin_pages_show_no_english_words(superuser_client, workspace):
    target, campaign = make_target(workspace), make_campaign(workspace)
    data = {"root", *LATIN_WORD.findall(workspace.name), *LATIN_WORD.findall(workspace.time_zone)}
    for url in (
        "/admin/",
        "/admin/campaigns/target/",
        f"/admin/campaigns/target/{target.id}/change/",
        "/admin/campaigns/campaign/",
        f"/admin/campaigns/campaign/{campaign.id}/change/",
        "/admin/campaigns/workspace/",
    ):
        assert english_on(superuser_client, url, data) == set(), url


def test_every_field_of_the_project_has_a_persian_label():
    english = [
        f"{model.__name__}.{field.name}: {field.verbose_name}"
        for model in apps.get_models()
        if model._meta.app_label in PROJECT_APPS
        for field in model._meta.get_fields()
        if getattr(field, "concrete", False)
        and LATIN_WORD.search(str(field.verbose_name))
        and str(field.verbose_name) not in TECHNICAL_LABELS
    ]
    assert english == []
