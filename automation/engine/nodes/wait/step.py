"""The builder's wait step: a duration or a moment (typed as a Jalali date in the workspace's zone)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from automation.choices import NodeType, Port
from automation.engine.nodes.step import UNIT_LABELS, UNITS, SequenceError, Step, form_int, form_text
from campaigns.platform.jalali import fa_digits, naive_to_jalali, parse_jalali

DEFAULT_WAIT = (1, "days")


def wait_end_facts() -> list[tuple[str, str]]:
    """(key, label) of the facts that may end a wait early (``Fact.ends_wait``): the editor's choice."""
    from automation.engine.registry import FACTS

    return [(key, fact.label) for key, fact in FACTS if fact.kind == "bool" and fact.ends_wait]


def _end_early_label(config: Mapping) -> str:
    from automation.engine.registry import FACTS

    fact = FACTS.get(str(config.get("until_fact") or ""))
    return f"؛ زودتر با {fact.label}" if fact is not None else ""


def _timed(step: Step) -> tuple[int, str] | None:
    config = step.config if isinstance(step, Wait) else None
    if config and config.get("mode") == "duration":
        amount, unit = config.get("amount"), config.get("unit")
        if isinstance(amount, int) and amount > 0 and unit in UNIT_LABELS:
            return amount, unit
    return None


def journey_wait(sequence: Any, at: tuple | None) -> tuple[int, str]:
    """The duration a new Wait starts with: the journey's own cadence — the nearest timed wait above the place
    (in its list, then in the lists that hold it), else the journey's first one (a workflow made from a template
    keeps the template's waits) — and one day only in a journey without any. ``sequence``: a
    ``WorkflowSequence`` (None: one day)."""
    if sequence is None:
        return DEFAULT_WAIT
    path = at
    while path:
        try:
            steps, index = sequence._list_at(path)
        except SequenceError:
            break
        for step in reversed(steps[: max(index, 0)]):
            if found := _timed(step):
                return found
        path = tuple(path[:-2])  # the step that holds this list (its place in the list above)
    for _, step in sequence.walk():
        if found := _timed(step):
            return found
    return DEFAULT_WAIT


@dataclass(frozen=True, kw_only=True)
class Wait(Step):
    """A timed wait: ``{"mode": "duration", "amount", "unit"}`` or ``{"mode": "until", "at", "timezone"}``."""

    subtype: str = "duration"

    node_type: ClassVar[str] = NodeType.WAIT
    kind: ClassVar[str] = "wait"
    label: ClassVar[str] = "انتظار"
    menu_label: ClassVar[str] = "انتظار"
    menu_order: ClassVar[int] = 10
    editor_template: ClassVar[str] = "automation/_editor_wait.html"

    @classmethod
    def duration(cls, key: str, amount: int, unit: str = "days", *, name: str = "") -> Wait:
        return cls(key=key, name=name, subtype="duration", config={"mode": "duration", "amount": amount, "unit": unit})

    @classmethod
    def until(cls, key: str, at: str, timezone: str = "Asia/Tehran", *, name: str = "") -> Wait:
        return cls(key=key, name=name, subtype="until", config={"mode": "until", "at": at, "timezone": timezone})

    @classmethod
    def new(cls, key: str) -> Wait:
        return cls.duration(key, 1, "days", name="انتظار")

    @classmethod
    def new_at(cls, key: str, *, sequence: Any = None, at: tuple | None = None) -> Wait:
        amount, unit = journey_wait(sequence, at)
        return cls.duration(key, amount, unit, name="انتظار")

    @classmethod
    def read(cls, node, common, ports, read_list):
        return cls(subtype=node.subtype, **common), ports.get(Port.DEFAULT)

    def summary(self) -> str:
        cfg = self.config
        if cfg.get("mode", self.subtype) == "until":
            return f"تا {fa_digits(naive_to_jalali(cfg.get('at'))) or '؟'}{_end_early_label(cfg)}"
        amount = fa_digits(cfg.get("amount")) or "؟"
        return f"{amount} {UNIT_LABELS.get(cfg.get('unit', 'days'), '')}{_end_early_label(cfg)}"

    @staticmethod
    def describe(node, config) -> list[tuple[str, str]]:
        early = (
            [("پایان زودتر", _end_early_label(config).removeprefix("؛ زودتر با "))] if config.get("until_fact") else []
        )
        if config.get("mode", node.subtype) == "until":
            return [("انتظار تا", fa_digits(naive_to_jalali(config.get("at", "")))), *early]
        unit = config.get("unit", "days")
        return [("انتظار", f"{fa_digits(config.get('amount'))} {dict(UNITS).get(unit, unit)}"), *early]

    def from_form(self, data: Mapping, *, name: str, enabled: bool, timezone: str) -> Wait:
        mode = form_text(data, "mode", self.config.get("mode", "duration"))
        if mode == "until":
            # Typed as a Jalali date and time in the workspace's zone, stored as its ISO local time; text that
            # is not a date stays as typed, and the validator names the step ("INVALID_WAIT").
            at = form_text(data, "at").strip()
            try:
                moment = parse_jalali(at)
            except ValueError:
                moment = None
            at = moment.isoformat(timespec="minutes") if moment else at
            config = {"mode": "until", "at": at, "timezone": timezone}
        else:
            mode = "duration"
            config = {
                "mode": "duration",
                "amount": form_int(data.get("amount")),
                "unit": form_text(data, "unit", "days"),
            }
        until_fact = form_text(data, "until_fact").strip()
        if until_fact:
            config["until_fact"] = until_fact
        return replace(self, name=name, enabled=enabled, subtype=mode, config=config)
