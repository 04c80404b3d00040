"""The builder's condition: a rule tree that closes its list; ``yes`` and ``no`` are lists of their own."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from automation.choices import NodeType, Port
from automation.engine.nodes.step import JSON, Step, as_steps, form_int, form_text

OPERATOR_LABELS = {
    "eq": "برابر با",
    "neq": "نابرابر با",
    "in": "یکی از",
    "not_in": "هیچ‌کدام از",
    "contains": "شامل",
    "gt": "بزرگ‌تر از",
    "gte": "بزرگ‌تر یا برابر",
    "lt": "کوچک‌تر از",
    "lte": "کوچک‌تر یا برابر",
    "is_empty": "خالی",
    "is_not_empty": "خالی نیست",
    "is_true": "بله است",
    "is_false": "نه است",
    "has_word": "شامل یکی از کلمه‌ها",
}
FIELD_LABELS = {
    "target.status": "وضعیت مخاطب",
    "target.city": "شهر",
    "target.province": "استان",
    "target.priority": "اولویت",
    "target.name": "نام",
    "target.first_name": "نام کوچک",
    "target.last_name": "نام خانوادگی",
    "target.mobile": "موبایل",
    "target.landline": "تلفن ثابت",
    "execution.cycle": "شماره دور",
    "last_action.status": "نتیجه آخرین اقدام",
}
LIST_OPERATORS = {"in", "not_in", "has_word"}
NO_VALUE_OPERATORS = {"is_empty", "is_not_empty", "is_true", "is_false"}


def field_label(key: str) -> str:
    """A rule's field for people: the built-in labels, then the channels' facts (``FACTS``)."""
    from automation.engine.registry import FACTS

    fact = FACTS.get(key)
    return fact.label if fact is not None else FIELD_LABELS.get(key, key)


def condition_fields() -> list[tuple[str, str]]:
    from automation.engine.conditions import TARGET_FIELDS
    from automation.engine.registry import FACTS

    keys = [*sorted(f"target.{f}" for f in TARGET_FIELDS), "execution.cycle", "last_action.status", *FACTS.keys()]
    return [(k, field_label(k)) for k in keys]


def condition_facts() -> list[tuple[str, str, str]]:
    """(label, its operators for people, help) of every fact a channel registered: the editor's notes."""
    from automation.engine.registry import FACTS, fact_operators

    return [
        (fact.label, "، ".join(f"«{OPERATOR_LABELS.get(op, op)}»" for op in fact_operators(fact)), fact.help)
        for _, fact in FACTS
    ]


def operators() -> list[tuple[str, str]]:
    from automation.engine.registry import OPERATORS

    return [(k, OPERATOR_LABELS.get(k, k)) for k in OPERATORS.keys()]


def _rule_value(operator: str, raw: str) -> Any:
    if operator in NO_VALUE_OPERATORS:
        return None
    if operator in LIST_OPERATORS:
        return [part.strip() for part in raw.replace("،", ",").split(",") if part.strip()]
    number = form_int(raw)
    return number if number is not None and operator in ("gt", "gte", "lt", "lte") else raw.strip()


def rules_text(cfg: JSON, *, limit: int | None = None) -> str:
    """A rule tree as staff read it («وضعیت مخاطب یکی از …» joined by «و» / «یا»); a nested group in
    parentheses. ``limit``: only the first rules of the top level (the step card), else all (the version diff)."""
    rules = cfg.get("rules") if isinstance(cfg, dict) else None
    parts = []
    for rule in (rules or [])[:limit]:
        if isinstance(rule, dict) and "rules" in rule and "field" not in rule:
            parts.append("(گروه قواعد)" if limit else f"({rules_text(rule)})")
            continue
        if not isinstance(rule, dict) or "field" not in rule:
            parts.append("(گروه قواعد)")
            continue
        value = rule.get("value")
        shown = "، ".join(map(str, value)) if isinstance(value, list) else ("" if value is None else str(value))
        parts.append(
            f"{field_label(rule['field'])} "
            f"{OPERATOR_LABELS.get(rule.get('operator'), rule.get('operator'))} {shown}".strip()
        )
    joiner = " و " if cfg.get("logic", "all") == "all" else " یا "
    return joiner.join(parts) or "(قاعده ندارد)"


def _rules(data: Mapping) -> list[dict[str, Any]]:
    rules = []
    count = form_int(data.get("rule_count")) or 0
    for i in range(min(count, 50)):
        field_name = form_text(data, f"rule_field_{i}").strip()
        operator = form_text(data, f"rule_op_{i}").strip()
        if not field_name or not operator or f"rule_drop_{i}" in data:
            continue
        value = _rule_value(operator, form_text(data, f"rule_value_{i}"))
        rules.append({"field": field_name, "operator": operator, "value": value})
    return rules


@dataclass(frozen=True, kw_only=True)
class Condition(Step):
    """A rule tree (``{"logic", "rules"}``) that closes its list; ``yes`` and ``no`` are lists of their own. A
    disabled condition takes the "yes" branch."""

    subtype: str = "field_rules"
    yes: tuple[Step, ...] = ()
    no: tuple[Step, ...] = ()

    node_type: ClassVar[str] = NodeType.CONDITION
    kind: ClassVar[str] = "condition"
    label: ClassVar[str] = "شرط"
    menu_label: ClassVar[str] = "شرط"
    menu_order: ClassVar[int] = 20
    editor_template: ClassVar[str] = "automation/_editor_condition.html"
    branch_fields: ClassVar[dict[str, str]] = {"yes": "yes", "no": "no"}  # branch = the port it leaves by
    terminates: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "yes", as_steps(self.yes))
        object.__setattr__(self, "no", as_steps(self.no))

    @classmethod
    def when(cls, key: str, rules: list[JSON], *, logic: str = "all", name: str = "", yes=(), no=()) -> Condition:
        return cls(key=key, name=name, config={"logic": logic, "rules": rules}, yes=tuple(yes), no=tuple(no))

    @classmethod
    def new(cls, key: str) -> Condition:
        return cls.when(key, [{"field": "target.status", "operator": "in", "value": []}], name="شرط")

    @classmethod
    def read(cls, node, common, ports, read_list):
        yes, no = read_list(ports.get(Port.YES)), read_list(ports.get(Port.NO))
        return cls(subtype=node.subtype, yes=yes, no=no, **common), None

    def adopt(self, following):
        return replace(self, yes=following) if following and not self.yes else None

    @property
    def rule_rows(self) -> list[tuple[str, str, str]]:
        """(field, operator, value text) of the plain rules, plus one empty row to add a rule."""
        rows = []
        for rule in self.config.get("rules") or []:
            if isinstance(rule, dict) and "field" in rule:
                value = rule.get("value")
                text = ", ".join(map(str, value)) if isinstance(value, list) else ("" if value is None else str(value))
                rows.append((rule["field"], rule.get("operator", ""), text))
        return [*rows, ("", "", "")]

    def summary(self) -> str:
        return rules_text(self.config, limit=3)

    @staticmethod
    def describe(node, config) -> list[tuple[str, str]]:
        return [("شرط", rules_text(config))]

    def from_form(self, data: Mapping, *, name: str, enabled: bool, timezone: str) -> Condition:
        logic = "any" if data.get("logic") == "any" else "all"
        return replace(self, name=name, enabled=enabled, config={"logic": logic, "rules": _rules(data)})
