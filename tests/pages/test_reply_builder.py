"""The builder's reply steps in Chromium: "wait up to two days or until a reply", then a condition on the reply,
a follow-up quoting it; published and read back; axe-clean; screenshots at 1366 and 390 px."""

import re

import pytest
from playwright.sync_api import expect

from automation.builder.sequence import Condition, End, Send, Wait, decompile
from automation.engine.graph import graph_of_version
from automation.models import Workflow
from automation.services.workflows import workflow_create, workflow_graph_save, workflow_publish
from campaigns.choices import Role
from campaigns.models import Campaign
from tests.automation.helpers import end_node, linear_graph, sms_node

from ..conftest import make_actor, make_member, make_workspace
from .axe import axe_violations
from .test_workflow_pages import add_step, edit, login, save, shot, step

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_wait_until_reply_and_branch_on_it_in_the_builder(page, live_server):
    shop = make_workspace("shop")
    user = make_member(shop, Role.MANAGER, username="mina")
    actor = make_actor(shop, user=user)
    workflow = workflow_create(actor=actor, name="پرسش و پاسخ")
    wait = {"node_key": "w", "type": "wait", "subtype": "duration", "name": "انتظار", "config": {}}
    wait["config"] = {"mode": "duration", "amount": 2, "unit": "days"}
    graph = linear_graph(sms_node("ask", body="فردا می‌آیید؟"), wait, end_node())
    workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=graph)
    page.set_viewport_size({"width": 1366, "height": 900})
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/workflows/{workflow.id}/builder/")

    # The wait ends early on a reply.
    dialog = edit(page, "1")
    dialog.get_by_test_id("wait-until-fact").select_option("reply.received")
    save(dialog)
    expect(step(page, "1")).to_contain_text("۲ روز؛ زودتر با پاسخ پیامکی از آخرین ارسال")

    # Then: replied with «بله» → a thanks quoting the reply (the end it took over); otherwise a reminder.
    add_step(page, "2", "شرط")
    dialog = edit(page, "2")
    fields = dialog.locator("select[name=rule_field_0]")
    expect(fields.locator("option[value='reply.text']")).to_have_text("متن پاسخ از آخرین ارسال")
    fields.select_option("reply.text")
    dialog.locator("select[name=rule_op_0]").select_option("has_word")
    dialog.locator("input[name=rule_value_0]").fill("بله، آره")
    expect(dialog.get_by_test_id("fact-help").first).to_contain_text("«بله است»")
    assert axe_violations(page) == []
    shot(page, "workflow-builder-reply-condition")
    save(dialog)
    expect(step(page, "2")).to_contain_text("متن پاسخ از آخرین ارسال شامل یکی از کلمه‌ها بله، آره")
    add_step(page, "2.yes.0", "ارسال پیامک")
    dialog = edit(page, "2.yes.0")
    expect(dialog.get_by_role("button", name="متن پاسخ مخاطب (از آخرین ارسال)")).to_be_visible()
    dialog.locator("textarea").fill("ممنون از پاسخ «{reply.text}»")
    save(dialog)
    add_step(page, "2.no.0", "ارسال پیامک")
    dialog = edit(page, "2.no.0")
    dialog.locator("textarea").fill("یادآوری: فردا می‌آیید؟")
    save(dialog)
    add_step(page, "2.no.1", "پایان")
    expect(page.get_by_test_id("problems")).to_contain_text("ایرادی نیست")
    assert axe_violations(page) == []
    shot(page, "workflow-builder-reply")
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "workflow-builder-reply-narrow")
    page.set_viewport_size({"width": 1366, "height": 900})

    page.get_by_test_id("publish").click()
    expect(page.locator(".flash-success")).to_contain_text("نسخه ۱ منتشر شد")
    sequence = decompile(graph_of_version(Workflow.objects.get(pk=workflow.id).published_version))
    ask, wait_step, condition = sequence.steps
    assert isinstance(ask, Send) and isinstance(wait_step, Wait)
    assert wait_step.config == {"mode": "duration", "amount": 2, "unit": "days", "until_fact": "reply.received"}
    assert isinstance(condition, Condition)
    assert condition.config["rules"] == [{"field": "reply.text", "operator": "has_word", "value": ["بله", "آره"]}]
    assert [type(s) for s in condition.yes] == [Send, End]
    assert condition.yes[0].config["body"] == "ممنون از پاسخ «{reply.text}»"
    assert [type(s) for s in condition.no] == [Send, End]


def test_a_rule_with_an_operator_the_reply_does_not_take_is_named(page, live_server):
    shop = make_workspace("shop")
    user = make_member(shop, Role.MANAGER, username="mina")
    actor = make_actor(shop, user=user)
    workflow = workflow_create(actor=actor, name="پرسش")
    graph = linear_graph(sms_node("ask", body="سلام"), end_node())
    workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=graph)
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/workflows/{workflow.id}/builder/")
    add_step(page, "1", "شرط")
    dialog = edit(page, "1")
    dialog.locator("select[name=rule_field_0]").select_option("reply.received")
    dialog.locator("select[name=rule_op_0]").select_option("gt")
    dialog.locator("input[name=rule_value_0]").fill("3")
    save(dialog)
    expect(page.get_by_test_id("problems")).to_contain_text("برای «پاسخ پیامکی از آخرین ارسال» به کار نمی‌رود")
    expect(page.get_by_test_id("publish")).to_be_disabled()


def test_campaign_offers_stop_when_the_target_replies(page, live_server):
    shop = make_workspace("shop")
    user = make_member(shop, Role.MANAGER, username="mina")
    actor = make_actor(shop, user=user)
    workflow = workflow_create(actor=actor, name="پرسش")
    workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=linear_graph(sms_node(), end_node()))
    workflow_publish(actor=actor, workflow_id=workflow.id)
    page.set_viewport_size({"width": 1366, "height": 900})
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/campaigns/new/")
    page.fill("#id_name", "پرسش هفتگی")
    page.locator("#id_workflow").select_option(str(workflow.id))
    stop = page.get_by_test_id("stop-facts")
    stop.get_by_label("مخاطب به پیامک پاسخ داد").check()
    assert axe_violations(page) == []
    shot(page, "journey-campaign-new-stop-reply")
    page.get_by_role("button", name="ساخت کمپین").click()
    expect(page).to_have_url(re.compile(r"/automation/campaigns/\d+/"))
    campaign = Campaign.objects.get(workspace=shop, name="پرسش هفتگی")
    assert campaign.journey_settings == {"stop_when_facts": ["reply.in_journey"]}
