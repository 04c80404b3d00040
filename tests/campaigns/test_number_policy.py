"""The number policy of docs/ui.md, one test per rule, on the pages and in the admin.

UI numbers in Persian digits; user content exactly as typed; phone numbers in Latin digits, isolated LTR;
24-hour times; SVG icons and a favicon.
"""

import re

import pytest
from django.contrib import admin
from django.utils import timezone

from automation.services.enrollment import enroll_subjects
from automation.services.workflows import workflow_create, workflow_graph_save
from campaigns.notifications.services import notification_send

from ..automation.helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node
from ..conftest import make_campaign, make_list, make_target

pytestmark = pytest.mark.django_db

ISOLATED_PHONE = '<bdi dir="ltr" class="phone">0912 555 0100</bdi>'


def test_user_content_is_shown_as_typed_in_the_builder(client, workspace, owner, actor):
    workflow = workflow_create(actor=actor, name="کد")
    graph = linear_graph(sms_node(body="کد تخفیف NAMA10"), {**end_node(), "config": {"behavior": "complete"}})
    workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=graph)
    client.force_login(owner)
    html = client.get(f"/automation/workflows/{workflow.id}/builder/").content.decode()
    assert "کد تخفیف NAMA10" in html
    assert "NAMA۱۰" not in html


def test_ui_numbers_are_persian_digits_bell_count_included(client, workspace, owner):
    for i in range(3):
        notification_send(workspace=workspace, recipients=[owner], kind="x", title="خبر", dedupe_key=f"n{i}")
    client.force_login(owner)
    html = client.get("/").content.decode()
    assert re.search(r'data-testid="bell-count">۳<', html)


def test_phone_numbers_are_isolated_ltr_in_latin_digits_on_lists_and_the_sms_log(client, workspace, owner, actor):
    target = make_target(workspace, mobile="+989125550100")
    setup_sms(workspace)
    campaign = journey(actor, linear_graph(sms_node(), end_node()))
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[target.id])
    Driver().tick(timezone.now())
    client.force_login(owner)
    assert ISOLATED_PHONE in client.get("/targets/").content.decode()
    log = client.get("/sms/log/").content.decode()
    assert ISOLATED_PHONE in log
    assert "۰۹۱۲" not in log  # one spelling of phone numbers everywhere


def test_phone_numbers_are_isolated_ltr_in_the_admin(superuser_client, workspace):
    target = make_target(workspace, mobile="+989125550100")
    html = superuser_client.get("/admin/campaigns/target/").content.decode()
    assert ISOLATED_PHONE in html
    form = superuser_client.get(f"/admin/campaigns/target/{target.id}/change/").content.decode()
    assert 'dir="ltr"' in re.search(r'<input[^>]*name="mobile"[^>]*>', form).group(0)


def test_phone_inputs_are_ltr_on_the_target_page(client, workspace, owner):
    target = make_target(workspace, mobile="+989125550100")
    client.force_login(owner)
    html = client.get(f"/targets/{target.id}/edit/").content.decode()
    for name in ("mobile", "landline"):
        field = re.search(rf'<input[^>]*name="{name}"[^>]*>', html).group(0)
        assert 'dir="ltr"' in field and 'inputmode="tel"' in field


@pytest.mark.parametrize("typed", ["0912555", "۰۹۱۲۵۵۵", "+98 912 555 0100", "0912 555 0100", "۰۹۱۲ ۵۵۵ ۰۱۰۰"])
def test_admin_target_search_finds_any_spelling_of_a_number(superuser_client, workspace, typed):
    make_target(workspace, name="یافتنی", mobile="+989125550100")
    make_target(workspace, name="دیگری", mobile="+989351112233")
    html = superuser_client.get("/admin/campaigns/target/", {"q": typed}).content.decode()
    assert "یافتنی" in html and "دیگری" not in html


def test_admin_delete_action_reads_without_a_doubled_plural(superuser_client, workspace):
    make_list(workspace, "مشتریان")
    html = superuser_client.get("/admin/campaigns/targetlist/").content.decode()
    assert "ها های" not in html
    assert "حذف موارد انتخاب‌شده (" in html
    make_campaign(workspace)
    html = superuser_client.get("/admin/campaigns/campaign/").content.decode()
    assert "ها های" not in html
    assert "حذف موارد انتخاب‌شده (کمپین‌ها)" in html


def test_send_window_times_are_24_hour_labelled_and_accept_persian_digits(client, workspace, owner):
    client.force_login(owner)
    html = client.get("/sms/settings/").content.decode()
    field = re.search(r"<input[^>]*id=\"id_win_sat_start\"[^>]*>", html).group(0)
    assert 'type="text"' in field and 'aria-label="شنبه از"' in field and "pattern=" in field
    from sms.forms import ChannelSettingsForm

    form = ChannelSettingsForm(data={"win_sat_start": "۰۸:۳۰", "win_sat_end": "21:00"})
    form.is_valid()
    assert "win_sat_start" not in form.errors
    assert form.window_config()["days"]["sat"] == [["08:30", "21:00"]]


def test_icons_are_svg_and_the_favicon_exists(client, workspace, owner):
    client.force_login(owner)
    html = client.get("/").content.decode()
    bell = re.search(r'<a class="bell".*?</a>', html, re.S).group(0)
    assert "<svg" in bell and "🔔" not in bell and "اعلان‌ها" in bell
    favicon = client.get("/favicon.ico", follow=True)
    assert favicon.status_code == 200
    assert b"".join(favicon.streaming_content)[:4] == b"\x00\x00\x01\x00"  # an .ico file


@pytest.fixture
def superuser_client(client, django_user_model):
    user = django_user_model.objects.create_superuser("root", "r@example.com", "pw-123456")
    client.force_login(user)
    return client


def test_admin_date_times_are_jalali_in_forms(superuser_client, workspace):
    import datetime as dt

    from campaigns.models import Campaign

    campaign = make_campaign(workspace)
    Campaign.objects.filter(pk=campaign.pk).update(starts_at=dt.datetime(2026, 12, 1, 6, 0, tzinfo=dt.UTC))
    html = superuser_client.get(f"/admin/campaigns/campaign/{campaign.id}/change/").content.decode()
    field = re.search(r'<input[^>]*name="starts_at"[^>]*>', html).group(0)
    assert 'value="1405/09/10 09:30"' in field and 'data-jalali-picker="jalali"' in field  # Tehran, 24-hour
    assert "js/jalali-picker.js" in html
    model_admin = admin.site._registry[Campaign]
    form_field = model_admin.formfield_for_dbfield(Campaign._meta.get_field("starts_at"), request=None)
    assert form_field.clean("۱۴۰۵/۰۹/۱۰ ۰۹:۳۰") == dt.datetime(2026, 12, 1, 6, 0, tzinfo=dt.UTC)
