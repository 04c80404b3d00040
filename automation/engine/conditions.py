"""Condition rule trees: ``{"logic": "all|any", "rules": [{field, operator, value} | nested tree]}``.

Fields: ``target.<field>``, ``target.attributes.<name>``, ``execution.metadata.<name>``,
``execution.cycle``, ``last_action.status``. Operators come from the OPERATORS registry.
"""

from __future__ import annotations

from typing import Any

from .registry import OPERATORS

TARGET_FIELDS = {"status", "city", "province", "priority", "name", "first_name", "last_name", "mobile", "landline"}


def _num(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _cmp(fn):
    def op(left, right):
        a, b = _num(left), _num(right)
        return a is not None and b is not None and fn(a, b)

    return op


def _as_list(value) -> list:
    return list(value) if isinstance(value, list | tuple | set) else [value]


def register_builtin_operators() -> None:
    OPERATORS.register("eq", lambda a, b: a == b or (str(a) == str(b) and a is not None))
    OPERATORS.register("neq", lambda a, b: not (a == b or (str(a) == str(b) and a is not None)))
    OPERATORS.register("in", lambda a, b: a in _as_list(b) or str(a) in [str(x) for x in _as_list(b)])
    OPERATORS.register("not_in", lambda a, b: not (a in _as_list(b) or str(a) in [str(x) for x in _as_list(b)]))
    OPERATORS.register("contains", lambda a, b: a is not None and str(b) in str(a))
    OPERATORS.register("gt", _cmp(lambda a, b: a > b))
    OPERATORS.register("gte", _cmp(lambda a, b: a >= b))
    OPERATORS.register("lt", _cmp(lambda a, b: a < b))
    OPERATORS.register("lte", _cmp(lambda a, b: a <= b))
    OPERATORS.register("is_empty", lambda a, b: a in (None, "", [], {}))
    OPERATORS.register("is_not_empty", lambda a, b: a not in (None, "", [], {}))


def field_is_known(name: str) -> bool:
    parts = name.split(".")
    if parts[0] == "target":
        return (len(parts) == 2 and parts[1] in TARGET_FIELDS) or (len(parts) == 3 and parts[1] == "attributes")
    if parts[0] == "execution":
        return name == "execution.cycle" or (len(parts) == 3 and parts[1] == "metadata")
    return name == "last_action.status"


def field_value(name: str, ctx) -> Any:
    parts = name.split(".")
    if parts[0] == "target":
        subject = ctx.subject
        if subject is None:
            return None
        if parts[1] == "attributes":
            return (getattr(subject, "attributes", None) or {}).get(parts[2])
        return getattr(subject, parts[1], None)
    if name == "execution.cycle":
        return ctx.execution.cycle
    if parts[0] == "execution":
        return (ctx.execution.metadata or {}).get(parts[2])
    if name == "last_action.status":
        return (ctx.execution.metadata or {}).get("last_action_status")
    return None


def evaluate(tree: dict[str, Any], ctx) -> bool:
    logic = tree.get("logic", "all")
    results = []
    for rule in tree.get("rules", []):
        if "rules" in rule:
            results.append(evaluate(rule, ctx))
            continue
        op = OPERATORS.get(rule.get("operator", ""))
        results.append(bool(op and op(field_value(rule.get("field", ""), ctx), rule.get("value"))))
    return any(results) if logic == "any" else all(results)


def tree_errors(tree: Any, path: str = "rules") -> list[str]:
    if not isinstance(tree, dict) or tree.get("logic", "all") not in ("all", "any"):
        return ["شرط باید logic برابر all یا any داشته باشد."]
    rules = tree.get("rules")
    if not isinstance(rules, list) or not rules:
        return ["شرط دست‌کم یک قاعده لازم دارد."]
    errors = []
    for rule in rules:
        if isinstance(rule, dict) and "rules" in rule:
            errors += tree_errors(rule)
        elif not isinstance(rule, dict):
            errors.append("قاعده نامعتبر است.")
        else:
            if not field_is_known(str(rule.get("field", ""))):
                errors.append(f"فیلد «{rule.get('field')}» ناشناخته است.")
            if rule.get("operator") not in OPERATORS:
                errors.append(f"عملگر «{rule.get('operator')}» ناشناخته است.")
    return errors
