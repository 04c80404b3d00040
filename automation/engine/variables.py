"""Message variables: ``{target.first_name}``, short names, ``{x|default}``, ``{phone}``.

Unknown variables are refused at publish (``unknown_variables``). At run time a
variable without a value uses its default; without a default the step's
``on_missing_variable`` decides: ``skip`` (the step is skipped) or ``blank``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from automation.engine.registry import VARIABLES, Variable
from campaigns.platform.phones import display_phone

TOKEN = re.compile(r"\{\s*([a-zA-Z_][a-zA-Z0-9_.]*)\s*(?:\|([^{}]*))?\}")


def _target_attr(name: str):
    def resolve(scope) -> Any:
        subject = scope.subject
        return getattr(subject, name, None) if subject is not None else None

    return resolve


def _first_name(scope) -> Any:
    subject = scope.subject
    if subject is None:
        return None
    return getattr(subject, "first_name", "") or getattr(subject, "name", "")


def _phone(scope) -> Any:
    subject = scope.subject
    if subject is None:
        return None
    return display_phone(getattr(subject, "mobile", None) or getattr(subject, "landline", None)) or None


def _campaign_name(scope) -> Any:
    return getattr(scope.campaign, "name", None)


def _workspace_name(scope) -> Any:
    workspace = getattr(scope, "workspace", None) or getattr(getattr(scope, "campaign", None), "workspace", None)
    return getattr(workspace, "name", None)


METADATA_PREFIXES = ("execution.metadata.", "metadata.")


def _metadata(key: str):
    def resolve(scope) -> Any:
        execution = getattr(scope, "execution", None)
        value = (getattr(execution, "metadata", None) or {}).get(key) if execution is not None else None
        return value if isinstance(value, str | int | float) and not isinstance(value, bool) else None

    return resolve


def register_builtin_variables() -> None:
    builtins = [
        Variable("target.first_name", "نام کوچک (یا نام کامل)", _first_name, ("first_name",)),
        Variable("target.last_name", "نام خانوادگی", _target_attr("last_name"), ("last_name",)),
        Variable("target.name", "نام کامل", _target_attr("name"), ("name",)),
        Variable("target.city", "شهر", _target_attr("city"), ("city",)),
        Variable("target.province", "استان", _target_attr("province"), ("province",)),
        Variable("target.phone", "شماره تلفن", _phone, ("phone",)),
        Variable("campaign.name", "نام کمپین", _campaign_name, ("campaign",)),
        Variable("workspace.name", "نام فضای کاری", _workspace_name, ("workspace",)),
    ]
    for variable in builtins:
        VARIABLES.register(variable.key, variable)


_aliases: tuple[int, dict[str, Variable]] = (-1, {})


def _by_alias(name: str) -> Variable | None:
    """The variable one of whose aliases is ``name`` (the first by key; an index rebuilt when one registers)."""
    global _aliases
    if _aliases[0] != VARIABLES.version:
        index: dict[str, Variable] = {}
        for _key, candidate in VARIABLES:
            for alias in candidate.aliases:
                index.setdefault(alias, candidate)
        _aliases = (VARIABLES.version, index)
    return _aliases[1].get(name)


def _lookup(name: str) -> Variable | None:
    variable = VARIABLES.get(name)
    if variable is not None:
        return variable
    variable = _by_alias(name)
    if variable is not None:
        return variable
    for prefix in METADATA_PREFIXES:  # the execution's runtime values, e.g. {execution.metadata.discount_code}
        key = name[len(prefix) :]
        if name.startswith(prefix) and key and "." not in key:
            return Variable(name, f"مقدار اجرا: {key}", _metadata(key), ())
    return None


def variables_in(text: str) -> list[str]:
    return [m.group(1) for m in TOKEN.finditer(text or "")]


def unknown_variables(text: str) -> list[str]:
    return sorted({name for name in variables_in(text) if _lookup(name) is None})


@dataclass
class Rendered:
    text: str
    missing: list[str]


def render(text: str, scope, *, on_missing: str = "blank") -> Rendered:
    """Replace every token; ``missing`` lists variables with neither a value nor a default."""
    missing: list[str] = []

    def replace(match: re.Match) -> str:
        name, default = match.group(1), match.group(2)
        variable = _lookup(name)
        value = variable.resolve(scope) if variable is not None else None
        if value in (None, ""):
            if default is not None:
                return default.strip()
            missing.append(name)
            return ""
        return str(value)

    out = TOKEN.sub(replace, text or "")
    out = re.sub(r"[ \t]{2,}", " ", out).strip() if missing and on_missing == "blank" else out
    return Rendered(out, missing)
