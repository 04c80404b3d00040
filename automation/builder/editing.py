"""The builder page over a ``WorkflowSequence``: step cards, add-step places and editor forms → steps.

Pure functions (no database): the views decompile the draft, change it here and save the compiled
graph through ``automation.services.workflows.workflow_graph_save`` — the same service as the API.
Forms are lenient on purpose: a draft saves incomplete and the validator says what is missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from automation.builder.sequence import (
    TERMINATORS,
    Condition,
    End,
    Send,
    Step,
    StepPath,
    StepProblem,
    Wait,
    WorkflowSequence,
    format_path,
    new_step_key,
)
from automation.engine.conditions import TARGET_FIELDS
from automation.engine.registry import ACTIONS, OPERATORS, Action
from campaigns.platform.jalali import fa_digits, naive_to_jalali, parse_jalali

UNITS = [("minutes", "دقیقه"), ("hours", "ساعت"), ("days", "روز")]
UNIT_LABELS = dict(UNITS)
END_BEHAVIORS = [
    ("complete", "پایان کامل"),
    ("stop", "توقف"),
    ("loop", "تکرار از یک گام"),
    ("restart", "شروع دوباره از اول"),
]
END_LABELS = dict(END_BEHAVIORS)
ON_EXHAUSTED = [
    ("fail", "ناموفق شود"),
    ("continue", "ادامه مسیر"),
    ("skip_step", "رد شدن از گام"),
    ("stop", "توقف"),
]
STRATEGIES = [("fixed", "فاصله ثابت"), ("exponential", "دو برابر شونده")]
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
LIST_OPERATORS = {"in", "not_in"}
NO_VALUE_OPERATORS = {"is_empty", "is_not_empty"}
_LATIN = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")


def condition_fields() -> list[tuple[str, str]]:
    keys = [*sorted(f"target.{f}" for f in TARGET_FIELDS), "execution.cycle", "last_action.status"]
    return [(k, FIELD_LABELS.get(k, k)) for k in keys]


def operators() -> list[tuple[str, str]]:
    return [(k, OPERATOR_LABELS.get(k, k)) for k in OPERATORS.keys()]


def step_kinds() -> list[tuple[str, str]]:
    """The add-step menu: every registered action, then wait, condition and end."""
    actions = [(key, action.label or key) for key, action in ACTIONS]
    return [*actions, ("wait", "انتظار"), ("condition", "شرط"), ("end", "پایان")]


def _schema_defaults(action: Action) -> dict[str, Any]:
    props = (action.config_schema or {}).get("properties", {})
    config = {name: spec["default"] for name, spec in props.items() if isinstance(spec, dict) and "default" in spec}
    for name in (action.config_schema or {}).get("required", []):
        config.setdefault(name, "")
    return config


def new_step(kind: str) -> Step:
    """A fresh step for the add-step menu (incomplete on purpose: the editor opens next)."""
    key = new_step_key()
    if kind == "wait":
        return Wait.duration(key, 1, "days", name="انتظار")
    if kind == "condition":
        rule = {"field": "target.status", "operator": "in", "value": []}
        return Condition.when(key, [rule], name="شرط")
    if kind == "end":
        return End.complete(key, name="پایان")
    action = ACTIONS.get(kind)
    if action is None:
        raise ValueError(f"unknown step kind {kind!r}")
    config = _schema_defaults(action)
    if "title" in config or "title" in (action.config_schema or {}).get("properties", {}):
        config["title"] = action.label
    return Send(key=key, action=kind, name=action.label, config=config)


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
    kind: str  # action | wait | condition | end
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
    def rule_rows(self) -> list[tuple[str, str, str]]:
        """(field, operator, value text) of a condition's plain rules, plus one empty row to add a rule."""
        rows = []
        for rule in self.step.config.get("rules") or []:
            if isinstance(rule, dict) and "field" in rule:
                value = rule.get("value")
                text = ", ".join(map(str, value)) if isinstance(value, list) else ("" if value is None else str(value))
                rows.append((rule["field"], rule.get("operator", ""), text))
        return [*rows, ("", "", "")]

    @property
    def retry_view(self) -> dict[str, Any]:
        retry = self.step.retry if isinstance(self.step, Send) else None
        if retry is None:
            return {"enabled": False, "strategy": "fixed", "max_attempts": 3, "minutes": 15, "on_exhausted": "fail"}
        seconds = retry.interval_seconds if isinstance(retry.interval_seconds, int) else 0
        return {
            "enabled": retry.enabled,
            "strategy": retry.strategy,
            "max_attempts": retry.max_attempts,
            "minutes": seconds // 60 if seconds else "",
            "on_exhausted": retry.on_exhausted,
        }


def summary_of(step: Step) -> str:
    """UI numbers (wait amounts, dates) in Persian digits; the user's own text (SMS, rule values) as typed."""
    cfg = step.config
    if isinstance(step, Send):
        action = ACTIONS.get(step.action)
        texts = action.template_texts(cfg) if action else []
        text = (texts[0] if texts else "").strip()
        return text[:120] + ("…" if len(text) > 120 else "") if text else "(متن ندارد)"
    if isinstance(step, Wait):
        if cfg.get("mode", step.subtype) == "until":
            return f"تا {fa_digits(naive_to_jalali(cfg.get('at'))) or '؟'}"
        return f"{fa_digits(cfg.get('amount')) or '؟'} {UNIT_LABELS.get(cfg.get('unit', 'days'), '')}"
    if isinstance(step, Condition):
        rules = cfg.get("rules") or []
        parts = []
        for rule in rules[:3]:
            if not isinstance(rule, dict) or "field" not in rule:
                parts.append("(گروه قواعد)")
                continue
            value = rule.get("value")
            shown = "، ".join(map(str, value)) if isinstance(value, list) else ("" if value is None else str(value))
            parts.append(
                f"{FIELD_LABELS.get(rule['field'], rule['field'])} "
                f"{OPERATOR_LABELS.get(rule.get('operator'), rule.get('operator'))} {shown}".strip()
            )
        joiner = " و " if cfg.get("logic", "all") == "all" else " یا "
        return joiner.join(parts) or "(قاعده ندارد)"
    if isinstance(step, End):
        text = END_LABELS.get(step.behavior, step.behavior)
        if step.behavior in ("loop", "restart"):
            delay = cfg.get("delay") or {}
            text += f" پس از {delay.get('amount', '؟')} {UNIT_LABELS.get(delay.get('unit', 'days'), '')}"
            text += f"، حداکثر {cfg.get('max_cycles', '؟')} دور"
        return text
    return ""


def _kind(step: Step) -> str:
    return {Send: "action", Wait: "wait", Condition: "condition", End: "end"}[type(step)]


BRANCH_LABELS = {"yes": "اگر بله", "no": "اگر نه", "failure": "اگر ناموفق ماند"}


def step_cards(sequence: WorkflowSequence, problems: list[StepProblem]) -> list[Card]:
    by_path: dict[str, list[str]] = {}
    for problem in problems:
        by_path.setdefault(problem.anchor, []).append(problem.message)

    def cards(steps: tuple[Step, ...], prefix: StepPath) -> list[Card]:
        out = []
        for index, step in enumerate(steps):
            path = (*prefix, index)
            action = ACTIONS.get(step.action) if isinstance(step, Send) else None
            card = Card(
                step=step,
                path=format_path(path),
                kind=_kind(step),
                title=step.name or (action.label if action else step.key),
                summary=summary_of(step),
                action=action,
                problems=by_path.get(format_path(path), []),
            )
            if not isinstance(step, TERMINATORS):
                card.add_after = format_path((*prefix, index + 1))
                card.can_end_after = index == len(steps) - 1
            shown = step.branches()
            if isinstance(step, Send) and not step.on_failure:
                shown = {}  # a failure branch is drawn only when the graph has one
            for name, sub in shown.items():
                card.branches.append(
                    Branch(
                        name=name,
                        label=BRANCH_LABELS.get(name, name),
                        cards=cards(sub, (*path, name)),
                        add_at=format_path((*path, name, 0)),
                        can_end=not sub,
                        is_open=not sub or not isinstance(sub[-1], TERMINATORS),
                    )
                )
            out.append(card)
        return out

    return cards(sequence.steps, ())


def main_list_open(sequence: WorkflowSequence) -> bool:
    return not sequence.steps or not isinstance(sequence.steps[-1], TERMINATORS)


# --- editor forms → steps ------------------------------------------------------------------------


def _int(value: Any) -> int | None:
    text = str(value if value is not None else "").strip().translate(_LATIN)
    try:
        return int(text)
    except ValueError:
        return None


def _text(data: Mapping, name: str, default: str = "") -> str:
    value = data.get(name)
    return default if value is None else str(value).replace("\r\n", "\n")


def _retry(data: Mapping, old: Any) -> dict[str, Any]:
    old = old if isinstance(old, dict) else {}
    minutes = _int(data.get("retry_interval_minutes"))
    return {
        "enabled": "retry_enabled" in data,
        "strategy": _text(data, "retry_strategy", old.get("strategy", "fixed")),
        "max_attempts": _int(data.get("retry_max_attempts")),
        "interval_seconds": minutes * 60 if minutes is not None else None,
        "on_exhausted": _text(data, "retry_on_exhausted", old.get("on_exhausted", "fail")),
    }


def _action_config(action: Action | None, data: Mapping, old: dict[str, Any]) -> dict[str, Any]:
    """Fields ``cfg_<name>`` typed by the action's config schema; ``cfg_present`` lists those on the form."""
    config = dict(old)
    props = (action.config_schema or {}).get("properties", {}) if action else {}
    present = set(data.getlist("cfg_present")) if hasattr(data, "getlist") else set(data.get("cfg_present") or [])
    for name in present:
        spec = props.get(name)
        if not isinstance(spec, dict):
            continue
        kind = spec.get("type")
        kinds = kind if isinstance(kind, list) else [kind]
        raw = data.get(f"cfg_{name}")
        if "object" in kinds:  # one field per sub-property: cfg_<name>__<sub>
            subs = spec.get("properties", {})
            config[name] = {
                sub: _int(data.get(f"cfg_{name}__{sub}"))
                if sub_spec.get("type") == "integer"
                else _text(data, f"cfg_{name}__{sub}")
                for sub, sub_spec in subs.items()
            }
        elif "string" in kinds and "integer" in kinds:  # a keyword or a number (e.g. "owner" or a member id)
            config[name] = _int(raw) if _int(raw) is not None else _text(data, f"cfg_{name}")
        elif "boolean" in kinds:
            config[name] = f"cfg_{name}" in data
        elif "integer" in kinds:
            config[name] = _int(raw)
        elif "null" in kinds:
            config[name] = (str(raw).strip() or None) if raw is not None else None
        else:
            config[name] = _text(data, f"cfg_{name}")
    if "retry_present" in data:
        config["retry"] = _retry(data, old.get("retry"))
    return config


def _rule_value(operator: str, raw: str) -> Any:
    if operator in NO_VALUE_OPERATORS:
        return None
    if operator in LIST_OPERATORS:
        return [part.strip() for part in raw.replace("،", ",").split(",") if part.strip()]
    number = _int(raw)
    return number if number is not None and operator in ("gt", "gte", "lt", "lte") else raw.strip()


def _rules(data: Mapping) -> list[dict[str, Any]]:
    rules = []
    count = _int(data.get("rule_count")) or 0
    for i in range(min(count, 50)):
        field_name = _text(data, f"rule_field_{i}").strip()
        operator = _text(data, f"rule_op_{i}").strip()
        if not field_name or not operator or f"rule_drop_{i}" in data:
            continue
        value = _rule_value(operator, _text(data, f"rule_value_{i}"))
        rules.append({"field": field_name, "operator": operator, "value": value})
    return rules


def step_from_form(step: Step, data: Mapping, *, timezone: str = "Asia/Tehran") -> Step:
    """The edited step (same key and branches) from an editor form's fields."""
    name = _text(data, "name", step.name).strip()[:200]
    enabled = "enabled" in data if "enabled_present" in data else step.enabled
    if isinstance(step, Send):
        action = ACTIONS.get(step.action)
        config = _action_config(action, data, step.config)
        present = data.getlist("cfg_present") if hasattr(data, "getlist") else data.get("cfg_present") or []
        if action and "title" in (action.config_schema or {}).get("properties", {}) and "title" not in present:
            config["title"] = name  # the step's name is its title unless the editor has a title of its own
        return replace(step, name=name, enabled=enabled, config=config)
    if isinstance(step, Wait):
        mode = _text(data, "mode", step.config.get("mode", "duration"))
        if mode == "until":
            # Typed as a Jalali date and time in the workspace's zone, stored as its ISO local time; text that
            # is not a date stays as typed, and the validator names the step ("INVALID_WAIT").
            at = _text(data, "at").strip()
            try:
                moment = parse_jalali(at)
            except ValueError:
                moment = None
            at = moment.isoformat(timespec="minutes") if moment else at
            config = {"mode": "until", "at": at, "timezone": timezone}
        else:
            mode = "duration"
            config = {"mode": "duration", "amount": _int(data.get("amount")), "unit": _text(data, "unit", "days")}
        return replace(step, name=name, enabled=enabled, subtype=mode, config=config)
    if isinstance(step, Condition):
        logic = "any" if data.get("logic") == "any" else "all"
        return replace(step, name=name, enabled=enabled, config={"logic": logic, "rules": _rules(data)})
    if isinstance(step, End):
        behavior = _text(data, "behavior", step.behavior)
        if behavior not in END_LABELS:
            behavior = "complete"
        config: dict[str, Any] = {"behavior": behavior}
        if behavior in ("loop", "restart"):
            config["delay"] = {"amount": _int(data.get("delay_amount")), "unit": _text(data, "delay_unit", "days")}
            config["max_cycles"] = _int(data.get("max_cycles"))
        if behavior == "loop":
            config["to_node"] = _text(data, "to_node").strip()
        return replace(step, name=name, enabled=enabled, subtype=behavior, config=config)
    return step


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
