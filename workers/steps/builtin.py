"""The step types that ship with the product (no site-specific code):

    {"action": "goto", "url": "{link}"}            # default url: the task's link
    {"action": "click", "selector": "#like"}
    {"action": "fill", "selector": "textarea", "text": "{content}"}
    {"action": "wait_for", "selector": ".done"} | {"action": "wait_for", "text": "ثبت شد"}
    {"action": "verify", "selector": ".liked"}   | {"action": "verify", "text": "ثبت شد"}
    {"action": "screenshot"}

``{content}`` is the rendered content template; templates may use
``{link}``, ``{account}`` (the account label) and ``{action}``.
"""

from __future__ import annotations

from typing import Any

from workers.choices import ErrorCode
from workers.steps.base import StepContext, StepFailure, StepHandler, register_step, render

NEEDS_SELECTOR = "این گام selector لازم دارد."
NEEDS_SELECTOR_OR_TEXT = "این گام selector یا text لازم دارد."


class Goto(StepHandler):
    name = "goto"
    order = 10
    label = "رفتن به نشانی"
    keys = frozenset({"url"})
    navigates = True

    def run(self, page: Any, config: dict, ctx: StepContext) -> None:
        url = render(config.get("url") or "{link}", ctx.values)
        ctx.guard.check_url(url)  # after rendering, right before navigation
        response = page.goto(url, wait_until="domcontentloaded", timeout=ctx.budget(ctx.navigation_timeout_ms))
        if response is not None and response.status == 407:
            raise StepFailure(ErrorCode.PROXY_ERROR, "proxy answered 407 Proxy Authentication Required")
        if page.url.startswith(("http:", "https:")):
            ctx.guard.check_url(page.url)  # where the redirects ended
        ctx.check_logged_in(page)


class Click(StepHandler):
    name = "click"
    order = 20
    label = "کلیک"
    keys = frozenset({"selector"})
    mutates = True
    element_labels = ("click",)

    def validate(self, config: dict) -> list[str]:
        return [] if config.get("selector") else [NEEDS_SELECTOR]

    def run(self, page: Any, config: dict, ctx: StepContext) -> None:
        page.locator(render(config["selector"], ctx.values)).first.click(timeout=ctx.timeout_ms)


class Fill(StepHandler):
    name = "fill"
    order = 30
    label = "پر کردن"
    keys = frozenset({"selector", "text"})
    mutates = True
    element_labels = ("fill",)

    def validate(self, config: dict) -> list[str]:
        return [] if config.get("selector") else [NEEDS_SELECTOR]

    def run(self, page: Any, config: dict, ctx: StepContext) -> None:
        text = render(config.get("text", "{content}"), ctx.values)
        page.locator(render(config["selector"], ctx.values)).first.fill(text, timeout=ctx.timeout_ms)


class WaitFor(StepHandler):
    name = "wait_for"
    order = 40
    label = "انتظار"
    keys = frozenset({"selector", "text"})
    element_labels = ("wait_for_selector",)  # waiting for a text that never comes is a TIMEOUT

    def validate(self, config: dict) -> list[str]:
        return [] if config.get("selector") or config.get("text") else [NEEDS_SELECTOR_OR_TEXT]

    def run(self, page: Any, config: dict, ctx: StepContext) -> None:
        if config.get("selector"):
            ctx.label = "wait_for_selector"
            page.locator(render(config["selector"], ctx.values)).first.wait_for(state="visible", timeout=ctx.timeout_ms)
        else:
            page.get_by_text(render(config["text"], ctx.values)).first.wait_for(state="visible", timeout=ctx.timeout_ms)


class Verify(StepHandler):
    name = "verify"
    order = 50
    label = "تأیید"
    keys = frozenset({"selector", "text"})
    verifies = True

    def validate(self, config: dict) -> list[str]:
        return [] if config.get("selector") or config.get("text") else [NEEDS_SELECTOR_OR_TEXT]

    def run(self, page: Any, config: dict, ctx: StepContext) -> None:
        from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

        try:
            if config.get("selector"):
                page.locator(render(config["selector"], ctx.values)).first.wait_for(
                    state="visible", timeout=ctx.timeout_ms
                )
            if config.get("text"):
                page.get_by_text(render(config["text"], ctx.values)).first.wait_for(
                    state="visible", timeout=ctx.timeout_ms
                )
        except PlaywrightTimeoutError:
            raise StepFailure(ErrorCode.VERIFY_FAILED, "verification did not find the expected result") from None


class Screenshot(StepHandler):
    name = "screenshot"
    order = 60
    label = "تصویر صفحه"

    def run(self, page: Any, config: dict, ctx: StepContext) -> None:
        ctx.screenshot = page.screenshot(type="png")


def register_builtin_steps() -> None:
    """Called from ``WorkersConfig.ready()``."""
    for handler in (Goto(), Click(), Fill(), WaitFor(), Verify(), Screenshot()):
        register_step(handler)
