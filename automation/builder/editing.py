"""The builder page over a ``WorkflowSequence``: step cards, add-step places and editor forms → steps.

Pure functions (no database): the views decompile the draft, change it here and save the compiled
graph through ``automation.services.workflows.workflow_graph_save`` — the same service as the API.
Forms are lenient on purpose: a draft saves incomplete and the validator says what is missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from automation.builder.sequence import (
    End,
    Send,
    Step,
    StepPath,
    StepProblem,
    WorkflowSequence,
    format_path,
    new_step_key,
)
from automation.choices import port_label
from automation.engine.nodes import builder_steps, step_display_name, step_type_label
from automation.engine.nodes.action.step import ON_EXHAUSTED, STRATEGIES
from automation.engine.nodes.condition.step import condition_facts, condition_fields, operators
from automation.engine.nodes.end.step import END_BEHAVIORS
from automation.engine.nodes.step import UNITS, form_int, form_text
from automation.engine.nodes.wait.step import journey_wait, wait_end_facts
from automation.engine.registry import ACTIONS, Action
from campaigns.platform.jalali import fa_digits

__all__ = [
    "END_BEHAVIORS",
    "ON_EXHAUSTED",
    "STRATEGIES",
    "UNITS",
    "condition_facts",
    "condition_fields",
    "journey_wait",
    "operators",
    "wait_end_facts",
]


def _menu_steps() -> list[type[Step]]:
    return sorted((s for s in builder_steps() if s.menu_label), key=lambda s: (s.menu_order, s.node_type))


def step_kinds() -> list[tuple[str, str, bool]]:
    """The add-step menu: every registered action, then every other step type that offers itself
    (wait, condition, end); the flag says the kind may only close a list (an end)."""
    actions = [(key, action.label or key, False) for key, action in ACTIONS]
    return [*actions, *((s.kind, s.menu_label, s.menu_at_end_only) for s in _menu_steps())]


def new_step(kind: str, *, sequence: WorkflowSequence | None = None, at: StepPath | None = None) -> Step:
    """A fresh step for the add-step menu at ``at`` of ``sequence`` (incomplete on purpose: the editor opens
    next); a step type may read the journey around the place (a new wait takes the journey's own wait)."""
    key = new_step_key()
    for step_type in _menu_steps():
        if step_type.kind == kind:
            return step_type.new_at(key, sequence=sequence, at=at)
    action = ACTIONS.get(kind)
    if action is None:
        raise ValueError(f"unknown step kind {kind!r}")
    return Send.for_action(key, kind, action)


# --- cards ---------------------------------------------------------------------------------------


@dataclass
class Branch:
    name: str
    label: str
    cards: list[Card]
    add_at: str  # insertion path of the branch's first place
    can_end: bool  # an end may be added at the head (the list is empty)
    is_open: bool  # the list does not end in an end or a condition


@dataclass
class Card:
    step: Step
    path: str
    kind: str  # the step type's ``kind``: action | wait | condition | end
    title: str
    summary: str
    action: Action | None = None
    problems: list[str] = field(default_factory=list)
    branches: list[Branch] = field(default_factory=list)
    add_after: str | None = None  # insertion path below this step; None after an end or a condition
    can_end_after: bool = False

    @property
    def anchor(self) -> str:
        return f"step-{self.path}"

    @property
    def badge(self) -> str:
        return self.step.badge()

    @property
    def editor_template(self) -> str:
        return self.step.editor()

    @property
    def rule_rows(self) -> list[tuple[str, str, str]]:
        return self.step.rule_rows

    @property
    def retry_view(self) -> dict[str, Any]:
        return self.step.retry_view


@dataclass(frozen=True)
class ProblemRow:
    """A validation problem as the panel lists it: which step (by title and kind), and what is wrong."""

    anchor: str
    step: str
    message: str


def problem_rows(sequence: WorkflowSequence, problems: list[StepProblem]) -> list[ProblemRow]:
    titles = {step.key: (step.card_title(), step.kind_label()) for _, step in sequence.walk()}
    rows = []
    for p in problems:
        if p.path == ():
            step = "شروع"
        elif p.node_key in titles:
            title, kind = titles[p.node_key]
            step = f"«{title}»" if title == kind else f"«{title}» ({kind})"
        else:
            step = ""
        rows.append(ProblemRow(anchor=p.anchor, step=step, message=p.message))
    return rows


@dataclass(frozen=True)
class GraphRow:
    """One node of a graph the list cannot draw, for the read-only table (no internal keys)."""

    number: int
    title: str
    kind: str
    links: list[str]
    is_problem: bool


def graph_rows(graph, problem_key: str | None = None) -> list[GraphRow]:
    """The read-only table of a graph the step list cannot draw: steps numbered in the graph's order, each
    named by its title and kind, its connections as «port → the step it leads to»."""
    names = {n.node_key: step_display_name(n.type, n.subtype, n.name) for n in graph.nodes}
    numbers = {n.node_key: i for i, n in enumerate(graph.nodes, start=1)}
    rows = []
    for node in graph.nodes:
        links = [
            f"{port_label(e.port)} ← {fa_digits(numbers[e.to_key])}. {names[e.to_key]}"
            if e.to_key in names
            else f"{port_label(e.port)} ← (گام ناموجود)"
            for e in graph.edges
            if e.from_key == node.node_key
        ]
        rows.append(
            GraphRow(
                number=numbers[node.node_key],
                title=names[node.node_key],
                kind=step_type_label(node.type, node.subtype),
                links=links,
                is_problem=problem_key == node.node_key,
            )
        )
    return rows


BRANCH_LABELS = {"yes": "اگر بله", "no": "اگر نه", "failure": "اگر ناموفق ماند"}


def step_cards(sequence: WorkflowSequence, problems: list[StepProblem]) -> list[Card]:
    by_path: dict[str, list[str]] = {}
    for problem in problems:
        by_path.setdefault(problem.anchor, []).append(problem.message)

    def cards(steps: tuple[Step, ...], prefix: StepPath) -> list[Card]:
        out = []
        for index, step in enumerate(steps):
            path = (*prefix, index)
            card = Card(
                step=step,
                path=format_path(path),
                kind=step.kind,
                title=step.card_title(),
                summary=step.summary(),
                action=step.registered_action if isinstance(step, Send) else None,
                problems=by_path.get(format_path(path), []),
            )
            if not step.terminates:
                card.add_after = format_path((*prefix, index + 1))
                card.can_end_after = index == len(steps) - 1
            for name, sub in step.drawn_branches().items():
                card.branches.append(
                    Branch(
                        name=name,
                        label=BRANCH_LABELS.get(name, name),
                        cards=cards(sub, (*path, name)),
                        add_at=format_path((*path, name, 0)),
                        can_end=not sub,
                        is_open=not sub or not sub[-1].terminates,
                    )
                )
            out.append(card)
        return out

    return cards(sequence.steps, ())


def main_list_open(sequence: WorkflowSequence) -> bool:
    return not sequence.steps or not sequence.steps[-1].terminates


# --- editor forms → steps ------------------------------------------------------------------------


def step_from_form(step: Step, data: Mapping, *, timezone: str = "Asia/Tehran") -> Step:
    """The edited step (same key and branches) from an editor form's fields (the step type reads its own)."""
    name = form_text(data, "name", step.name).strip()[:200]
    enabled = "enabled" in data if "enabled_present" in data else step.enabled
    return step.from_form(data, name=name, enabled=enabled, timezone=timezone)


def loop_targets(sequence: WorkflowSequence) -> list[tuple[str, str]]:
    """Steps an end may loop back to (any step but an end)."""
    return [(step.key, step.name or step.key) for _, step in sequence.walk() if not isinstance(step, End)]


# --- journey-wide send window (Saturday → Friday) ----------------------------------------------------
WINDOW_DAYS = [
    ("sat", "شنبه"),
    ("sun", "یکشنبه"),
    ("mon", "دوشنبه"),
    ("tue", "سه‌شنبه"),
    ("wed", "چهارشنبه"),
    ("thu", "پنجشنبه"),
    ("fri", "جمعه"),
]
_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")


def window_rows(settings: Mapping[str, Any] | None) -> list[dict[str, str]]:
    """One row per weekday, Saturday first: ``intervals`` as ``09:00-12:00, 14:00-18:00`` ("" = closed)."""
    window = (settings or {}).get("send_window") or {}
    days = window.get("days", window) if isinstance(window, dict) else {}
    rows = []
    for key, label in WINDOW_DAYS:
        intervals = days.get(key) or [] if isinstance(days, dict) else []
        text = ", ".join(f"{i[0]}-{i[1]}" for i in intervals if isinstance(i, list | tuple) and len(i) == 2)
        rows.append({"key": key, "label": label, "intervals": text})
    return rows


def window_from_form(data: Mapping[str, Any], *, timezone: str) -> dict[str, Any] | None:
    """The window config of the editor form (``day_<key>`` = ``HH:MM-HH:MM`` intervals, comma separated);
    ``None`` when the form asks for no journey window. Times are checked by the service (window_for_save)."""
    if data.get("window_enabled") != "on":
        return None
    days: dict[str, list[list[str]] | None] = {}
    for key, _label in WINDOW_DAYS:
        text = str(data.get(f"day_{key}", "")).translate(_DIGITS).replace("،", ",")
        intervals = []
        for part in filter(None, (p.strip() for p in text.split(","))):
            start, sep, end = part.partition("-")
            if not sep:
                raise ValueError(f"{key}: an interval is start-end")
            intervals.append([start.strip(), end.strip()])
        days[key] = intervals or None
    return {"timezone": timezone, "days": days}


# --- workflow-wide defaults (the builder's settings card) -----------------------------------------------------


def defaults_view(settings: Mapping[str, Any] | None) -> dict[str, Any]:
    """The defaults card's values: ``daily_limit``, ``retry`` (a ``retry_view``-like dict or None), ``unknown``."""
    settings = settings or {}
    retry = settings.get("retry") if isinstance(settings.get("retry"), dict) else None
    seconds = (retry or {}).get("interval_seconds")
    return {
        "daily_limit": settings.get("daily_limit"),
        "retry": None
        if retry is None
        else {
            "enabled": retry.get("enabled", True),
            "strategy": retry.get("strategy", "fixed"),
            "max_attempts": retry.get("max_attempts", 3),
            "minutes": seconds // 60 if isinstance(seconds, int) else 15,
            "on_exhausted": retry.get("on_exhausted", "fail"),
        },
        "unknown": settings.get("on_unknown_outcome") or "",
    }


def defaults_from_form(data: Mapping[str, Any]) -> dict[str, Any]:
    """The service's keyword arguments from the defaults card (``workflow_defaults_save``); a number that does not
    parse is passed on as it was typed, so the service names the field."""
    limit_text = str(data.get("default_daily_limit") or "").strip()
    daily_limit = form_int(limit_text) if limit_text else None
    retry = None
    if data.get("default_retry") == "on":
        minutes = form_int(data.get("default_retry_interval_minutes"))
        retry = {
            "enabled": True,
            "strategy": form_text(data, "default_retry_strategy", "fixed"),
            "max_attempts": form_int(data.get("default_retry_max_attempts")),
            "interval_seconds": minutes * 60 if minutes is not None else None,
            "on_exhausted": form_text(data, "default_retry_on_exhausted", "fail"),
        }
    unknown = form_text(data, "default_on_unknown_outcome") or None
    return {
        "daily_limit": daily_limit if daily_limit is not None or not limit_text else limit_text,
        "retry": retry,
        "on_unknown_outcome": unknown,
    }
