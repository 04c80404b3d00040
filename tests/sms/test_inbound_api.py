"""Replies API: the inbox filtered (campaign, line, matched, opt-outs, unread), mark read, a target's
conversation (sent and received in one thread), the opt-out / opt-in words; each workspace sees only its own."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.choices import Role
from sms.inbound.models import InboundSms
from sms.inbound.services import inbound_store
from tests.api_base import TenantIsolationCases
from tests.conftest import api_client_for, make_campaign, make_member, make_target

from .inbound_helpers import make_account, received, sent

pytestmark = pytest.mark.django_db


def reply(workspace, text="سلام", sender=None, line="10004346") -> InboundSms:
    account = make_account(workspace, senders=[line])
    sender = sender or make_target(workspace).mobile
    (message,) = inbound_store(account=account, messages=[received(text, sender, line=line)])
    return message


def ids(response) -> set[int]:
    assert response.status_code == 200, response.content
    return {row["id"] for row in response.json()["results"]}


def test_the_inbox_is_filtered_by_campaign_line_match_opt_out_and_unread(api, workspace):
    target = make_target(workspace)
    campaign = make_campaign(workspace)
    sent(target, line="10004346", campaign=campaign)
    answered = reply(workspace, "ممنون", sender=target.mobile)
    stranger = reply(workspace, "کی هستید؟", sender="09350000001", line="20002000")
    opted = reply(workspace, "لغو۱۱")
    assert ids(api.get("/api/v1/sms/inbound")) == {answered.id, stranger.id, opted.id}
    assert ids(api.get("/api/v1/sms/inbound", {"campaign": campaign.id})) == {answered.id}
    assert ids(api.get("/api/v1/sms/inbound", {"line": "20002000"})) == {stranger.id}
    assert ids(api.get("/api/v1/sms/inbound", {"matched": "false"})) == {stranger.id}
    assert ids(api.get("/api/v1/sms/inbound", {"matched": "true"})) == {answered.id, opted.id}
    assert ids(api.get("/api/v1/sms/inbound", {"opt_outs": "true"})) == {opted.id}
    assert ids(api.get("/api/v1/sms/inbound", {"number": "0935 000 0001"})) == {stranger.id}
    row = api.get(f"/api/v1/sms/inbound/{answered.id}").json()
    assert (row["target_id"], row["campaign_id"], row["outcome"], row["is_read"]) == (
        target.id,
        campaign.id,
        "",
        False,
    )
    marked = api.post("/api/v1/sms/inbound/read", {"ids": [answered.id, stranger.id]}, format="json")
    assert marked.json() == {"marked": 2}
    assert ids(api.get("/api/v1/sms/inbound", {"unread": "true"})) == {opted.id}
    assert api.post("/api/v1/sms/inbound/read", {"ids": [answered.id], "read": False}, format="json").json() == {
        "marked": 1
    }
    assert api.get("/api/v1/sms/inbound", {"unread": "maybe"}).status_code == 400


def test_mark_read_never_touches_another_workspace(api, other_workspace):
    theirs = reply(other_workspace)
    assert api.post("/api/v1/sms/inbound/read", {"ids": [theirs.id]}, format="json").json() == {"marked": 0}
    theirs.refresh_from_db()
    assert not theirs.is_read


def test_a_targets_conversation_has_sent_and_received_in_one_thread(api, workspace, other_workspace):
    target = make_target(workspace)
    now = timezone.now()
    first = sent(target, at=now - timedelta(hours=2))
    account = make_account(workspace)
    (answer,) = inbound_store(account=account, messages=[received("کی؟", target.mobile, at=now - timedelta(hours=1))])
    second = sent(target, at=now - timedelta(minutes=30))
    reply(other_workspace, sender=target.mobile)  # the same number in another workspace: never here
    thread = api.get(f"/api/v1/sms/conversations/{target.id}")
    assert thread.status_code == 200, thread.content
    assert [(m["direction"], m["id"]) for m in thread.json()["results"]] == [
        ("out", first.id),
        ("in", answer.id),
        ("out", second.id),
    ]
    messages = thread.json()["results"]
    assert messages[1]["text"] == "کی؟" and messages[0]["status"] == "submitted"
    foreign = make_target(other_workspace)
    assert api.get(f"/api/v1/sms/conversations/{foreign.id}").status_code == 404


def test_the_words_are_read_and_updated_by_the_owner_only(api, workspace):
    words = api.get("/api/v1/sms/inbound/words").json()
    assert "لغو" in words["opt_out_words"] and words["opt_in_words"] == ["شروع"]
    changed = api.patch("/api/v1/sms/inbound/words", {"opt_out_words": ["انصراف"]}, format="json")
    assert changed.status_code == 200 and changed.json()["opt_out_words"] == ["انصراف"]
    both = api.patch("/api/v1/sms/inbound/words", {"opt_in_words": ["انصراف"]}, format="json")
    assert both.status_code == 400 and "opt_in_words" in both.json()["error"]["details"]
    manager = api_client_for(make_member(workspace, Role.MANAGER), workspace)
    assert manager.get("/api/v1/sms/inbound/words").status_code == 200
    assert manager.patch("/api/v1/sms/inbound/words", {"opt_out_words": ["x"]}, format="json").status_code == 403
    operator = api_client_for(make_member(workspace, Role.OPERATOR), workspace)
    assert operator.get("/api/v1/sms/inbound").status_code == 403


class TestInboundIsolation(TenantIsolationCases):
    list_url = "/api/v1/sms/inbound"
    detail_url = "/api/v1/sms/inbound/{id}"
    can_delete = False

    def make(self, workspace):
        return reply(workspace)
