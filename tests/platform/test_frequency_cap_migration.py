"""The frequency cap's per-day setting becomes a day rule (sms 0020) without changing what a workspace capped, and
its counters keep counting days; migrated back, the day rule is the per-day setting again."""

from datetime import date

import pytest

from tests.platform.scratch_db import migrate, scratch_database

BEFORE = [("sms", "0019_account_provider_prices")]
AFTER = [("sms", "0020_frequency_cap_rules")]


@pytest.fixture
def scratch():
    with scratch_database("frequency_rules") as connection:
        yield connection


@pytest.mark.timeout(900)  # every migration the SMS app depends on, from an empty database
@pytest.mark.django_db
def test_the_per_day_setting_becomes_a_day_rule_and_back(scratch):
    old = migrate(scratch, BEFORE)
    workspaces = old.get_model("platform", "Workspace").objects
    capped = workspaces.create(name="با سقف", slug="capped")
    free = workspaces.create(name="بی سقف", slug="free")
    settings = old.get_model("sms", "SmsSettings").objects
    settings.create(workspace=capped, frequency_cap_per_day=3, webhook_token="a" * 32)
    settings.create(workspace=free, frequency_cap_per_day=0, webhook_token="b" * 32)
    old.get_model("sms", "SmsFrequencyCount").objects.create(
        workspace=capped, phone="+989120000001", day=date(2026, 11, 1), sent=2
    )

    new = migrate(scratch, AFTER)
    rules = dict(new.get_model("sms", "SmsSettings").objects.values_list("workspace__slug", "frequency_cap_rules"))
    assert rules == {"capped": [{"period": "day", "limit": 3}], "free": []}
    count = new.get_model("sms", "SmsFrequencyCount").objects.get()
    assert (count.period, count.day, count.sent) == ("day", date(2026, 11, 1), 2)

    new.get_model("sms", "SmsFrequencyCount").objects.create(
        workspace_id=count.workspace_id, phone="+989120000001", period="week", day=date(2026, 11, 1), sent=2
    )
    back = migrate(scratch, BEFORE)  # the week's counter of the same first day goes: one counter a day again
    caps = dict(back.get_model("sms", "SmsSettings").objects.values_list("workspace__slug", "frequency_cap_per_day"))
    assert caps == {"capped": 3, "free": 0}
    assert back.get_model("sms", "SmsFrequencyCount").objects.count() == 1
