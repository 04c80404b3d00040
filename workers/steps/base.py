"""The step registry: one handler per step type, used by validation at creation and by the runner.

A handler is a ``StepHandler`` subclass with a ``name`` (the ``action`` of a step dict), the extra keys
it accepts, ``validate(config)`` (problems of one step, on the server) and ``run(page, config, ctx)``
(in the browser worker). ``register_step`` adds it; the API schema, the choices and the runner read
the registry, so a new step type is one handler plus one registration (``workers/steps/builtin.py``).
No ORM here: the runner imports this module.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from campaigns.platform.registry import Registry

_PLACEHOLDER = re.compile(r"\{(\w+)\}")

COMMON_KEYS = frozenset({"action", "timeout_ms"})
TEXT_KEYS = ("selector", "text", "url")  # string-valued keys (when a step type accepts them)


def render(template: str, values: dict[str, str]) -> str:
    """Replace ``{name}`` with known values only (no attribute access, unknown names kept as written)."""
    return _PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), m.group(0))), template or "")


def has_placeholder(template: str) -> bool:
    return _PLACEHOLDER.search(template) is not None


def placeholders_to(template: str, replacement: str) -> str:
    return _PLACEHOLDER.sub(replacement, template)


class StepFailure(Exception):
    """A failure the runner classified itself (login wall, verification, missing element)."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass
class StepContext:
    """What a running step may use besides the page (built by ``workers.runner.BrowserHost``)."""

    values: dict[str, str]  # {link}, {content}, {account}, {action}
    timeout_ms: int  # this step's timeout, already shortened to the task's deadline
    budget: Callable[[int], int]  # another timeout (e.g. navigation) shortened to the deadline
    navigation_timeout_ms: int
    guard: Any  # workers.netguard.NetGuard of this task
    check_logged_in: Callable[[Any], None]  # raises StepFailure(COOKIE_EXPIRED) on a login wall
    label: str = ""  # what the error classifier and ``failed_step`` see; a handler may narrow it
    screenshot: bytes | None = None  # set by a step that captures the page
    extra: dict[str, Any] = field(default_factory=dict)


class StepHandler:
    """One step type. Subclass, set the class attributes, implement ``run`` (and ``validate``)."""

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""  # Persian, shown in choices
    order: ClassVar[int] = 100  # place in choices and lists
    keys: ClassVar[frozenset[str]] = frozenset()  # keys it reads besides "action" and "timeout_ms"
    mutates: ClassVar[bool] = False  # may change the site (a retry first verifies instead of repeating)
    verifies: ClassVar[bool] = False  # checks the end state (run alone by a verify-first retry)
    navigates: ClassVar[bool] = False  # opens a URL (checked against the address rule at creation)
    element_labels: ClassVar[tuple[str, ...]] = ()  # labels under which a timeout means "element not found"

    def validate(self, config: dict) -> list[str]:
        """Problems of one step beyond the common checks (known keys, text types, timeout range)."""
        return []

    def run(self, page: Any, config: dict, ctx: StepContext) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


STEPS: Registry[StepHandler] = Registry("browser_steps")


def register_step(handler: StepHandler) -> StepHandler:
    """From an ``AppConfig.ready()``: a step type under its ``name``."""
    return STEPS.register(handler.name, handler)


def step_handler(name: str) -> StepHandler | None:
    return STEPS.get(name)


def step_names() -> list[str]:
    return [handler.name for handler in STEPS.in_order()]


def step_choices() -> list[tuple[str, str]]:
    return [(handler.name, handler.label or handler.name) for handler in STEPS.in_order()]


def known_keys() -> frozenset[str]:
    """Keys a step dict may carry: the common ones and every registered type's (others are refused)."""
    return COMMON_KEYS.union(*(handler.keys for handler in STEPS.values()))


def element_labels() -> frozenset[str]:
    return frozenset(label for handler in STEPS.values() for label in handler.element_labels)
