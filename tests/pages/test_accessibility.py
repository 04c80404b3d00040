"""axe-core 4 (WCAG 2.1 A/AA) on every staff page pattern: no critical or serious violation, and none of the
best-practice rules the pages pass (landmarks, heading order, empty table headers; ``axe.ENFORCED_RULES``).

Each page is also saved at 1366 px and 390 px wide under var/screenshots/a11y-<name>-<width>.png.
"""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from .axe import axe_violations
from .staff_site import NOT_PAGES, PAGES, PASSWORD, SIGNED_OUT_PAGES, staff_site_create, staff_url_names

SHOTS = Path("var/screenshots")
WIDTHS = (1366, 390)
SETTLED = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def test_every_staff_url_pattern_is_a_checked_page_or_named_as_no_page():
    listed = set(PAGES) | set(SIGNED_OUT_PAGES) | set(NOT_PAGES)
    assert staff_url_names() - listed == set(), "add the new pattern to PAGES (axe-checked) or NOT_PAGES"
    assert listed - staff_url_names() == set()


def _check(page, base: str, name: str, url: str, found: dict) -> None:
    """axe at every width (a narrow layout can hide a label or make a region scroll), then a screenshot."""
    response = page.goto(base + url)
    assert response.status == 200, (name, url, response.status)
    page.wait_for_load_state("networkidle")
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.evaluate(SETTLED)  # the page's resize handlers have run
        for problem in axe_violations(page):
            if problem["rule"] not in {p["rule"] for p in found.get(name, [])}:
                found.setdefault(name, []).append({**problem, "width": width})
        # narrow screens: the page never scrolls sideways (wide tables scroll inside their own box)
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        if overflow > 1:
            found.setdefault(name, []).append({"rule": "page-scrolls-sideways", "width": width, "by": overflow})
        page.screenshot(path=str(SHOTS / f"a11y-{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": WIDTHS[0], "height": 900})


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_every_staff_page_has_no_critical_or_serious_axe_violation(page, live_server, settings, tmp_path):
    settings.VAR_DIR = tmp_path  # demo_data keeps its generated password there
    settings.BROWSER_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:8766"]  # the demo browser campaign's demo site
    site = staff_site_create()
    base, found = live_server.url, {}
    for name in SIGNED_OUT_PAGES:
        _check(page, base, name, site.url(name), found)
    page.fill("#id_username", site.username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_contain_text("پیشخوان")
    for name in PAGES:
        _check(page, base, name, site.url(name), found)
    assert found == {}, "\n".join(f"{name}: {problems}" for name, problems in found.items())


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_axe_check_reports_a_new_violation(page, live_server):
    page.goto(live_server.url + "/login/")
    assert axe_violations(page) == []
    page.evaluate("document.querySelector('form').insertAdjacentHTML('beforeend', '<input type=text>')")
    assert [v["rule"] for v in axe_violations(page)] == ["label"]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_axe_check_reports_landmark_heading_and_table_header_problems(page, live_server):
    page.goto(live_server.url + "/login/")
    page.evaluate(
        """document.querySelector('main').insertAdjacentHTML('beforeend',
        '<h4>بخش</h4><table><tr><th></th><td>۱</td></tr></table>');
        document.body.insertAdjacentHTML('beforeend', '<main><p>دوم</p></main>')"""
    )
    rules = {v["rule"] for v in axe_violations(page)}
    assert {"heading-order", "empty-table-header", "landmark-no-duplicate-main"} <= rules


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_dialog_is_a_bottom_sheet_at_390_px_and_passes_axe(page, live_server):
    from campaigns.choices import Role

    from ..conftest import make_member, make_workspace
    from .test_staff_pages import login

    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="sara")
    page.set_viewport_size({"width": 390, "height": 800})
    login(page, live_server.url, "sara")
    page.goto(f"{live_server.url}/chains/groups/")
    page.get_by_test_id("group-new").click()
    dialog = page.locator("#dlg-group-new")
    expect(dialog).to_be_visible()
    page.evaluate(SETTLED)
    box = dialog.bounding_box()
    assert (round(box["x"]), round(box["width"]), round(box["y"] + box["height"])) == (0, 390, 800)
    assert axe_violations(page) == []
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "a11y-dialog-sheet-390.png"))
