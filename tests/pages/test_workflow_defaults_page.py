"""The builder's workflow-wide defaults in Chromium: set on the settings card, followed by a new SMS step that sets
none of its own (its editor says so), overridden by a step that picks its own. Screenshots in var/screenshots/."""

import pytest
from playwright.sync_api import expect

from automation.models import Workflow
from automation.services.workflows import workflow_create
from campaigns.choices import Role

from ..conftest import make_actor, make_member, make_workspace
from .axe import axe_violations
from .test_campaign_pages import login, shot
from .test_journey_options import close_editor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_builder_sets_workflow_defaults_that_a_new_step_follows(page, live_server):
    shop = make_workspace("shop")
    mina = make_member(shop, Role.MANAGER, username="mina")
    workflow = workflow_create(actor=make_actor(shop, user=mina), name="یادآوری با پیش‌فرض")
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/workflows/{workflow.id}/builder/")

    card = page.get_by_test_id("workflow-defaults")
    card.get_by_test_id("default-daily-limit").fill("۲۰۰")
    card.get_by_test_id("default-retry").check()
    card.get_by_test_id("default-retry-attempts").fill("2")
    card.get_by_test_id("default-unknown").select_option("hold")
    card.get_by_test_id("save-defaults").click()
    card = page.get_by_test_id("workflow-defaults")
    expect(card.get_by_test_id("default-daily-limit")).to_have_value("200")
    expect(card.get_by_test_id("default-unknown")).to_have_value("hold")

    menu = page.get_by_test_id("add-0")
    menu.locator("summary").click()
    menu.get_by_role("button", name="ارسال پیامک", exact=True).click()
    dialog = page.get_by_test_id("editor-0")
    expect(dialog.get_by_test_id("on-unknown-outcome")).to_have_value("")  # «طبق پیش‌فرض گردش‌کار»
    expect(dialog.get_by_test_id("retry-inherit")).to_be_checked()
    assert axe_violations(page) == []
    shot(page, "workflow-builder-defaults")
    close_editor(page, "0")

    draft = Workflow.objects.get(pk=workflow.pk).versions.get(status="draft")
    assert draft.settings["daily_limit"] == 200 and draft.settings["on_unknown_outcome"] == "hold"
    assert draft.settings["retry"]["max_attempts"] == 2
    (step,) = [n for n in draft.nodes.all() if n.type == "action"]
    assert "retry" not in step.config and "on_unknown_outcome" not in step.config  # it follows the workflow

    page.get_by_test_id("edit-0").click()
    dialog = page.get_by_test_id("editor-0")
    dialog.get_by_test_id("sms-body").fill("سلام {target.first_name}")
    dialog.get_by_test_id("on-unknown-outcome").select_option("continue")
    dialog.get_by_test_id("retry-inherit").uncheck()
    dialog.get_by_test_id("save-step").click()
    expect(dialog).to_be_hidden()
    step = Workflow.objects.get(pk=workflow.pk).versions.get(status="draft").nodes.get(type="action")
    assert step.config["on_unknown_outcome"] == "continue" and "retry" in step.config  # its own now
