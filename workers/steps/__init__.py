"""Declarative browser steps: the registry of step types (``base``), the built-in types (``builtin``)
and the server-side checks (``validation``). A step is a small dict such as
``{"action": "click", "selector": "#like"}``; see ``builtin`` for the shipped types and
docs/browser-tasks.md ("Adding a browser step")."""

from workers.steps.base import (
    StepContext,
    StepFailure,
    StepHandler,
    element_labels,
    register_step,
    render,
    step_choices,
    step_handler,
    step_names,
)
from workers.steps.builtin import register_builtin_steps
from workers.steps.validation import MAX_STEPS, check_goto_urls, check_links, validate_login_check, validate_steps

__all__ = [
    "MAX_STEPS",
    "StepContext",
    "StepFailure",
    "StepHandler",
    "check_goto_urls",
    "check_links",
    "element_labels",
    "register_builtin_steps",
    "register_step",
    "render",
    "step_choices",
    "step_handler",
    "step_names",
    "validate_login_check",
    "validate_steps",
]
