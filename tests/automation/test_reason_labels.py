"""The engine's reasons read in Persian on the timeline and the campaign log; the stored rows keep their own."""

import pytest

from automation.choices import EventType
from automation.models import ExecutionEvent
from automation.services.enrollment import enroll_subjects
from tests.conftest import make_target

from .helpers import end_node, journey, linear_graph, setup_sms, sms_node

pytestmark = pytest.mark.django_db

SHOWN = {
    "missing variable": "متغیری از متن پیام خالی بود؛ گام رد شد.",
    "activity created": "پیگیری برای مسئول ساخته شد.",
    "rate limited": "سرویس‌دهنده سقف سرعت ارسال را زد؛ کمی بعد دوباره فرستاده می‌شود.",
    "settled: sent": "نتیجه ارسال روشن شد: فرستاده شد.",
    "settling: no answer": "در انتظار روشن‌شدن نتیجه ارسال: سرویس‌دهنده پاسخی نداد.",
    "unsettled after 3 status queries": "نتیجه ارسال پس از ۳ پرسش وضعیت روشن نشد.",
}


def test_engine_reasons_show_in_persian_on_the_timeline_and_the_campaign_log(actor, workspace, owner, client):
    setup_sms(workspace)
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
    target = make_target(workspace, first_name="بابک")
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[target.id])
    first = ExecutionEvent.objects.filter(campaign_id=campaign.id).first()
    for message in SHOWN:
        ExecutionEvent.objects.create(
            workspace_id=first.workspace_id,
            execution_id=first.execution_id,
            campaign_id=first.campaign_id,
            subject_type_id=first.subject_type_id,
            subject_id=first.subject_id,
            type=EventType.ACTION_RESULT,
            message=message,
            occurred_at=first.occurred_at,
        )
    client.force_login(owner)
    for url in (f"/targets/{target.id}/edit/", f"/automation/campaigns/{campaign.id}/logs/"):
        html = client.get(url).content.decode()
        for english, persian in SHOWN.items():
            assert persian in html, (url, english)
            assert english not in html, (url, english)
    stored = set(ExecutionEvent.objects.filter(type=EventType.ACTION_RESULT).values_list("message", flat=True))
    assert stored == set(SHOWN)
