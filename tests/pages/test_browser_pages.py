"""Browser-task pages in Chromium against the local demo site: create a campaign on the page (per-line link
errors first), pause and resume it, watch it finish with the expired account's links taken by a spare, see
the chart and the failure groups, retry the failed task; accounts and proxies pages with write-only secrets.

Screenshots of every page land in var/screenshots/ (look at them after a run)."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from campaigns.choices import CampaignStatus, Role
from campaigns.models import Campaign
from workers.choices import ErrorCode, TaskStatus
from workers.models import ActionConfig, BrowserTask, Proxy
from workers.services import creation, statistics
from workers.services.dispatch import dispatch_due_tasks
from workers.services.results import proxy_error_record, result_apply

from ..conftest import make_member, make_workspace
from ..workers.conftest import (  # noqa: F401  (fixtures)
    LIKE_STEPS,
    LOGIN_CHECK,
    _allowed_private_hosts,
    browser,
    make_account,
    published,
    site,
)
from .axe import axe_violations
from .test_jalali_picker import pick_day

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("var/screenshots")
JALALI_DATE = re.compile(r"[۰-۹]{4}/[۰-۹]{2}/[۰-۹]{2}")


def shot(page, name: str) -> None:
    """Full-page screenshots at 1366 px and 390 px; nothing may overflow the narrow one sideways."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width, height in ((1366, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(SHOTS / f"browser-{name}-{width}.png"), full_page=True)
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 1, f"{name} overflows by {overflow}px at {width}px"
    page.set_viewport_size({"width": 1366, "height": 900})


def login(page, base: str, username: str) -> None:
    page.goto(f"{base}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-123456")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_contain_text("پیشخوان")


def htmx_idle(page) -> None:
    """Wait until htmx has swapped and settled what it fetched."""
    page.wait_for_function("!document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')")


def run_round(worker, sent, *, fail_first_of=None) -> None:
    """One round of the beat jobs; the browser runs what was published (one payload may be answered failed)."""
    creation.due_platforms_create_tasks()
    start = len(sent)
    dispatch_due_tasks()
    for payload in sent[start:]:
        if fail_first_of is not None and payload["account"]["id"] == fail_first_of:
            fail_first_of = None
            result = {
                "task_id": payload["task_id"],
                "attempt": payload["attempt"],
                "lease_id": payload["lease_id"],
                "status": "failed",
                "error_code": ErrorCode.VERIFY_FAILED,
                "error_reason": "the like did not show",
                "result_data": {"failed_step": "verify"},
            }
        else:
            result = worker.run(payload)
        result_apply(message=result)
    statistics.statistics_refresh()


def test_create_a_campaign_on_the_page_and_watch_it_finish(page, live_server, browser, published, site):  # noqa: F811
    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="sara")
    ActionConfig.objects.create(
        workspace=shop, platform="demo", action_type="like", steps=LIKE_STEPS, login_check=LOGIN_CHECK
    )
    other_platform = make_account(shop, label="حساب سکوی دیگر", platform="other")
    good = make_account(shop, label="حساب خوب")
    stale = make_account(shop, label="حساب منقضی", cookies="session=expired-page")
    spare = make_account(shop, label="حساب یدک")
    base = live_server.url
    login(page, base, "sara")
    page.click("[data-testid=nav-browser] summary")
    page.click("text=کمپین‌های مرورگر")
    page.click("[data-testid=new-campaign]")
    page.fill("#id_name", "پسندیدن دو پست")
    expect(page.locator("[data-testid=account-picker]")).to_contain_text(other_platform.label)
    with page.expect_response("**/browser/campaigns/accounts/**"):
        page.select_option("#id_platform", "demo")  # the picker follows the platform (htmx)
    htmx_idle(page)
    expect(page.locator("[data-testid=account-picker]")).not_to_contain_text(other_platform.label)
    page.select_option("#id_action", "like")
    page.check(f"input[name=accounts][value='{good.pk}']")
    page.check(f"input[name=accounts][value='{stale.pk}']")
    page.check(f"input[name=spare_accounts][value='{spare.pk}']")
    page.fill("#id_max_attempts", "1")
    page.fill("#id_target_links", f"{site.url('/post/page-1')}\nnot a link\nhttp://10.1.2.3/post")
    page.click("[data-testid=save]")
    errors = page.locator("[data-testid=field-target_links] .field-error, .field-error")
    expect(errors.filter(has_text="سطر ۲")).to_be_visible()
    expect(errors.filter(has_text="سطر ۳")).to_be_visible()
    shot(page, "create-errors")
    assert not Campaign.objects.filter(workspace=shop).exists()

    page.fill("#id_target_links", f"{site.url('/post/page-1')}\n{site.url('/post/page-2')}")
    page.click("[data-testid=save]")
    expect(page.locator("[data-testid=campaign-status]")).to_have_text("در حال اجرا")
    campaign = Campaign.objects.get(workspace=shop)
    expect(page.locator("[data-testid=summary]")).to_contain_text("موفق")

    page.click("button[value=pause]")
    expect(page.locator("[data-testid=campaign-status]")).to_have_text("متوقف موقت")
    run_round(browser, published)
    assert not published  # nothing dispatched while paused
    page.click("button[value=resume]")
    expect(page.locator("[data-testid=campaign-status]")).to_have_text("در حال اجرا")

    for _ in range(4):  # the stale account's tasks fail, their replacements (the spare) run next round
        run_round(browser, published, fail_first_of=good.pk if not published else None)
    # the page refreshes itself (htmx) while running: no reload
    expect(page.locator("[data-testid=summary]")).to_have_text("۳/۴ موفق", timeout=20000)
    expect(page.locator("[data-testid=campaign-status]")).to_have_text("پایان‌یافته", timeout=20000)
    expect(page.locator("[data-testid=chart] rect.bar-done").first).to_be_attached()
    tasks = page.get_by_test_id("tasks")  # the task table refreshes with the numbers, no reload
    expect(tasks.locator("tbody tr")).to_have_count(BrowserTask.objects.filter(campaign=campaign).count())
    expect(tasks.locator("tbody tr", has_text="انجام شد")).to_have_count(3, timeout=20000)
    groups = page.locator("[data-testid=failure-group]")
    expect(groups.filter(has_text="COOKIE_EXPIRED")).to_contain_text("۲ کار")
    expect(groups.filter(has_text="VERIFY_FAILED")).to_contain_text("۱ کار")
    shot(page, "campaign-finished")
    stale_tasks = BrowserTask.objects.filter(campaign=campaign, account=stale)
    assert all(t.replaced_by.account_id == spare.pk for t in stale_tasks)

    page.click("[data-testid=retry-failed]")
    expect(page.locator("[data-testid=campaign-status]")).to_have_text("در حال اجرا")
    run_round(browser, published)
    expect(page.locator("[data-testid=summary]")).to_have_text("۴/۴ موفق", timeout=20000)
    expect(page.locator("[data-testid=campaign-status]")).to_have_text("پایان‌یافته", timeout=20000)
    assert (
        BrowserTask.objects.filter(campaign=campaign, status=TaskStatus.FAILED, replaced_by__isnull=True).count() == 0
    )
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.COMPLETED
    assert JALALI_DATE.search(page.content())
    shot(page, "campaign-retried")

    page.goto(f"{base}/browser/")
    expect(page.locator("table")).to_contain_text("۴/۴")
    shot(page, "campaign-list")


def test_accounts_and_proxies_pages_keep_secrets_write_only(page, live_server, settings):
    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="nima")
    make_member(shop, Role.VIEWER, username="vida")
    settings.BROWSER_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:3128", "127.0.0.1:3129"]
    ActionConfig.objects.create(workspace=shop, platform="demo", action_type="like", steps=LIKE_STEPS)
    base = live_server.url
    login(page, base, "nima")
    page.goto(f"{base}/browser/accounts/")
    page.click("[data-testid=new-account]")
    page.fill("#id_label", "حساب اینستا")
    platforms = page.locator("#id_platform option")
    expect(platforms).to_have_text(["— انتخاب کنید —", "demo"])  # only platforms whose actions are configured
    page.select_option("#id_platform", "demo")
    page.get_by_test_id("cookie-formats").locator("summary").click()
    expect(page.get_by_test_id("cookie-formats")).to_contain_text("Netscape")
    shot(page, "account-new-cookie-formats")
    page.fill("#id_cookies", "sid=secret-cookie-1; theme=dark")
    page.click("[data-testid=account-form] button[type=submit]")
    expect(page.locator(".field-error")).to_contain_text("دامنه سکو")  # cookies need their site
    page.fill("#id_cookie_domain", "example.com")
    page.fill("#id_cookies", "sid=secret-cookie-1; theme=dark")
    page.click("[data-testid=account-form] button[type=submit]")
    expect(page.locator("[data-testid=accounts]")).to_contain_text("ذخیره‌شده، ۲ کوکی")
    assert "secret-cookie-1" not in page.content()
    shot(page, "accounts")
    page.click("text=ویرایش")
    assert "secret-cookie-1" not in page.content()
    expect(page.locator("#id_cookies")).to_have_value("")
    shot(page, "account-edit")

    page.goto(f"{base}/browser/proxies/")
    page.click("[data-testid=new-proxy]")
    page.fill("#id_label", "پراکسی اصلی")
    page.fill("#id_host", "127.0.0.1")
    page.fill("#id_port", "3128")
    page.fill("#id_username", "u")
    page.fill("#id_password", "proxy-secret-1")
    page.click("[data-testid=proxy-form] button[type=submit]")
    expect(page.locator("[data-testid=proxies]")).to_contain_text("ذخیره‌شده")
    proxy = Proxy.objects.get(workspace=shop)
    proxy_error_record(proxy_id=proxy.pk, reason="ERR_PROXY_CONNECTION_FAILED")
    page.reload()
    expect(page.locator("[data-testid=cooldown]")).to_have_text(JALALI_DATE)  # cooled down after a proxy error
    expect(page.locator("[data-testid=proxies]")).to_contain_text("ERR_PROXY_CONNECTION_FAILED")
    shot(page, "proxies")
    page.click("text=ویرایش")
    page.fill("#id_port", "3129")
    page.click("[data-testid=proxy-form] button[type=submit]")
    expect(page.locator(".field-error")).to_contain_text("گذرواژه تازه")  # a moved proxy needs its password again
    proxy.refresh_from_db()
    assert (proxy.port, proxy.password) == (3128, "proxy-secret-1")
    shot(page, "proxy-edit-moved")

    page.context.clear_cookies()
    login(page, base, "vida")
    page.click("[data-testid=nav-browser] summary")
    expect(page.locator("[data-testid=nav-browser]")).not_to_contain_text("حساب‌ها")
    assert page.goto(f"{base}/browser/accounts/").status == 403


def test_a_draft_is_edited_submitted_and_approved_on_the_pages(page, live_server):
    shop = make_workspace("shop")
    shop.settings = {"campaigns_need_approval": True}
    shop.save()
    make_member(shop, Role.MANAGER, username="mani")
    make_member(shop, Role.OWNER, username="omid")
    ActionConfig.objects.create(
        workspace=shop, platform="demo", action_type="like", steps=LIKE_STEPS, login_check=LOGIN_CHECK
    )
    first, second = make_account(shop, label="حساب یک"), make_account(shop, label="حساب دو")
    base = live_server.url
    login(page, base, "mani")
    page.goto(f"{base}/browser/campaigns/new/")
    page.fill("#id_name", "پیش‌نویس")
    with page.expect_response("**/browser/campaigns/accounts/**"):
        page.select_option("#id_platform", "demo")
    htmx_idle(page)
    page.check(f"input[name=accounts][value='{first.pk}']")
    page.fill("#id_target_links", "http://127.0.0.1:9/post/1")
    page.fill("#id_start_date", "1405/09/08 09:00")
    pick_day(page, "شروع", "۱۰ آذر ۱۴۰۵")  # the Jalali picker
    expect(page.locator("#id_start_date")).to_have_value("1405/09/10 09:00")  # the typed time is kept
    page.click("[data-testid=save]")
    expect(page.locator("[data-testid=campaign-status]")).to_have_text("پیش‌نویس")
    campaign = Campaign.objects.get(workspace=shop)

    page.click("[data-testid=edit]")
    expect(page.locator("#id_start_date")).to_have_value("1405/09/10 09:00")  # Jalali, the workspace's zone
    page.check(f"input[name=accounts][value='{second.pk}']")
    page.fill("#id_target_links", "http://127.0.0.1:9/post/1\nhttp://127.0.0.1:9/post/2")
    shot(page, "campaign-edit")
    page.click("[data-testid=save]")
    expect(page.locator("[data-testid=campaign-status]")).to_have_text("پیش‌نویس")
    platform = campaign.browser_platforms.get()
    assert sorted(platform.metadata["account_ids"]) == sorted([first.pk, second.pk])
    assert len(platform.metadata["target_links"]) == 2

    page.click("button[value=submit]")
    expect(page.locator("[data-testid=campaign-status]")).to_have_text("در انتظار تأیید")
    expect(page.locator("[data-testid=edit]")).to_have_count(0)
    assert page.goto(f"{base}/browser/campaigns/{campaign.pk}/edit/").url.endswith(f"/browser/campaigns/{campaign.pk}/")
    expect(page.locator("button[value=approve]")).to_have_count(0)  # a manager does not approve

    page.context.clear_cookies()
    login(page, base, "omid")
    page.goto(f"{base}/browser/campaigns/{campaign.pk}/")
    page.click("button[value=approve]")
    expect(page.locator("[data-testid=campaign-status]")).to_have_text("در انتظار شروع")
    creation.due_platforms_create_tasks()  # the start date has passed: the creation job activates it
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.ACTIVE
    assert BrowserTask.objects.filter(campaign=campaign).count() == 4


def test_five_accounts_imported_from_a_workbook_with_one_bad_row(page, live_server, tmp_path):
    from openpyxl import Workbook

    from workers.models import BrowserAccount

    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="bahar")
    workbook = Workbook()
    sheet = workbook.active
    sheet.append(["نام", "سکو", "دامنه سکو", "کوکی‌ها"])
    for n in range(1, 5):
        sheet.append([f"حساب {n}", "demo", "example.com", f"sid=secret-import-{n}"])
    sheet.append(["حساب بد", "demo", "example.com", '[{"name": "s", "value": "v", "domain": "evil.test"}]'])
    path = tmp_path / "accounts.xlsx"
    workbook.save(path)

    base = live_server.url
    login(page, base, "bahar")
    page.goto(f"{base}/browser/accounts/")
    page.click("[data-testid=import-accounts]")
    page.set_input_files("input[name=file]", str(path))
    page.click("[data-testid=import-preview-button]")
    expect(page.locator("[data-testid=import-valid]")).to_have_text("۴ ردیف درست")
    expect(page.locator("[data-testid=import-invalid]")).to_contain_text("۱ ردیف با مشکل")
    expect(page.locator("[data-testid=import-bad-row]")).to_contain_text("evil.test")
    assert "secret-import" not in page.content()
    assert not BrowserAccount.objects.filter(workspace=shop).exists()  # nothing written before commit
    shot(page, "account-import-preview")
    page.click("[data-testid=import-commit]")
    expect(page.locator("[data-testid=account-row]")).to_have_count(4)
    assert BrowserAccount.objects.get(workspace=shop, label="حساب 1").cookie_count == 1
    shot(page, "accounts-imported")


def test_nothing_ticked_vanishes_while_the_account_list_follows_the_platform(page, live_server, site):  # noqa: F811
    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="sara")
    ActionConfig.objects.create(
        workspace=shop, platform="demo", action_type="like", steps=LIKE_STEPS, login_check=LOGIN_CHECK
    )
    first, second = make_account(shop, label="حساب یک"), make_account(shop, label="حساب دو")
    elsewhere = make_account(shop, label="حساب سکوی دیگر", platform="other")
    login(page, live_server.url, "sara")
    page.goto(f"{live_server.url}/browser/campaigns/new/")
    page.check(f"input[name=accounts][value='{elsewhere.pk}']")
    expect(page.get_by_test_id("account-summary")).to_have_text("اصلی (۱): حساب سکوی دیگر")

    held = []  # the list's answer is held back: the person ticks an account while it is on its way
    page.route("**/browser/campaigns/accounts/**", lambda route: held.append(route))
    page.select_option("#id_platform", "demo")
    page.wait_for_function("document.querySelector('.htmx-request') !== null")
    page.check(f"input[name=accounts][value='{first.pk}']")
    assert len(held) == 1
    held[0].fulfill(response=held[0].fetch())
    htmx_idle(page)

    expect(page.locator(f"input[name=accounts][value='{first.pk}']")).to_be_checked()  # carried into the new list
    expect(page.locator(f"input[name=accounts][value='{second.pk}']")).not_to_be_checked()
    expect(page.get_by_test_id("account-dropped")).to_contain_text("حساب سکوی دیگر")  # named, not silently gone
    expect(page.get_by_test_id("account-summary")).to_have_text("اصلی (۱): حساب یک")
    page.check(f"input[name=spare_accounts][value='{second.pk}']")
    expect(page.get_by_test_id("account-summary")).to_have_text("اصلی (۱): حساب یک · یدک (۱): حساب دو")
    assert axe_violations(page) == []
    shot(page, "campaign-form-accounts-kept")


def test_the_task_table_reads_as_cards_on_a_phone(page, live_server):
    """At 390 px each task is a card of labelled cells: the link reads on a line of its own (not a letter per line
    in a squeezed column) and the finish time is on the screen, not past the table's edge."""
    from workers.services.campaigns import browser_campaign_create

    from ..conftest import make_actor

    shop = make_workspace("shop")
    sara = make_member(shop, Role.MANAGER, username="sara")
    ActionConfig.objects.create(
        workspace=shop, platform="demo", action_type="like", steps=LIKE_STEPS, login_check=LOGIN_CHECK
    )
    account = make_account(shop, label="حساب نمونه ۱")
    campaign = browser_campaign_create(
        actor=make_actor(shop, user=sara),
        name="پسندیدن پست‌های تازه",
        platform="demo",
        accounts=[account.pk],
        target_links=["http://127.0.0.1:8766/post/3"],
        action="like",
    )
    creation.due_platforms_create_tasks()
    login(page, live_server.url, "sara")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/browser/campaigns/{campaign.pk}/")
    row = page.get_by_test_id("tasks").locator("tbody tr").first
    link = row.locator("td.link-cell")
    expect(link).to_contain_text("http://127.0.0.1:8766/post/3")
    assert link.bounding_box()["height"] < 60, "the link is broken into a narrow column"
    for cell in row.locator("td").all():
        box = cell.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, cell.get_attribute("data-label")
    shot(page, "tasks-phone")
