"""The Playwright runner: executes one payload's declarative steps. No ORM here.

A browser worker process owns one Playwright + one Chromium (started in
``worker_process_init``, see ``workers.worker``). Each task runs in a
BrowserContext of its account (cookies, user agent, viewport, proxy). Like
Crawlee's session pool, a context (and its page) is kept warm per account
across that account's tasks (LRU, ``CONTEXT_POOL_SIZE``) — accounts never
share a context — and is closed as soon as a task fails, the account's
cookies/proxy change, or it is evicted. Memory is only released on close, so
every context is closed in ``finally``/on eviction and processes are recycled
with ``--max-tasks-per-child``.

Errors are classified from what the worker saw (``classify_error``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from workers import cookies
from workers.choices import ErrorCode
from workers.netguard import NEUTRAL_REASON, AddressNotAllowed, EgressProxy, NetGuard, proxy_host_port
from workers.steps import StepContext, StepFailure, element_labels, step_handler

logger = logging.getLogger("workers.runner")

PROXY_MARKERS = (
    "ERR_PROXY_CONNECTION_FAILED",
    "ERR_TUNNEL_CONNECTION_FAILED",
    "ERR_INVALID_AUTH_CREDENTIALS",
    "ERR_PROXY_AUTH",
    "ERR_SOCKS_CONNECTION_FAILED",
    "ERR_NO_SUPPORTED_PROXIES",
    "ERR_PROXY_CERTIFICATE_INVALID",
    "ERR_MANDATORY_PROXY_CONFIGURATION_FAILED",
)


def classify_error(exc: BaseException, *, step: str, uses_proxy: bool) -> tuple[str, str]:
    """(error_code, reason) for an exception raised while running ``step``."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    if isinstance(exc, StepFailure):
        return exc.code, exc.reason
    message = str(exc).splitlines()[0][:400] if str(exc) else exc.__class__.__name__
    if any(marker in message for marker in PROXY_MARKERS):
        return ErrorCode.PROXY_ERROR, message
    if uses_proxy and ("ECONNREFUSED" in message or "ECONNRESET" in message or "ERR_CONNECTION_RESET" in message):
        return ErrorCode.PROXY_ERROR, message
    if isinstance(exc, PlaywrightTimeoutError):
        if step in element_labels():  # declared by the step types (workers.steps)
            return ErrorCode.ELEMENT_NOT_FOUND, message
        return ErrorCode.TIMEOUT, message
    if isinstance(exc, PlaywrightError) and "net::ERR_" in message:
        return ErrorCode.NAVIGATION_ERROR, message
    return ErrorCode.UNKNOWN, message


def cookies_for(raw: Any, site: str) -> list[dict]:
    """Playwright cookies of an account, bound to its platform's site (``workers.cookies``), never the link."""
    try:
        return cookies.bind(cookies.parse(raw), site)
    except cookies.CookieError:
        return []


@dataclass
class _Session:
    context: Any
    page: Any
    account_id: Any = None
    uses: int = 0
    saw_407: bool = False
    egress: Any = None  # every connection of this context goes through it (workers.netguard)


class BrowserHost:
    """One Playwright + one Chromium for this process; warm contexts per account."""

    def __init__(
        self,
        *,
        executable_path: str,
        args: list[str],
        pool_size: int = 8,
        step_timeout_ms: int = 10000,
        navigation_timeout_ms: int = 20000,
    ) -> None:
        self.executable_path = executable_path
        self.args = args
        self.pool_size = max(0, pool_size)
        self.step_timeout_ms = step_timeout_ms
        self.navigation_timeout_ms = navigation_timeout_ms
        self._playwright = None
        self.browser = None
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self.pid = None

    # --- lifecycle -------------------------------------------------------
    @property
    def started(self) -> bool:
        return self.browser is not None and self.pid == os.getpid()

    def start(self) -> BrowserHost:
        from playwright.sync_api import sync_playwright

        self._playwright = sync_playwright().start()
        self.browser = self._playwright.chromium.launch(
            executable_path=self.executable_path or None, args=self.args, headless=True
        )
        self.pid = os.getpid()
        logger.info("browser started pid=%s chromium=%s path=%s", self.pid, self.browser.version, self.executable_path)
        return self

    def stop(self) -> None:
        for key in list(self._sessions):
            self._close(key)
        for closer in (getattr(self.browser, "close", None), getattr(self._playwright, "stop", None)):
            if closer is None:
                continue
            try:
                closer()
            except Exception:  # shutting down: nothing else to do
                logger.debug("error while stopping the browser", exc_info=True)
        self.browser = None
        self._playwright = None

    # --- sessions (one context per account) ---------------------------------
    @staticmethod
    def session_key(payload: dict) -> str:
        account = payload.get("account") or {}
        proxy = payload.get("proxy") or {}
        material = json.dumps(
            [
                account.get("id"),
                account.get("cookies"),
                account.get("cookie_domain"),
                account.get("user_agent"),
                account.get("viewport"),
                proxy.get("server"),
                proxy.get("username"),
                proxy.get("password"),
            ],
            sort_keys=True,
            default=str,
        )
        return hashlib.sha256(material.encode()).hexdigest()

    def _new_session(self, payload: dict) -> _Session:
        account = payload.get("account") or {}
        proxy = payload.get("proxy")
        options: dict[str, Any] = {}
        if account.get("user_agent"):
            options["user_agent"] = account["user_agent"]
        viewport = account.get("viewport") or {}
        if viewport.get("width") and viewport.get("height"):
            options["viewport"] = {"width": int(viewport["width"]), "height": int(viewport["height"])}
        upstream = {k: v for k, v in (proxy or {}).items() if k in ("server", "username", "password") and v}
        egress = EgressProxy(upstream=upstream or None)
        options["proxy"] = {"server": egress.server_url}  # the task's proxy (if any) is chained behind it
        options["service_workers"] = "block"
        try:
            context = self.browser.new_context(**options)
        except BaseException:
            egress.close()
            raise
        try:
            context.set_default_timeout(self.step_timeout_ms)
            context.set_default_navigation_timeout(self.navigation_timeout_ms)
            jar = cookies_for(account.get("cookies"), account.get("cookie_domain") or "")
            if jar:
                context.add_cookies(jar)
            page = context.new_page()
        except BaseException:
            context.close()
            egress.close()
            raise
        session = _Session(context=context, page=page, account_id=account.get("id"), egress=egress)

        def on_response(response) -> None:
            if response.status == 407:
                session.saw_407 = True

        page.on("response", on_response)
        return session

    def _acquire(self, key: str, payload: dict) -> _Session:
        session = self._sessions.pop(key, None)
        if session is not None and not session.page.is_closed():
            return session
        if session is not None:
            self._close_session(session)
        return self._new_session(payload)

    def _release(self, key: str, session: _Session, *, keep: bool) -> None:
        if not keep or self.pool_size == 0:
            self._close_session(session)
            return
        # one warm session per account: drop an older one of the same account (its cookies/proxy changed)
        for other_key, other in list(self._sessions.items()):
            if other.account_id == session.account_id and other_key != key:
                self._close(other_key)
        self._sessions[key] = session
        self._sessions.move_to_end(key)
        while len(self._sessions) > self.pool_size:
            oldest, _ = next(iter(self._sessions.items()))
            self._close(oldest)

    def _close(self, key: str) -> None:
        session = self._sessions.pop(key, None)
        if session is not None:
            self._close_session(session)

    @staticmethod
    def _close_session(session: _Session) -> None:
        try:
            session.context.close()
        except Exception:  # a dead context is closed already
            logger.debug("context close failed", exc_info=True)
        if session.egress is not None:
            session.egress.close()

    def warm_sessions(self) -> int:
        return len(self._sessions)

    # --- running a payload --------------------------------------------------
    def run(self, payload: dict, *, deadline: float | None = None) -> dict:
        """Execute one payload; always returns a result message (never raises for task failures).

        ``deadline`` (``time.monotonic()``) is checked before every step and caps each step's timeout.
        A failed task's context is closed before the result is returned (and so before it is published).
        """
        started = time.monotonic()
        result: dict[str, Any] = {
            "task_id": payload.get("task_id"),
            "attempt": payload.get("attempt"),
            "lease_id": payload.get("lease_id"),
            "account_id": (payload.get("account") or {}).get("id"),
            "proxy_id": (payload.get("proxy") or {}).get("id"),
            "worker": f"{os.uname().nodename}:{os.getpid()}",
        }
        if self.started and not self.browser.is_connected():
            logger.warning("chromium disconnected: restarting it")
            self._sessions.clear()
            self.stop()
        if not self.started:
            self.start()
        key = self.session_key(payload)
        reuse = bool(payload.get("reuse_context", True))
        session = None
        step_name = "context"
        ok = False
        screenshot = None
        guard = self._guard = NetGuard()  # DNS answers are cached for this task only
        try:
            if payload.get("proxy"):  # the task's proxy follows the same address rule, checked before use
                try:
                    guard.check_host(*proxy_host_port(payload["proxy"].get("server") or ""))
                except AddressNotAllowed:
                    raise StepFailure(ErrorCode.PROXY_ERROR, "proxy address not allowed") from None
            session = self._acquire(key, payload)
            session.egress.begin_task(guard)
            session.uses += 1
            session.saw_407 = False
            data = self._already_done(session.page, payload, deadline) if payload.get("verify_first") else None
            if data is None:
                data, screenshot = self._run_steps(session.page, payload, deadline)
            ok = True
            if guard.blocked:
                data["blocked_requests"] = len(guard.blocked)
            result.update(status="completed", error_code="", error_reason="", result_data=data)
        except Exception as exc:  # every failure becomes a classified result
            if _is_time_limit(exc):
                raise
            step_name = getattr(exc, "_step", step_name)
            code, reason = classify_error(exc, step=step_name, uses_proxy=bool(payload.get("proxy")))
            if session is not None and session.saw_407 and payload.get("proxy"):
                code, reason = ErrorCode.PROXY_ERROR, f"proxy answered 407 ({reason})"
            code, reason = _guarded_classification(exc, code, reason, guard=guard, session=session, payload=payload)
            refused = code == ErrorCode.ADDRESS_NOT_ALLOWED  # nothing of a refused page comes back
            result.update(
                status="failed",
                error_code=str(code),
                error_reason=reason,
                result_data={
                    "failed_step": step_name,
                    "url": "" if refused else _page_url(session),
                    "mutated": bool(getattr(exc, "_mutated", False)),
                    "unverifiable": bool(getattr(exc, "_unverifiable", False)),
                },
            )
            screenshot = None if refused else _screenshot(session)
        finally:
            if session is not None:
                self._release(key, session, keep=ok and reuse)
        if screenshot:
            result["screenshot_b64"] = base64.b64encode(screenshot).decode()
        result["result_data"]["duration_ms"] = int((time.monotonic() - started) * 1000)
        result["finished_at"] = datetime.now(UTC).isoformat()
        return result

    def _already_done(self, page, payload: dict, deadline: float | None) -> dict | None:
        """A retry after a step that changed the page: open the link and run only the verify steps.

        The end state is there → the result (nothing clicked again); not there → None (run the steps).
        Without a verify step nothing can tell, so the task fails as unverifiable instead of repeating.
        """
        steps = payload.get("steps") or []
        verify = [s for s in steps if getattr(step_handler(s.get("action")), "verifies", False)]
        if not verify:
            failure = StepFailure(
                ErrorCode.VERIFY_FAILED, "an earlier attempt may have acted and there is no verify step to check it"
            )
            failure._step, failure._unverifiable = "verify", True
            raise failure
        goto = [s for s in steps if getattr(step_handler(s.get("action")), "navigates", False)][:1] or [
            {"action": "goto"}
        ]
        try:
            data, _ = self._run_steps(page, {**payload, "steps": goto + verify}, deadline)
        except StepFailure as exc:
            if exc.code == ErrorCode.VERIFY_FAILED:
                return None
            raise
        return {**data, "already_done": True}

    def _budget_ms(self, deadline: float | None, timeout_ms: int, step: str) -> int:
        """The step's timeout, shortened to what is left before the deadline (TIMEOUT once it has passed)."""
        if deadline is None:
            return timeout_ms
        left = int((deadline - time.monotonic()) * 1000)
        if left <= 0:
            failure = StepFailure(ErrorCode.TIMEOUT, f"task deadline reached before step {step}")
            failure._step = step
            raise failure
        return max(1, min(timeout_ms, left))

    def _run_steps(self, page, payload: dict, deadline: float | None = None) -> tuple[dict, bytes | None]:
        values = {
            "link": payload["link"],
            "content": payload.get("content", ""),
            "account": (payload.get("account") or {}).get("label", ""),
            "action": payload.get("action_type", ""),
        }
        login = payload.get("login_check") or {}
        guard = getattr(self, "_guard", None) or NetGuard()
        screenshot = None
        done = 0
        changed = False  # a step that may change the site started: never repeat blindly
        for index, step in enumerate(payload.get("steps") or []):
            action = step["action"]
            ctx = StepContext(
                values=values,
                timeout_ms=0,
                budget=lambda ms, action=action: self._budget_ms(deadline, ms, action),
                navigation_timeout_ms=self.navigation_timeout_ms,
                guard=guard,
                check_logged_in=lambda page: self._check_logged_in(page, login),
                label=action,
            )
            try:
                handler = step_handler(action)
                if handler is None:
                    raise StepFailure(ErrorCode.INVALID_PAYLOAD, f"unknown step {action!r}")
                ctx.timeout_ms = self._budget_ms(deadline, step.get("timeout_ms") or self.step_timeout_ms, action)
                changed = changed or handler.mutates
                handler.run(page, step, ctx)
            except Exception as exc:
                exc._step = getattr(exc, "_step", ctx.label)  # the classifier needs to know what was being done
                exc._index = index
                exc._mutated = changed
                raise
            if ctx.screenshot is not None:
                screenshot = ctx.screenshot
            done += 1
        self._check_logged_in(page, login, marker=False)
        return {"url": page.url, "steps": done, "action": payload.get("action_type", "")}, screenshot

    def _check_logged_in(self, page, login: dict, *, marker: bool = True) -> None:
        url = page.url
        for pattern in login.get("login_url_patterns") or []:
            if pattern and pattern in url:
                raise StepFailure(ErrorCode.COOKIE_EXPIRED, f"redirected to a login page ({pattern})")
        selector = login.get("logged_in_selector")
        if marker and selector:
            from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

            try:
                page.locator(selector).first.wait_for(state="attached", timeout=min(self.step_timeout_ms, 5000))
            except PlaywrightTimeoutError:
                raise StepFailure(ErrorCode.COOKIE_EXPIRED, "logged-in marker missing") from None


def _guarded_classification(exc, code: str, reason: str, *, guard: NetGuard, session, payload: dict):
    """Refused addresses win over what Chromium reported; failures of the task's proxy stay PROXY_ERROR."""
    from playwright.sync_api import Error as PlaywrightError

    if isinstance(exc, AddressNotAllowed):
        return ErrorCode.ADDRESS_NOT_ALLOWED, NEUTRAL_REASON
    if guard.blocked and isinstance(exc, PlaywrightError) and "net::ERR_" in str(exc):
        return ErrorCode.ADDRESS_NOT_ALLOWED, NEUTRAL_REASON  # the navigation itself was refused
    url = _page_url(session)
    if guard.blocked and url.startswith(("http:", "https:")):
        try:
            guard.check_url(url)
        except AddressNotAllowed:
            return ErrorCode.ADDRESS_NOT_ALLOWED, NEUTRAL_REASON
    upstream_error = getattr(getattr(session, "egress", None), "upstream_error", "")
    if upstream_error and payload.get("proxy"):
        return ErrorCode.PROXY_ERROR, upstream_error
    if code == ErrorCode.PROXY_ERROR and not payload.get("proxy") and not isinstance(exc, StepFailure):
        return ErrorCode.NAVIGATION_ERROR, reason  # the worker's own egress proxy, not a task proxy
    return code, reason


def _is_time_limit(exc: BaseException) -> bool:
    """Celery's soft time limit is an Exception: it must end the task, not become a classified result."""
    try:
        from celery.exceptions import SoftTimeLimitExceeded
    except ImportError:  # pragma: no cover - celery is a dependency
        return False
    return isinstance(exc, SoftTimeLimitExceeded)


def _page_url(session: _Session | None) -> str:
    try:
        return session.page.url if session is not None else ""
    except Exception:
        return ""


def _screenshot(session: _Session | None) -> bytes | None:
    if session is None:
        return None
    try:
        return session.page.screenshot(type="png", timeout=3000)
    except Exception:  # a page that cannot be captured has nothing to show
        return None
