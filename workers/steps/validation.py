"""Server-side checks of a step list, the logged-in check and the URLs a worker may open."""

from typing import Any

from workers import netguard
from workers.errors import AddressNotAllowedError, InvalidSteps
from workers.steps.base import TEXT_KEYS, has_placeholder, known_keys, placeholders_to, render, step_handler, step_names

MAX_STEPS = 30


def validate_steps(steps: Any) -> list[dict]:
    """Normalise a step list or raise ``InvalidSteps`` with per-step details."""
    if not isinstance(steps, list) or not steps:
        raise InvalidSteps(details={"steps": ["فهرستی از گام‌ها لازم است."]})
    if len(steps) > MAX_STEPS:
        raise InvalidSteps(details={"steps": [f"حداکثر {MAX_STEPS} گام مجاز است."]})
    problems: dict[str, list[str]] = {}
    clean: list[dict] = []
    for index, step in enumerate(steps):
        key = f"steps[{index}]"
        if not isinstance(step, dict):
            problems[key] = ["هر گام باید یک شیء باشد."]
            continue
        handler = step_handler(step.get("action"))
        if handler is None:
            problems[key] = [f"action باید یکی از {step_names()} باشد."]
            continue
        allowed = known_keys()
        unknown = set(step) - allowed
        if unknown:
            problems[key] = [f"کلیدهای ناشناخته: {sorted(unknown)}"]
            continue
        found = [f"{field} باید متن باشد." for field in TEXT_KEYS if field in step and not isinstance(step[field], str)]
        if "timeout_ms" in step and (not isinstance(step["timeout_ms"], int) or not 0 < step["timeout_ms"] <= 120000):
            found.append("timeout_ms باید عددی بین ۱ و ۱۲۰۰۰۰ باشد.")
        if not found:
            found = handler.validate(step)
        if found:
            problems[key] = found
        else:
            clean.append({k: v for k, v in step.items() if k in allowed})
    if problems:
        raise InvalidSteps(details=problems)
    return clean


def validate_login_check(value: Any) -> dict:
    """{"login_url_patterns": [str], "logged_in_selector": str}; both optional."""
    if value in (None, ""):
        return {}
    if not isinstance(value, dict):
        raise InvalidSteps(details={"login_check": ["باید یک شیء باشد."]})
    patterns = value.get("login_url_patterns", [])
    selector = value.get("logged_in_selector", "")
    if not isinstance(patterns, list) or not all(isinstance(p, str) and p for p in patterns):
        raise InvalidSteps(details={"login_check": ["login_url_patterns باید فهرستی از متن باشد."]})
    if not isinstance(selector, str):
        raise InvalidSteps(details={"login_check": ["logged_in_selector باید متن باشد."]})
    return {"login_url_patterns": patterns, "logged_in_selector": selector}


def _template_host_is_literal(template: str) -> bool:
    rest = template.split("://", 1)[1] if "://" in template else ""
    return bool(rest) and "{" not in rest.split("/", 1)[0].split("?", 1)[0]


def check_links(links: list[str], *, field: str = "target_links", guard: netguard.NetGuard | None = None) -> None:
    """Every link must be an http(s) URL whose host resolves to public addresses only (or is allow-listed)."""
    guard = guard or netguard.NetGuard()
    problems: dict[str, list[str]] = {}
    for index, link in enumerate(links):
        try:
            guard.check_url(link)
        except netguard.AddressNotAllowed as exc:
            problems[f"{field}[{index}]"] = [exc.message]
    if problems:
        raise AddressNotAllowedError(details=problems)


def check_goto_urls(
    steps: list[dict], *, links: list[str] | None = None, values: dict | None = None, guard=None
) -> None:
    """URLs of the navigating steps (``goto``): literal ones fully; templates rendered with each link (when known)."""
    guard = guard or netguard.NetGuard()
    problems: dict[str, list[str]] = {}
    for index, step in enumerate(steps):
        handler = step_handler(step.get("action"))
        if handler is None or not handler.navigates or not step.get("url"):
            continue  # the default url is the link, checked on its own
        template = step["url"]
        candidates: list[tuple[str, bool]] = []
        if not has_placeholder(template):
            candidates.append((template, True))
        elif links and template.startswith("{link}"):
            candidates += [(render(template, {**(values or {}), "link": link}), True) for link in links]
        elif not template.startswith("{"):
            sample = placeholders_to(template, "x")
            candidates.append((sample, _template_host_is_literal(template)))
        for url, resolve in candidates:
            try:
                if resolve:
                    guard.check_url(url)
                else:
                    netguard.url_host_port(url)  # scheme only: the host is known after rendering (worker)
            except netguard.AddressNotAllowed as exc:
                problems[f"steps[{index}]"] = [f"url: {exc.message}"]
                break
    if problems:
        raise AddressNotAllowedError(details=problems)
