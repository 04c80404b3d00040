"""The builder's action step: any registered action (``ACTIONS``: ``send_sms`` …) with its retry policy.

Its editor is the action's own partial (``Action.editor_template``) or the generic one, which shows one
field per property of the action's config schema (``cfg_<name>``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar

from automation.choices import NodeType, Port
from automation.engine.graph import STEP_DEFAULT_KEYS
from automation.engine.nodes.step import JSON, Step, as_steps, form_int, form_text
from automation.engine.registry import ACTIONS, Action
from campaigns.platform.jalali import fa_digits

ON_EXHAUSTED = [
    ("fail", "ناموفق شود"),
    ("continue", "ادامه مسیر"),
    ("skip_step", "رد شدن از گام"),
    ("stop", "توقف"),
]
STRATEGIES = [("fixed", "فاصله ثابت"), ("exponential", "دو برابر شونده")]


@dataclass(frozen=True)
class Retry:
    """An action's retry policy (``config["retry"]``); counts are retries, so 3 means up to 4 attempts."""

    enabled: bool = True
    strategy: str = "fixed"  # fixed | exponential
    max_attempts: int = 3
    interval_seconds: int = 900
    on_exhausted: str = "fail"  # stop | skip_step | continue | fail

    def as_config(self) -> JSON:
        return asdict(self)

    @classmethod
    def from_config(cls, data: Any) -> Retry | None:
        if not isinstance(data, Mapping) or not data:
            return None
        defaults = cls()
        return cls(
            enabled=bool(data.get("enabled", defaults.enabled)),
            strategy=str(data.get("strategy", defaults.strategy)),
            max_attempts=data.get("max_attempts", defaults.max_attempts),
            interval_seconds=data.get("interval_seconds", defaults.interval_seconds),
            on_exhausted=str(data.get("on_exhausted", defaults.on_exhausted)),
        )


def _schema_defaults(action: Action) -> dict[str, Any]:
    props = (action.config_schema or {}).get("properties", {})
    config = {name: spec["default"] for name, spec in props.items() if isinstance(spec, dict) and "default" in spec}
    for name in (action.config_schema or {}).get("required", []):
        config.setdefault(name, "")
    return config


def _retry(data: Mapping, old: Any) -> dict[str, Any]:
    old = old if isinstance(old, dict) else {}
    minutes = form_int(data.get("retry_interval_minutes"))
    return {
        "enabled": "retry_enabled" in data,
        "strategy": form_text(data, "retry_strategy", old.get("strategy", "fixed")),
        "max_attempts": form_int(data.get("retry_max_attempts")),
        "interval_seconds": minutes * 60 if minutes is not None else None,
        "on_exhausted": form_text(data, "retry_on_exhausted", old.get("on_exhausted", "fail")),
    }


def _present(data: Mapping) -> list[str]:
    return data.getlist("cfg_present") if hasattr(data, "getlist") else list(data.get("cfg_present") or [])


def _action_config(action: Action | None, data: Mapping, old: dict[str, Any]) -> dict[str, Any]:
    """Fields ``cfg_<name>`` typed by the action's config schema; ``cfg_present`` lists those on the form."""
    config = dict(old)
    props = (action.config_schema or {}).get("properties", {}) if action else {}
    for name in set(_present(data)):
        spec = props.get(name)
        if not isinstance(spec, dict):
            continue
        kind = spec.get("type")
        kinds = kind if isinstance(kind, list) else [kind]
        raw = data.get(f"cfg_{name}")
        if "object" in kinds:  # one field per sub-property: cfg_<name>__<sub>
            subs = spec.get("properties", {})
            config[name] = {
                sub: form_int(data.get(f"cfg_{name}__{sub}"))
                if sub_spec.get("type") == "integer"
                else form_text(data, f"cfg_{name}__{sub}")
                for sub, sub_spec in subs.items()
            }
        elif "string" in kinds and "integer" in kinds:  # a keyword or a number (e.g. "owner" or a member id)
            config[name] = form_int(raw) if form_int(raw) is not None else form_text(data, f"cfg_{name}")
        elif "boolean" in kinds:
            config[name] = f"cfg_{name}" in data
        elif "integer" in kinds:
            config[name] = form_int(raw)
        elif "null" in kinds:
            config[name] = (str(raw).strip() or None) if raw is not None else None
        else:
            config[name] = form_text(data, f"cfg_{name}")
    if "retry_present" in data:
        if data.get("retry_inherit") == "on":
            config.pop("retry", None)  # the workflow's default retry (``with_workflow_defaults``)
        else:
            config["retry"] = _retry(data, old.get("retry"))
    for name in STEP_DEFAULT_KEYS:  # left empty on the form: the workflow's default, not a value of the step's own
        if config.get(name) in ("", None) and name in config and name != "retry":
            config.pop(name)
    return config


@dataclass(frozen=True, kw_only=True)
class Send(Step):
    """An action step: any registered action (a channel's, e.g. ``send_sms``); ``config`` is its config."""

    action: str  # no default: the engine knows no channel
    on_failure: tuple[Step, ...] = ()  # () = no failure branch

    node_type: ClassVar[str] = NodeType.ACTION
    kind: ClassVar[str] = "action"
    label: ClassVar[str] = "اقدام"
    editor_template: ClassVar[str] = "automation/_editor_action.html"
    branch_fields: ClassVar[dict[str, str]] = {"failure": "on_failure"}
    port_aliases: ClassVar[dict[str, str]] = {Port.SUCCESS: Port.DEFAULT}

    def __post_init__(self) -> None:
        object.__setattr__(self, "on_failure", as_steps(self.on_failure))

    @classmethod
    def message(
        cls, key: str, body: str, *, action: str, title: str = "", retry: Retry | None = None, **config: Any
    ) -> Send:
        """A step of a message action (``action``: the channel's, e.g. ``send_sms``) sending ``body``."""
        cfg: JSON = {"title": title, "body": body, **config}
        if retry is not None:
            cfg["retry"] = retry.as_config()
        return cls(key=key, action=action, name=title, config=cfg)

    @classmethod
    def for_action(cls, key: str, kind: str, action: Action) -> Send:
        """A fresh step of the action registered as ``kind``, for the add-step menu, with its schema's defaults."""
        config = _schema_defaults(action)
        if "title" in config or "title" in (action.config_schema or {}).get("properties", {}):
            config["title"] = action.label
        return cls(key=key, action=kind, name=action.label, config=config)

    @classmethod
    def read(cls, node, common, ports, read_list):
        failure = read_list(ports.get(Port.FAILURE))
        return cls(action=node.subtype, on_failure=failure, **common), ports.get(Port.DEFAULT, ports.get(Port.SUCCESS))

    @property
    def subtype(self) -> str:
        return self.action

    @property
    def registered_action(self) -> Action | None:
        return ACTIONS.get(self.action)

    @property
    def retry(self) -> Retry | None:
        return Retry.from_config(self.config.get("retry"))

    def with_retry(self, retry: Retry | None) -> Send:
        config = {k: v for k, v in self.config.items() if k != "retry"}
        if retry is not None:
            config["retry"] = retry.as_config()
        return replace(self, config=config)

    @property
    def send_only_in_window(self) -> bool:
        """Whether the send waits for the journey's send window (the window itself is a workflow setting)."""
        return bool(self.config.get("send_only_in_window", True))

    @property
    def retry_view(self) -> dict[str, Any]:
        retry = self.retry
        if retry is None:  # none of its own: it follows the workflow's default (``inherit``)
            return {
                "inherit": True,
                "enabled": False,
                "strategy": "fixed",
                "max_attempts": 3,
                "minutes": 15,
                "on_exhausted": "fail",
            }
        seconds = retry.interval_seconds if isinstance(retry.interval_seconds, int) else 0
        return {
            "enabled": retry.enabled,
            "strategy": retry.strategy,
            "max_attempts": retry.max_attempts,
            "minutes": seconds // 60 if seconds else "",
            "on_exhausted": retry.on_exhausted,
        }

    def drawn_branches(self) -> dict[str, tuple[Step, ...]]:
        return self.branches() if self.on_failure else {}  # a failure branch is drawn only when the graph has one

    def badge(self) -> str:
        action = self.registered_action
        return action.label if action else self.action

    def editor(self) -> str:
        action = self.registered_action
        return (action.editor_template if action else "") or self.editor_template

    def summary(self) -> str:
        action = self.registered_action
        texts = action.template_texts(self.config) if action else []
        text = (texts[0] if texts else "").strip()
        return text[:120] + ("…" if len(text) > 120 else "") if text else "(متن ندارد)"

    @staticmethod
    def describe(node, config) -> list[tuple[str, str]]:
        action = ACTIONS.get(node.subtype)
        lines = [("اقدام", action.label if action else node.subtype)]
        for text in action.template_texts(config) if action else []:
            lines.append(("متن", text))
        if isinstance(config.get("retry"), dict):
            retry = config["retry"]
            strategy = retry.get("strategy", "fixed")
            exhausted = retry.get("on_exhausted", "fail")
            shown = [
                "روشن" if retry.get("enabled", True) else "خاموش",
                f"{fa_digits(retry.get('max_attempts'))} بار",
                f"هر {fa_digits(retry.get('interval_seconds'))} ثانیه",
                dict(STRATEGIES).get(strategy, strategy),
                f"پس از آخرین تلاش: {dict(ON_EXHAUSTED).get(exhausted, exhausted)}",
            ]
            lines.append(("تلاش دوباره", "، ".join(shown)))
        return lines

    def from_form(self, data: Mapping, *, name: str, enabled: bool, timezone: str) -> Send:
        action = self.registered_action
        config = _action_config(action, data, self.config)
        if action and "title" in (action.config_schema or {}).get("properties", {}) and "title" not in _present(data):
            config["title"] = name  # the step's name is its title unless the editor has a title of its own
        return replace(self, name=name, enabled=enabled, config=config)
