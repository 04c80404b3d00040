"""The admin completely Persian for a Persian user: model and field names, actions, filters, Django's own words."""

import re
import zoneinfo
from datetime import datetime
from html import unescape
from html.parser import HTMLParser

import pytest
import time_machine
from django.apps import apps

from campaigns.models import ApiToken
from campaigns.platform.field_labels import project_apps

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
        "/admin/platform/workspace/",
    ):
        assert english_on(superuser_client, url, data) == set(), url


def test_every_field_of_the_project_has_a_persian_label():
    english = [
        f"{model.__name__}.{field.name}: {field.verbose_name}"
        for model in apps.get_models()
        if model._meta.app_label in project_apps()
        for field in model._meta.get_fields()
        if getattr(field, "concrete", False)
        and LATIN_WORD.search(str(field.verbose_name))
        and str(field.verbose_name) not in TECHNICAL_LABELS
    ]
    assert english == []


TEHRAN = zoneinfo.ZoneInfo("Asia/Tehran")


def make_token(user, prefix: str, **dates) -> ApiToken:
    expires = dates.pop("expires_at", datetime(2026, 12, 20, 12, 0, tzinfo=TEHRAN))
    return ApiToken.objects.create(user=user, prefix=prefix, key_hash=prefix, expires_at=expires, **dates)


def test_admin_shows_every_date_column_and_read_only_date_in_jalali(superuser_client, django_user_model):
    token = make_token(django_user_model.objects.get(username="root"), "tok1")
    for url in ("/admin/platform/apitoken/", f"/admin/platform/apitoken/{token.id}/change/"):
        text = re.sub(r"<[^>]*>", " ", superuser_client.get(url).content.decode())
        assert "۱۴۰۵/۰۹/۲۹" in text, url  # expires_at: neither created nor updated, read-only on the form
        assert "دسامبر" not in text and "2026" not in text, url


def test_admin_date_filter_this_month_is_the_jalali_month(superuser_client, django_user_model):
    user = django_user_model.objects.get(username="root")
    # today 1405/09/10 (1 December): 1405/09/04 is this Jalali month, 1405/08/24 the one before
    make_token(user, "azar", revoked_at=datetime(2026, 11, 25, 10, 0, tzinfo=TEHRAN))
    make_token(user, "aban", revoked_at=datetime(2026, 11, 15, 10, 0, tzinfo=TEHRAN))
    with time_machine.travel(datetime(2026, 12, 1, 12, 0, tzinfo=TEHRAN), tick=False):
        html = superuser_client.get("/admin/platform/apitoken/").content.decode()
        link = re.search(r'<a href="([^"]+)">\s*این ماه\s*</a>', html)
        assert link, "the date filter offers this month"
        listed = superuser_client.get("/admin/platform/apitoken/" + unescape(link.group(1))).content.decode()
    assert ">azar<" in listed
    assert ">aban<" not in listed


def test_every_admin_row_is_named_in_persian_without_status_codes():
    """A row as the admin names it (titles, breadcrumbs, relation fields, delete pages): «اجرای ۷ (کامل)», not
    "run 7 (COMPLETED)", «تنظیمات پیامک فضای کاری ۱», not "sms settings of 1". Each registered model of the
    project, its choices at their first value: no Latin word (a proxy is named by its address, its data)."""
    from django.contrib import admin
    from django.db import models

    named, latin = {}, {}
    for model in admin.site._registry:
        if model._meta.app_label not in project_apps() or model._meta.label == "workers.Proxy":
            continue
        row = model()
        row.pk = 7
        for field in model._meta.concrete_fields:
            if field.choices:
                setattr(row, field.attname, field.choices[0][0])
            elif isinstance(field, models.ForeignKey):
                setattr(row, field.attname, 1)
        try:
            text = str(row)
        except Exception:  # a name that reads a related row or a value this blank row lacks
            continue
        named[model._meta.label] = text
        if LATIN_WORD.search(text):
            latin[model._meta.label] = text
    assert latin == {}
    assert len(named) >= 40
    assert named["chains.CampaignRun"] == "اجرای ۷ (زمان‌بندی‌شده)"
    assert named["sms.SmsSettings"] == "تنظیمات پیامک فضای کاری ۱"
    assert named["automation.ExecutionEvent"] == "رویداد اجرای مسیر ۱: ثبت‌نام"
    assert named["sms.SmsAttempt"].startswith("ارسال پیامک ۷ (")
