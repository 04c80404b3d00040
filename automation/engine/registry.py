"""Registries the engine looks things up in (``campaigns.platform.registry.Registry``; channels register into them in
AppConfig.ready)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from campaigns.platform.registry import Registry

if TYPE_CHECKING:
    from automation.engine.context import StepContext

# --- actions -----------------------------------------------------------------------------------


class ResultStatus:
    SUCCESS = "success"
    FAILED = "failed"  # retryable when ActionResult.retryable
    REJECTED = "rejected"  # not retryable
    SKIPPED = "skipped"
    BLOCKED = "blocked"
    DEFERRED = "deferred"
    UNAVAILABLE = "unavailable"  # channel unusable: no retry consumed
    UNKNOWN = "unknown"  # outcome unknown (never resent)


@dataclass
class ActionResult:
    status: str
    retryable: bool = False
    until: datetime | None = None
    message: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    # DEFERRED to learn what became of a send (it keeps its unit): the step comes back to settle it without
    # budget and whatever the send window says — asking the provider sends nothing.
    settling: bool = False


class Action:
    """Base class of an action plug-in (``execute`` runs outside any transaction)."""

    key: str = ""
    label: str = ""
    consumes_budget: bool = False
    channel: str = ""
    guards: tuple[str, ...] = ()
    config_schema: dict[str, Any] = {}
    # The builder's step editor for this action (a template partial the channel ships; "" = a generic editor).
    editor_template: str = ""
    # The role permission that shows what a send was (text, number, line, provider id, errors) on timelines;
    # without it a timeline shows only the send's status ("" = whoever sees the timeline).
    details_permission: str = ""

    def preview(self, config: dict[str, Any], subject: Any) -> dict[str, Any] | None:
        """What the builder shows for a sample subject (rendered text, counters); None = no preview."""
        return None

    def validate_config(self, config: dict[str, Any]) -> list[str]:
        return []

    @staticmethod
    def required_text_errors(value: Any, *, label: str, limit: int) -> list[str]:
        """``validate_config``'s check of a text the action needs (a message's body, a follow-up's title):
        given, not blank, at most ``limit`` characters."""
        if not isinstance(value, str) or not value.strip():
            return [f"{label} لازم است."]
        if len(value) > limit:
            return [f"{label} حداکثر {limit} نویسه است."]
        return []

    def template_texts(self, config: dict[str, Any]) -> list[str]:
        """Texts that may hold ``{variables}`` (checked at publish)."""
        return []

    def pending_outcome(self, ctx) -> bool:
        """This step has a send whose outcome is not known yet (asked only when the step came back to settle)."""
        return False

    def channel_problem(self, workspace) -> str | None:
        """Why this action's channel cannot be used now in this workspace (None = usable)."""
        return None

    def channel_paused(self, workspace, now) -> dict[str, Any] | None:
        """The channel's circuit breaker while it holds every send: ``{"until": datetime, "reason": str}``
        (health banner of the campaign pages); None = not paused."""
        return None

    def frequency_cap_on(self, workspace) -> bool:
        """The channel holds this workspace's sends by a frequency cap across campaigns (a rule is on): a
        campaign's priority in it (``journey_settings.frequency_cap_priority``) then matters and is said."""
        return False

    def reported_failures(self, execution_ids: list[int]) -> set[tuple[int, int | None]]:
        """(execution id, node id) of the sends whose final result, as the channel learned it after the step
        (a delivery report), is a failure: the step's own result event still says what it saw then."""
        return set()

    def pending_reports(self, execution_ids: list[int]) -> int:
        """How many of these executions' sends the channel accepted and still awaits a delivery report for."""
        return 0

    def execute(self, ctx: StepContext) -> ActionResult:  # pragma: no cover - interface
        raise NotImplementedError

    def execute_many(self, ctxs: list[StepContext]) -> list[ActionResult]:
        """Several executions' steps at once (a batched job); override to share round trips."""
        return [self.execute(ctx) for ctx in ctxs]


ACTIONS: Registry[Action] = Registry("actions")


# --- guards ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GuardDecision:
    kind: str  # allow | block | defer | skip
    until: datetime | None = None
    reason: str = ""
    event: str = ""

    @classmethod
    def allow(cls) -> GuardDecision:
        return _ALLOW


_ALLOW = GuardDecision("allow")  # frozen: one shared instance
GuardFn = Callable[["StepContext"], GuardDecision]
GUARDS: Registry[GuardFn] = Registry("guards")

# --- condition operators, variables, retry strategies ------------------------------------------

OperatorFn = Callable[[Any, Any], bool]
OPERATORS: Registry[OperatorFn] = Registry("operators")


@dataclass(frozen=True)
class Variable:
    key: str
    label: str
    resolve: Callable[[StepContext], Any]
    aliases: tuple[str, ...] = ()


VARIABLES: Registry[Variable] = Registry("variables")


@dataclass(frozen=True)
class Fact:
    """Something a channel knows about a running execution's subject, read by conditions (a rule's ``field``),
    by a wait that ends early and by a campaign's "stop when" setting (journeys.md "Facts").

    ``resolve`` gets the run context (``execution``, ``subject``, ``campaign``, ``workspace``, ``now``,
    ``cache``) and must answer from the database alone. ``kind`` is ``bool`` or ``text`` (it decides the
    operators a rule may use). A ``bool`` fact with ``ends_wait`` may end a wait early (the channel wakes the
    waiting executions through ``automation.services.executions.executions_wake``); one with ``stop_label``
    is offered as a campaign's stop setting (``stop_when_facts``)."""

    key: str
    label: str
    resolve: Callable[[Any], Any]
    kind: str = "bool"
    ends_wait: bool = False
    stop_label: str = ""
    help: str = ""


FACTS: Registry[Fact] = Registry("facts")
BOOL_OPERATORS = ("is_true", "is_false")
TEXT_OPERATORS = ("has_word", "contains", "eq", "neq", "is_empty", "is_not_empty")


def fact_operators(fact: Fact) -> tuple[str, ...]:
    """The operators a rule on this fact may use."""
    return BOOL_OPERATORS if fact.kind == "bool" else TEXT_OPERATORS


class RetryStrategy:
    key = ""
    label = ""

    def delay_seconds(self, retry_number: int, config: dict[str, Any]) -> int:  # pragma: no cover
        raise NotImplementedError


RETRY_STRATEGIES: Registry[RetryStrategy] = Registry("retry_strategies")


# --- built-in workflow templates ----------------------------------------------------------------


@dataclass(frozen=True)
class WorkflowTemplateSpec:
    """A ready-made graph offered when a workflow is created; registered by the channel whose actions it uses."""

    key: str
    name: str
    description: str
    definition: dict[str, Any]
    order: int = 100


WORKFLOW_TEMPLATES: Registry[WorkflowTemplateSpec] = Registry("workflow_templates")


def register_workflow_template(
    key: str, *, name: str, description: str, definition: dict[str, Any], order: int = 100
) -> WorkflowTemplateSpec:
    """Offer a built-in template (the workflow pages, the catalog API and ``workflow_create`` read this)."""
    return WORKFLOW_TEMPLATES.register(key, WorkflowTemplateSpec(key, name, description, definition, order))


def workflow_templates_in_order() -> list[WorkflowTemplateSpec]:
    return WORKFLOW_TEMPLATES.in_order()
