"""The builder's end: complete, stop, loop (to ``config["to_node"]``) or restart from the first step."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from automation.choices import NodeType
from automation.engine.nodes.step import JSON, UNIT_LABELS, Step, form_int, form_text
from campaigns.platform.jalali import fa_digits

END_BEHAVIORS = [
    ("complete", "پایان کامل"),
    ("stop", "توقف"),
    ("loop", "تکرار از یک گام"),
    ("restart", "شروع دوباره از اول"),
]
END_LABELS = dict(END_BEHAVIORS)
# The version diff's shorter names.
DIFF_LABELS = {"complete": "پایان کامل", "stop": "توقف", "loop": "تکرار", "restart": "شروع دوباره"}


@dataclass(frozen=True, kw_only=True)
class End(Step):
    """The end of a list: complete, stop, loop (to ``config["to_node"]``) or restart from the first step."""

    subtype: str = "complete"
    config: JSON = field(default_factory=lambda: {"behavior": "complete"})

    node_type: ClassVar[str] = NodeType.END
    kind: ClassVar[str] = "end"
    label: ClassVar[str] = "پایان"
    menu_label: ClassVar[str] = "پایان"
    menu_order: ClassVar[int] = 30
    menu_at_end_only: ClassVar[bool] = True
    editor_template: ClassVar[str] = "automation/_editor_end.html"
    terminates: ClassVar[bool] = True

    @property
    def behavior(self) -> str:
        return self.config.get("behavior") or self.subtype

    @classmethod
    def complete(cls, key: str, *, name: str = "") -> End:
        return cls(key=key, name=name, subtype="complete", config={"behavior": "complete"})

    @classmethod
    def stop(cls, key: str, *, name: str = "") -> End:
        return cls(key=key, name=name, subtype="stop", config={"behavior": "stop"})

    @classmethod
    def loop(cls, key: str, to_node: str, *, amount: int, unit: str = "days", max_cycles: int, name: str = "") -> End:
        config = {"behavior": "loop", "to_node": to_node, "delay": {"amount": amount, "unit": unit}}
        return cls(key=key, name=name, subtype="loop", config={**config, "max_cycles": max_cycles})

    @classmethod
    def restart(cls, key: str, *, amount: int, unit: str = "days", max_cycles: int, name: str = "") -> End:
        config = {"behavior": "restart", "delay": {"amount": amount, "unit": unit}, "max_cycles": max_cycles}
        return cls(key=key, name=name, subtype="restart", config=config)

    @classmethod
    def new(cls, key: str) -> End:
        return cls.complete(key, name="پایان")

    @classmethod
    def read(cls, node, common, ports, read_list):
        return cls(subtype=node.subtype, **common), None  # an end has no outgoing edges (checked before)

    def summary(self) -> str:
        cfg = self.config
        text = END_LABELS.get(self.behavior, self.behavior)
        if self.behavior in ("loop", "restart"):
            delay = cfg.get("delay") or {}
            text += f" پس از {delay.get('amount', '؟')} {UNIT_LABELS.get(delay.get('unit', 'days'), '')}"
            text += f"، حداکثر {cfg.get('max_cycles', '؟')} دور"
        return text

    @staticmethod
    def describe(node, config) -> list[tuple[str, str]]:
        lines = [("پایان", DIFF_LABELS.get(node.behavior, node.behavior))]
        if node.behavior in ("loop", "restart"):
            delay = config.get("delay") or {}
            amount = fa_digits(delay.get("amount"))
            lines.append(("فاصله", f"{amount} {UNIT_LABELS.get(delay.get('unit', 'days'), '')}"))
            lines.append(("سقف دورها", fa_digits(config.get("max_cycles"))))
        return lines

    def from_form(self, data: Mapping, *, name: str, enabled: bool, timezone: str) -> End:
        behavior = form_text(data, "behavior", self.behavior)
        if behavior not in END_LABELS:
            behavior = "complete"
        config: dict[str, Any] = {"behavior": behavior}
        if behavior in ("loop", "restart"):
            config["delay"] = {
                "amount": form_int(data.get("delay_amount")),
                "unit": form_text(data, "delay_unit", "days"),
            }
            config["max_cycles"] = form_int(data.get("max_cycles"))
        if behavior == "loop":
            config["to_node"] = form_text(data, "to_node").strip()
        return replace(self, name=name, enabled=enabled, subtype=behavior, config=config)
