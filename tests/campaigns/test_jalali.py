"""Jalali rendering in the workspace time zone, Persian digits."""

import datetime as dt
import zoneinfo

from django.template import Context, Template
from django.utils import timezone

from campaigns.platform.jalali import fa_digits, to_jalali

NOON_UTC = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)


def render(source: str, **context) -> str:
    return Template("{% load jalali %}" + source).render(Context(context))


def test_jalali_filter_in_tehran():
    with timezone.override(zoneinfo.ZoneInfo("Asia/Tehran")):
        assert render("{{ v|jdate }}", v=NOON_UTC) == "۱۴۰۵/۰۹/۰۹"
        assert render("{{ v|jdatetime }}", v=NOON_UTC) == "۱۴۰۵/۰۹/۰۹ ۱۵:۳۰"
        assert to_jalali(NOON_UTC) == "1405/09/09"


def test_day_boundary_follows_the_workspace_time_zone_not_the_server():
    late = dt.datetime(2026, 11, 30, 21, 0, tzinfo=dt.UTC)  # 00:30 next day in Tehran
    with timezone.override(zoneinfo.ZoneInfo("Asia/Tehran")):
        assert to_jalali(late) == "1405/09/10"
    with timezone.override(zoneinfo.ZoneInfo("UTC")):
        assert to_jalali(late) == "1405/09/09"


def test_dates_none_and_digits():
    assert to_jalali(dt.date(2026, 3, 21)) == "1405/01/01"  # Nowruz
    assert render("{{ v|jdate }}", v=None) == ""
    assert fa_digits("Order 1405-09") == "Order ۱۴۰۵-۰۹"


def test_admin_column_uses_the_same_helper():
    from campaigns.admin import CampaignEventAdmin
    from campaigns.models import CampaignEvent

    event = CampaignEvent(created_at=NOON_UTC)
    with timezone.override(zoneinfo.ZoneInfo("Asia/Tehran")):
        assert CampaignEventAdmin.at_jalali(None, event) == "۱۴۰۵/۰۹/۰۹ ۱۵:۳۰"
