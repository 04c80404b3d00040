"""The SMS settings page's forms without a browser: workspace-wide settings kept in Workspace.settings
(notification e-mails, SMS retention) and credential inputs read from the provider registry."""

import json
import re

import pytest
from rest_framework import serializers

from campaigns.models import Workspace
from sms import providers
from sms.models import SmsProviderAccount
from sms.providers.base import Provider

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner_client(client, owner):
    client.force_login(owner)
    return client


def _save_channel(client, **fields):
    return client.post("/sms/settings/", {"action": "channel", "opt_out_text": "لغو11", **fields}, follow=True)


def test_retention_days_and_notification_emails_are_saved_from_the_settings_page(owner_client, workspace):
    response = _save_channel(owner_client, sms_retention_days="30", notifications_email="on")
    assert "ذخیره شد" in response.content.decode()
    assert Workspace.objects.get(pk=workspace.pk).settings == {"notifications_email": True, "sms_retention_days": 30}
    page = owner_client.get("/sms/settings/").content.decode()
    assert 'name="sms_retention_days" value="30"' in page
    [checkbox] = re.findall(r"<input[^>]*name=\"notifications_email\"[^>]*>", page)
    assert "checked" in checkbox

    _save_channel(owner_client, sms_retention_days="")  # empty: keep forever; unchecked: no e-mails
    assert Workspace.objects.get(pk=workspace.pk).settings == {"notifications_email": False}


@pytest.mark.parametrize("days", ["-1", "3651", "abc", "1.5"])
def test_retention_days_out_of_range_is_a_field_error(owner_client, workspace, days):
    response = _save_channel(owner_client, sms_retention_days=days)
    assert response.status_code == 400
    assert "sms_retention_days" in response.context["channel_form"].errors
    assert "sms_retention_days" not in (Workspace.objects.get(pk=workspace.pk).settings or {})


def test_retention_setting_is_validated_by_the_service_too(actor):
    from campaigns.platform.errors import ValidationFailed
    from sms.services import sms_settings_update

    for bad in (-1, 3651, "30", True):
        with pytest.raises(ValidationFailed) as caught:
            sms_settings_update(actor=actor, data={"sms_retention_days": bad})
        assert "sms_retention_days" in caught.value.details
    with pytest.raises(ValidationFailed):
        sms_settings_update(actor=actor, data={"notifications_email": "yes"})


class _TokenCredentials(serializers.Serializer):
    token = serializers.CharField(label="توکن دسترسی", max_length=100)
    region = serializers.CharField(label="ناحیه", max_length=20, required=False)


class _PluginProvider(Provider):
    kind = "plugin"
    label = "سرویس افزونه"
    credentials_serializer = _TokenCredentials


@pytest.fixture
def plugin_provider():
    with providers.PROVIDERS.added(_PluginProvider.kind, _PluginProvider()) as provider:
        yield provider


def test_a_new_provider_plugin_gets_its_credential_inputs_without_a_form_change(owner_client, plugin_provider):
    page = owner_client.get("/sms/settings/").content.decode()
    assert 'data-kind="plugin"' in page
    assert 'name="cred_plugin__token"' in page and "توکن دسترسی" in page
    assert 'name="cred_plugin__region"' in page and "ناحیه" in page

    missing = owner_client.post(
        "/sms/settings/", {"action": "account_new", "name": "افزونه", "provider": "plugin", "cred_plugin__region": "x"}
    )
    assert missing.status_code == 400
    assert "cred_plugin__token" in missing.context["account_form"].errors
    assert not SmsProviderAccount.objects.exists()

    owner_client.post(
        "/sms/settings/",
        {"action": "account_new", "name": "افزونه", "provider": "plugin", "cred_plugin__token": "T-1"},
    )
    account = SmsProviderAccount.objects.get(provider="plugin")
    assert json.loads(account.credentials) == {"token": "T-1"}

    edit = owner_client.get(f"/sms/settings/accounts/{account.id}/").content.decode()
    assert 'name="cred_plugin__token"' in edit and "T-1" not in edit  # write-only
    assert "cred_kavenegar" not in edit  # only the account's own provider's inputs


def test_credentials_of_another_kind_are_not_sent_to_the_chosen_provider(owner_client):
    owner_client.post(
        "/sms/settings/",
        {
            "action": "account_new",
            "name": "کاوه",
            "provider": "kavenegar",
            "cred_kavenegar__api_key": "K-1",
            "cred_melipayamak__username": "someone",
        },
    )
    assert json.loads(SmsProviderAccount.objects.get(provider="kavenegar").credentials) == {"api_key": "K-1"}


def test_the_builders_sms_step_offers_every_registered_provider(owner_client, workspace, plugin_provider):
    from automation.models import Workflow

    owner_client.post("/automation/workflows/new/", {"name": "خوش‌آمد", "template": "blank"})
    builder = f"/automation/workflows/{Workflow.objects.get(workspace=workspace).id}/builder/"
    owner_client.post(builder + "add/", {"at": "0", "kind": "send_sms"}, HTTP_HX_REQUEST="true")
    select = re.search(r'<select name="cfg_provider">(.*?)</select>', owner_client.get(builder).content.decode(), re.S)
    options = re.findall(r'<option value="(\w*)"[^>]*>([^<]*)</option>', select.group(1))
    assert options == [
        ("", "پیش‌فرض فضای کاری"),
        ("console", "کنسول (آزمایشی)"),
        ("kavenegar", "کاوه‌نگار"),
        ("melipayamak", "ملی‌پیامک"),
        ("plugin", "سرویس افزونه"),
    ]


def test_a_default_window_of_several_intervals_a_day_is_kept_by_the_settings_page(owner_client, actor):
    """The page edits one interval a day (the same week inputs as the campaign pages); a default window with
    more (set through the API) is shown as kept and saving the other settings leaves it as it was."""
    from automation.services.settings import automation_settings_get, automation_settings_update

    window = {"days": {"sat": [["09:00", "12:00"], ["14:00", "18:00"]], "sun": [["09:00", "18:00"]]}}
    automation_settings_update(actor=actor, data={"default_send_window": window})
    page = owner_client.get("/sms/settings/").content.decode()
    assert 'data-testid="window-kept"' in page and 'name="win_sat_start"' not in page

    response = _save_channel(owner_client, sms_retention_days="30")
    assert "ذخیره شد" in response.content.decode()
    assert automation_settings_get(actor=actor).default_send_window["days"]["sat"] == window["days"]["sat"]


def test_one_interval_a_day_is_edited_and_saved_as_before(owner_client, actor):
    from automation.services.settings import automation_settings_get

    _save_channel(owner_client, win_sat_start="08:30", win_sat_end="21:00")
    window = automation_settings_get(actor=actor).default_send_window
    assert window["days"]["sat"] == [["08:30", "21:00"]] and window["days"]["sun"] is None
    page = owner_client.get("/sms/settings/").content.decode()
    assert re.search(r'name="win_sat_start"[^>]*value="08:30"|value="08:30"[^>]*name="win_sat_start"', page)

    response = _save_channel(owner_client, win_sun_start="09:00")  # half an interval
    assert response.status_code == 400
    assert "win_sun_start" in response.context["channel_form"].errors
    assert automation_settings_get(actor=actor).default_send_window["days"]["sat"] == [["08:30", "21:00"]]


def _zone_options(client) -> list[tuple[str, str]]:
    page = client.get("/sms/settings/").content.decode()
    [select] = re.findall(r'<select[^>]*name="time_zone".*?</select>', page, re.S)
    return re.findall(r'<option value="([^"]+)"[^>]*>([^<]+)</option>', select)


def test_the_time_zone_list_is_short_persian_and_tehran_first_and_another_zone_is_typed(owner_client, workspace):
    options = _zone_options(owner_client)
    assert options[0] == ("Asia/Tehran", "تهران (ایران)")
    assert len(options) <= 12  # not the ~600 IANA names
    assert not [label for _, label in options if re.search(r"[A-Za-z]{4,}", label)]  # Persian names («UTC» aside)

    response = _save_channel(owner_client, time_zone="Asia/Tehran", other_time_zone="Mars/Olympus")
    assert response.status_code == 400 and "other_time_zone" in response.context["channel_form"].errors
    assert Workspace.objects.get(pk=workspace.pk).time_zone == "Asia/Tehran"

    _save_channel(owner_client, time_zone="Asia/Tehran", other_time_zone=" Asia/Tokyo ")  # typed: it wins
    assert Workspace.objects.get(pk=workspace.pk).time_zone == "Asia/Tokyo"
    options = _zone_options(owner_client)
    assert ("Asia/Tokyo", "Asia/Tokyo") in options and len(options) <= 12  # the workspace's own zone, kept
    page = owner_client.get("/sms/settings/").content.decode()
    assert re.search(r'<option value="Asia/Tokyo"[^>]*selected', page)
    _save_channel(owner_client, time_zone="Asia/Tokyo")  # saved again as it is
    assert Workspace.objects.get(pk=workspace.pk).time_zone == "Asia/Tokyo"


def test_an_account_reads_as_its_provider_name_not_its_kind(workspace):
    account = SmsProviderAccount.objects.create(workspace=workspace, name="اصلی", provider="kavenegar")
    assert str(account) == "اصلی — کاوه‌نگار"
    assert "kavenegar" not in str(account)


def _save_words(client, opt_out: str, opt_in: str = "شروع"):
    return client.post("/sms/settings/", {"action": "words", "opt_out_words": opt_out, "opt_in_words": opt_in})


def test_opt_out_and_opt_in_words_are_edited_on_the_settings_page_and_used_by_the_matching(owner_client, workspace):
    from sms.inbound.keywords import OPT_IN, OPT_OUT, keyword_of
    from sms.models import SmsSettings

    page = owner_client.get("/sms/settings/").content.decode()
    assert "لغو ۱۱" in page and "شروع" in page  # the defaults are shown, one per line

    response = _save_words(owner_client, "لغو\r\n\r\n  انصراف  \r\nانصراف\r\nلغو\u200cکن\r\nلغوکن", "شروع\nعضویت")
    assert response.status_code == 302
    saved = SmsSettings.objects.get(workspace=workspace)
    # Blank lines dropped, spaces trimmed, one spelling per normalised form (ZWNJ is no difference).
    assert saved.opt_out_words == ["لغو", "انصراف", "لغو\u200cکن"]
    assert saved.opt_in_words == ["شروع", "عضویت"]
    words = {"opt_out_words": saved.opt_out_words, "opt_in_words": saved.opt_in_words}
    assert keyword_of("انصراف.", **words) == OPT_OUT
    assert keyword_of("عضويت", **words) == OPT_IN  # Arabic yeh
    assert keyword_of("stop", **words) == ""  # no longer an opt-out word
    page = owner_client.get("/sms/settings/").content.decode()
    assert "انصراف" in page and "عضویت" in page


@pytest.mark.parametrize(
    "opt_out, opt_in, field",
    [
        ("\n".join(f"w{i}" for i in range(31)), "شروع", "opt_out_words"),  # more than 30 words
        ("لغو\n" + "ب" * 41, "شروع", "opt_out_words"),  # a word longer than 40 characters
        ("x" * 2000, "شروع", "opt_out_words"),  # the text itself is bounded before it is split
        ("لغو", "لغو", "opt_in_words"),  # a word cannot be both
        ("لغو", "\u0644\u063a\u0648 ", "opt_in_words"),  # … not even in another spelling
    ],
)
def test_bad_words_are_field_errors_and_change_nothing(owner_client, workspace, opt_out, opt_in, field):
    from sms.inbound.keywords import DEFAULT_OPT_IN_WORDS, DEFAULT_OPT_OUT_WORDS
    from sms.models import SmsSettings

    owner_client.get("/sms/settings/")  # the settings row exists
    response = _save_words(owner_client, opt_out, opt_in)
    assert response.status_code == 400
    assert field in response.context["words_form"].errors
    saved = SmsSettings.objects.get(workspace=workspace)
    assert saved.opt_out_words == list(DEFAULT_OPT_OUT_WORDS)
    assert saved.opt_in_words == list(DEFAULT_OPT_IN_WORDS)


def test_frequency_cap_and_quiet_days_are_saved_in_jalali_and_read_back_by_the_api(owner_client, workspace):
    from sms.models import SmsSettings

    response = _save_channel(
        owner_client,
        frequency_cap_day="2",
        frequency_cap_week="",
        frequency_cap_month="۱۰",
        quiet_fridays="on",
        quiet_days="۱۴۰۵/۰۱/۰۱\n1405/01/13\n\n",
    )
    assert "ذخیره شد" in response.content.decode()
    settings = SmsSettings.objects.get(workspace=workspace)
    assert settings.frequency_cap_rules == [{"period": "day", "limit": 2}, {"period": "month", "limit": 10}]
    assert settings.quiet_fridays
    assert settings.quiet_days == ["2026-03-21", "2026-04-02"]  # 1 and 13 Farvardin 1405
    page = owner_client.get("/sms/settings/").content.decode()
    assert "1405/01/01\n1405/01/13" in page and 'name="frequency_cap_day" value="2"' in page
    assert 'name="frequency_cap_month" value="10"' in page and "ماه شمسی" in page and "شنبه تا جمعه" in page
    api = owner_client.get("/api/v1/sms/settings").json()
    assert (api["frequency_cap_per_day"], api["quiet_fridays"], api["quiet_days"]) == (
        2,
        True,
        ["2026-03-21", "2026-04-02"],
    )

    bad = _save_channel(owner_client, quiet_days="1405/13/01")
    assert bad.status_code == 400 and "quiet_days" in bad.context["channel_form"].errors
    over = _save_channel(owner_client, frequency_cap_day="51", frequency_cap_week="201")
    assert over.status_code == 400
    assert {"frequency_cap_day", "frequency_cap_week"} <= set(over.context["channel_form"].errors)
    _save_channel(owner_client)  # empty: no cap, no days
    settings.refresh_from_db()
    assert (settings.frequency_cap_rules, settings.quiet_fridays, settings.quiet_days) == ([], False, [])


def test_the_fixed_solar_holidays_of_this_jalali_year_and_the_next_can_be_added(owner_client, workspace):
    import time_machine

    from sms.models import SmsSettings

    with time_machine.travel("2026-12-05 10:00:00+03:30", tick=False):  # 1405/09/14
        _save_channel(owner_client, quiet_days="1405/10/01", add_solar_holidays="on")
    days = SmsSettings.objects.get(workspace=workspace).quiet_days
    assert len(days) == 21 and days == sorted(days)
    assert {"2026-03-21", "2026-12-22", "2027-02-11", "2027-03-21", "2027-06-04"} <= set(
        days
    )  # Nowruz, typed, 22 Bahman
