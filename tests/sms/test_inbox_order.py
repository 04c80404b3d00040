"""The inbox's «همه» view (unread first, then newest, paged by keyset), the target thread's keyset pages (a
position, not an offset: stable under new messages, nothing lost at a shared time) and the preview's sample for
``{reply.text}`` — without a browser."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from django.utils.http import urlencode

from automation.services.workflows import workflow_create
from campaigns.platform.tenancy import Actor
from sms.inbound import target_panel, views
from sms.inbound.models import InboundSms
from sms.inbound.selectors import thread_position
from sms.inbound.services import inbound_store
from sms.models import SmsAttempt
from tests.conftest import make_target

from .inbound_helpers import make_account, received, sent

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner_client(client, owner):
    client.force_login(owner)
    return client


def inbox_texts(html: str) -> list[str]:
    return re.findall(r'data-testid="inbox-text">([^<]*)<', html)


def pager(html: str, rel: str) -> str | None:
    found = re.search(rf'rel="{rel}" data-testid="pager-\w+" href="([^"]+)"', html)
    return found.group(1).replace("&amp;", "&") if found else None


def test_all_shows_unread_first_then_newest_across_pages(owner_client, workspace, monkeypatch):
    monkeypatch.setattr(views, "PAGE_SIZE", 2)
    account = make_account(workspace)
    now = timezone.now()
    # Received an hour apart, oldest first: r0 … r4; r1 and r3 stay unread.
    replies = inbound_store(
        account=account,
        messages=[received(f"r{i}", f"0935000000{i}", at=now - timedelta(hours=5 - i)) for i in range(5)],
    )
    InboundSms.objects.filter(pk__in=[replies[i].id for i in (0, 2, 4)]).update(is_read=True)

    first = owner_client.get("/sms/inbox/", {"state": "all"}).content.decode()
    assert inbox_texts(first) == ["r3", "r1"]  # the unread ones, newest first, before any newer read one
    second = owner_client.get("/sms/inbox/" + pager(first, "next")).content.decode()
    assert inbox_texts(second) == ["r4", "r2"]  # then the read ones, newest first
    third = owner_client.get("/sms/inbox/" + pager(second, "next")).content.decode()
    assert inbox_texts(third) == ["r0"] and pager(third, "next") is None
    back = owner_client.get("/sms/inbox/" + pager(third, "prev")).content.decode()
    assert inbox_texts(back) == ["r4", "r2"]
    assert inbox_texts(owner_client.get("/sms/inbox/" + pager(back, "prev")).content.decode()) == ["r3", "r1"]
    assert "state=all" in pager(back, "prev")  # the filter is kept
    # A cursor that is not one of ours shows the first page.
    assert inbox_texts(owner_client.get("/sms/inbox/", {"state": "all", "cursor": "junk"}).content.decode()) == [
        "r3",
        "r1",
    ]


def test_unread_and_read_views_stay_newest_first(owner_client, workspace):
    account = make_account(workspace)
    now = timezone.now()
    replies = inbound_store(
        account=account,
        messages=[received(f"r{i}", f"0935000001{i}", at=now - timedelta(hours=5 - i)) for i in range(4)],
    )
    InboundSms.objects.filter(pk__in=[replies[0].id, replies[3].id]).update(is_read=True)
    assert inbox_texts(owner_client.get("/sms/inbox/").content.decode()) == ["r2", "r1"]
    assert inbox_texts(owner_client.get("/sms/inbox/", {"state": "read"}).content.decode()) == ["r3", "r0"]


def thread(client, target, query: str = "") -> tuple[list[str], str | None]:
    html = client.get(f"/targets/{target.id}/edit/{query}").content.decode()
    part = html.split('data-testid="thread"')[1].split("</ol>")[0]
    texts = re.findall(r'<p class="text">([^<]*)</p>', part)
    older = re.search(r'href="(\?thread_before=[^"#]+)#panel-sms" data-testid="thread-older"', html)
    return texts, older.group(1).replace("&amp;", "&") if older else None


def say(target, text: str, at) -> None:
    SmsAttempt.objects.filter(pk=sent(target, at=at).pk).update(message=text)


def test_thread_pages_by_position_not_offset(owner_client, workspace, monkeypatch):
    monkeypatch.setattr(target_panel, "THREAD_PAGE", 3)
    target = make_target(workspace)
    account = make_account(workspace)
    moment = timezone.now() - timedelta(hours=1)
    # Seven messages, five of them at the same moment (sent and received): no page may lose or repeat one.
    for i, at in enumerate([moment - timedelta(hours=1), moment, moment]):
        say(target, f"out{i}", at)
    inbound_store(account=account, messages=[received(f"in{i}", target.mobile, at=moment) for i in range(3)])
    say(target, "out3", moment + timedelta(minutes=5))

    newest, older = thread(owner_client, target)
    assert newest == ["in1", "in2", "out3"]  # oldest first; at one moment the sent ones come before the replies
    # Two new messages arrive before the staff ask for the older page: it is the page it was.
    inbound_store(account=account, messages=[received("later", target.mobile)])
    say(target, "out4", timezone.now())
    middle, oldest_link = thread(owner_client, target, older)
    assert middle == ["out1", "out2", "in0"]
    oldest, none = thread(owner_client, target, oldest_link)
    assert oldest == ["out0"] and none is None
    assert thread(owner_client, target)[0] == ["out3", "later", "out4"]
    # A cursor that is not one of ours shows the newest page.
    assert thread(owner_client, target, "?thread_before=2026-01-01T00:00:00%2B00:00")[0][-1] == "out4"


def thread_links(client, target, query: str = "") -> tuple[list[str], dict[str, str]]:
    """The page's messages and its pager links by test id (thread-older / thread-newer / thread-newest)."""
    html = client.get(f"/targets/{target.id}/edit/{query}").content.decode()
    part = html.split('data-testid="thread"')[1].split("</ol>")[0]
    links = re.findall(r'href="([^"#]*)#panel-sms" data-testid="thread-(\w+)"', html)
    return re.findall(r'<p class="text">([^<]*)</p>', part), {k: v.replace("&amp;", "&") for v, k in links}


def test_thread_steps_to_newer_pages_by_position(owner_client, workspace, monkeypatch):
    """«پیامک‌های جدیدتر» is the keyset step forward: from the oldest page it walks the thread to the newest
    message, each page starting right after the last one shown — across messages sharing a time, sent before
    received — with none lost or repeated, and messages arriving meanwhile come at the end."""
    monkeypatch.setattr(target_panel, "THREAD_PAGE", 2)
    target = make_target(workspace)
    account = make_account(workspace)
    moment = timezone.now() - timedelta(hours=1)
    for i, at in enumerate([moment - timedelta(hours=1), moment, moment]):
        say(target, f"out{i}", at)
    inbound_store(account=account, messages=[received(f"in{i}", target.mobile, at=moment) for i in range(3)])
    say(target, "out3", moment + timedelta(minutes=5))

    pages, query = [], ""
    while True:
        texts, links = thread_links(owner_client, target, query)
        pages.append(texts)
        if "older" not in links:
            break
        query = links["older"]
    assert pages == [["in2", "out3"], ["in0", "in1"], ["out1", "out2"], ["out0"]]
    assert "newer" not in thread_links(owner_client, target)[1]  # the newest page has nothing newer
    assert links["newest"].startswith("/targets/") and "newer" in links

    inbound_store(account=account, messages=[received("later", target.mobile)])  # arrives while paging
    forward = []
    while "newer" in links:
        assert links["newer"].startswith("?thread_after=")
        texts, links = thread_links(owner_client, target, links["newer"])
        forward.append(texts)
        assert "older" in links and "newest" in links
    assert forward == [["out1", "out2"], ["in0", "in1"], ["in2", "out3"], ["later"]]
    # Its «قدیمی‌تر» goes back to the page before it.
    assert thread_links(owner_client, target, links["older"])[0] == ["in2", "out3"]
    # A position that is not one of ours shows the newest page; one with nothing after it too.
    assert thread_links(owner_client, target, "?thread_after=nonsense")[0] == ["out3", "later"]
    last = InboundSms.objects.get(text="later")
    position = thread_position({"at": last.received_at, "id": last.id, "direction": "in"})
    assert thread_links(owner_client, target, "?" + urlencode({"thread_after": position}))[0] == ["out3", "later"]


def test_the_conversation_api_pages_back_by_position_in_the_one_envelope(api, workspace):
    target = make_target(workspace)
    moment = timezone.now() - timedelta(hours=1)
    say(target, "out0", moment)
    inbound_store(
        account=make_account(workspace),
        messages=[received("لغو۱۱", target.mobile, at=moment), received("in1", target.mobile, at=moment)],
    )
    say(target, "out1", moment + timedelta(minutes=1))
    url = f"/api/v1/sms/conversations/{target.id}"
    newest = api.get(url, {"size": 2}).json()
    assert [m["text"] for m in newest["results"]] == ["in1", "out1"]  # the newest page, oldest first
    assert (newest["has_more"], newest["page"], newest["count"]) == (True, 1, None)
    assert newest["next"] == newest["results"][0]["position"]
    say(target, "out2", moment + timedelta(minutes=2))  # arriving meanwhile: the older page is the page it was
    older = api.get(url, {"size": 2, "cursor": newest["next"]}).json()
    assert [(m["text"], m["outcome"]) for m in older["results"]] == [("out0", ""), ("لغو۱۱", "opt_out")]
    assert (older["has_more"], older["next"], older["page"]) == (False, None, None)  # the thread's beginning
    assert [m["text"] for m in api.get(url).json()["results"]] == ["out0", "لغو۱۱", "in1", "out1", "out2"]
    for params, field in (({"cursor": "x" * 5000}, "cursor"), ({"size": 201}, "size"), ({"page": 2}, "page")):
        refused = api.get(url, params)
        assert refused.status_code == 400 and field in refused.json()["error"]["details"], params


def test_the_preview_shows_a_sample_for_the_reply(api, workspace, owner, owner_client):
    body = {"body": "ممنون از پاسخ «{reply.text}»"}
    quiet = make_target(workspace)
    answer = api.post("/api/v1/sms/preview", {**body, "target_id": quiet.id}, format="json").json()
    assert (answer["text"], answer["missing"], answer["unknown"]) == ("ممنون از پاسخ «بله»", [], [])
    talker = make_target(workspace)
    inbound_store(account=make_account(workspace), messages=[received("فردا ساعت ده", talker.mobile)])
    answer = api.post("/api/v1/sms/preview", {**body, "target_id": talker.id}, format="json").json()
    assert answer["text"] == "ممنون از پاسخ «فردا ساعت ده»"  # the sample target's own latest reply
    actor = Actor(user=owner, workspace=workspace, membership=owner.memberships.get(workspace=workspace))
    workflow = workflow_create(actor=actor, name="پرسش")
    html = owner_client.post(
        f"/automation/workflows/{workflow.id}/builder/preview/",
        {"step_action": "send_sms", "cfg_body": "پاسخ شما: {reply}"},
    ).content.decode()
    assert "پاسخ شما: فردا ساعت ده" in html and "مقدار ندارد" not in html  # the newest target is the sample
