"""Filtered words (docs/sms.md "Filtered words"): a text the provider refused for a filtered word (Melipayamak 7)
is remembered on the account — the words its answer names and the refused step text — and the next launch check
blocks a step carrying one, the step editor lints it, and staff may edit the words on the account. Real HTTP
against the local fake provider."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from automation.launch_check import journey_launch_check
from automation.services.enrollment import enroll_subjects
from sms import filtered_words, rate_limits, services
from sms.action import SendSmsAction
from sms.models import SmsAttempt, SmsProviderAccount
from sms.providers.base import POOL
from sms.providers.melipayamak import Fixtures as Melipayamak
from tests.automation.helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node
from tests.conftest import make_target

from .fake_provider import FakeProvider

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)


@pytest.fixture
def fake(settings):
    POOL.clear()
    server = FakeProvider(hold_seconds=2.5)
    settings.SMS_PROVIDER_BASE_URLS = {"kavenegar": server.url, "melipayamak": server.url}
    settings.SMS_HTTP_TIMEOUT = 2.0
    settings.SMS_RATE_LIMIT_MAX_WAIT_SECONDS = 0
    rate_limits.reset()
    yield server
    rate_limits.reset()
    server.close()
    POOL.clear()


def _campaign(actor, workspace, body, at):
    with time_machine.travel(at, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a", body=body), end_node()), activate=False)
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id])
        check = journey_launch_check(actor=actor, campaign_id=campaign.id)
    return campaign, check


def test_a_filtered_word_refusal_blocks_the_next_launch_and_lints_in_the_editor(actor, workspace, fake):
    setup_sms(workspace, "melipayamak", {"username": "u", "password": "p"})
    account = SmsProviderAccount.objects.get(workspace=workspace)
    campaign, check = _campaign(actor, workspace, "جایزه ویژه امروز", T0)
    assert "filtered_word" not in [b["code"] for b in check["blockers"]]

    # 1. the provider refuses the text for a filtered word and names it
    status, body = Melipayamak.send(7)
    fake.responses.append((status, {**body, "StrRetStatus": "متن حاوی کلمه فیلتر شده است: جایزه"}))
    with time_machine.travel(T0, tick=False):
        from automation.services.campaigns import journey_campaign_transition

        journey_campaign_transition(actor=actor, campaign_id=campaign.id, action="activate")
    Driver().tick(T0 + timedelta(minutes=1))
    assert SmsAttempt.objects.get(campaign=campaign).status == "rejected"
    account.refresh_from_db()
    assert account.filtered_words == ["جایزه"]
    assert account.filtered_templates == ["جایزه ویژه امروز"]

    # 2. another campaign with that word: a blocker naming the word; the editor's lint says the same
    _, check = _campaign(actor, workspace, "یك جايزه برای شما", T0 + timedelta(hours=1))  # Arabic letters too
    blocker = next(b for b in check["blockers"] if b["code"] == "filtered_word")
    assert "جایزه" in blocker["message"] and not check["ok"]
    assert check["channels"][0]["steps"][0]["filtered_words"] == ["جایزه"]
    lint = SendSmsAction().preview({"body": "جایزه شما"}, make_target(workspace))["lint"]
    assert [p["code"] for p in lint["problems"]] == ["filtered_word"]

    # 3. a clean text passes; staff remove the word and the refused text no longer blocks by its word
    _, clean = _campaign(actor, workspace, "تخفیف پاییزه", T0 + timedelta(hours=2))
    assert "filtered_word" not in [b["code"] for b in clean["blockers"]]
    services.sms_account_update(actor=actor, account_id=account.id, data={"filtered_words": []})
    _, after = _campaign(actor, workspace, "یک جایزه برای شما", T0 + timedelta(hours=3))
    assert "filtered_word" not in [b["code"] for b in after["blockers"]]


def test_a_refusal_that_names_no_word_keeps_the_text_only(actor, workspace):
    setup_sms(workspace, "melipayamak", {"username": "u", "password": "p"})
    account = SmsProviderAccount.objects.get(workspace=workspace)
    filtered_words.remember_refusal(account_id=account.id, template="سلام {target.first_name}", answer="filtered word")
    account.refresh_from_db()
    assert (account.filtered_words, account.filtered_templates) == ([], ["سلام {target.first_name}"])
    assert filtered_words.found_in("سلام سارا", account, template="سلام {target.first_name}") == ["متن ردشده پیشین"]
    assert filtered_words.clean_words(["  A ,b،c", "a", "ك"]) == ["A", "b", "c", "ك"]
