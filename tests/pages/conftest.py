"""Real Chromium (the system one) driven by Playwright for page tests."""

import os

import pytest

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def chromium():
    from django.conf import settings
    from playwright.sync_api import sync_playwright

    path = settings.PLAYWRIGHT_CHROMIUM_PATH  # the environment's, else the one `make` chose (workers/chromium.py)
    if not os.path.exists(path):
        pytest.fail(f"Chromium not found at {path}: `make venv` finds or installs one, or set PLAYWRIGHT_CHROMIUM_PATH")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's sync API keeps an event loop in this thread
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium):
    context = chromium.new_context(locale="fa-IR", viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(15000)
    try:
        yield page
    finally:
        context.close()
