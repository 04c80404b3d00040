"""Condition rule trees: ``{"logic": "all|any", "rules": [{field, operator, value} | nested tree]}``.

Fields: ``target.<field>``, ``target.attributes.<name>``, ``execution.metadata.<name>``,
``execution.cycle``, ``last_action.status`` and every fact a channel registered (``FACTS``, e.g. the SMS
channel's ``reply.received``); a rule on a fact may use only its kind's operators (``fact_operators``).
Operators come from the OPERATORS registry.
"""

from __future__ import annotations

from typing import Any

from automation.engine.registry import FACTS, OPERATORS, fact_operators
from campaigns.platform.words import has_word, text_words

# Caps of one condition tree (the top group is depth 1); checked before any walk of the tree, and
# the walks are iterative, so a hostile tree is refused instead of raising RecursionError.
MAX_CONDITION_DEPTH = 10
MAX_CONDITION_RULES = 200

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
    OPERATORS.register("is_true", lambda a, b: a is True)
    OPERATORS.register("is_false", lambda a, b: a is not True)
    OPERATORS.register("has_word", has_word)


def field_is_known(name: str) -> bool:
    if name in FACTS:
        return True
    parts = name.split(".")
    if parts[0] == "target":
        return (len(parts) == 2 and parts[1] in TARGET_FIELDS) or (len(parts) == 3 and parts[1] == "attributes")
    if parts[0] == "execution":
        return name == "execution.cycle" or (len(parts) == 3 and parts[1] == "metadata")
    return name == "last_action.status"


def field_value(name: str, ctx) -> Any:
    fact = FACTS.get(name)
    if fact is not None:
        return fact.resolve(ctx)
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
    """Recursive, but only ever given published trees, whose depth the validator caps at MAX_CONDITION_DEPTH."""
    logic = tree.get("logic", "all")
    results = []
    for rule in tree.get("rules", []):
        if "rules" in rule:
            results.append(evaluate(rule, ctx))
            continue
        op = OPERATORS.get(rule.get("operator", ""))
        results.append(bool(op and op(field_value(rule.get("field", ""), ctx), rule.get("value"))))
    return any(results) if logic == "any" else all(results)


def _is_group(rule: Any) -> bool:
    return isinstance(rule, dict) and "rules" in rule


def tree_size_errors(tree: Any) -> list[str]:
    """Messages for a tree deeper than MAX_CONDITION_DEPTH or with more than MAX_CONDITION_RULES rules.

    Iterative, and it stops as soon as a cap is passed, so its cost is bounded by the caps.
    """
    count = 0
    stack = [(tree, 1)]
    while stack:
        group, depth = stack.pop()
        if depth > MAX_CONDITION_DEPTH:
            return [f"شرط حداکثر {MAX_CONDITION_DEPTH} سطح تودرتو می‌تواند داشته باشد."]
        rules = group.get("rules") if isinstance(group, dict) else None
        if not isinstance(rules, list):
            continue
        count += len(rules)
        if count > MAX_CONDITION_RULES:
            return [f"شرط حداکثر {MAX_CONDITION_RULES} قاعده می‌تواند داشته باشد."]
        stack.extend((rule, depth + 1) for rule in rules if _is_group(rule))
    return []


def tree_errors(tree: Any) -> list[str]:
    """Every problem of a condition tree, in document order (size caps first; no recursion)."""
    too_big = tree_size_errors(tree)
    if too_big:
        return too_big
    errors: list[str] = []
    stack: list[tuple[bool, Any]] = [(True, tree)]
    while stack:
        is_group, item = stack.pop()
        if is_group:
            if not isinstance(item, dict) or item.get("logic", "all") not in ("all", "any"):
                errors.append("شرط باید logic برابر all یا any داشته باشد.")
                continue
            rules = item.get("rules")
            if not isinstance(rules, list) or not rules:
                errors.append("شرط دست‌کم یک قاعده لازم دارد.")
                continue
            stack.extend((_is_group(rule), rule) for rule in reversed(rules))
        elif not isinstance(item, dict):
            errors.append("قاعده نامعتبر است.")
        else:
            if not field_is_known(str(item.get("field", ""))):
                errors.append(f"فیلد «{item.get('field')}» ناشناخته است.")
            fact = FACTS.get(str(item.get("field", "")))
            if item.get("operator") not in OPERATORS:
                errors.append(f"عملگر «{item.get('operator')}» ناشناخته است.")
            elif fact is not None and item.get("operator") not in fact_operators(fact):
                errors.append(f"عملگر «{item.get('operator')}» برای «{fact.label}» به کار نمی‌رود.")
            elif item.get("operator") == "has_word" and not [w for w in _as_list(item.get("value")) if text_words(w)]:
                errors.append("برای «شامل یکی از کلمه‌ها» دست‌کم یک کلمه لازم است.")
    return errors
